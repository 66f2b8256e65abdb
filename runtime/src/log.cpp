//===- log.cpp - the runtime's messages, through tsc_set_log_callback -----===//

#include "log.h"

#include <cstdarg>
#include <cstdio>
#include <mutex>
#include <string>

namespace {

struct LogState {
  std::mutex mutex;
  tsc_log_fn fn = nullptr;
  void *userData = nullptr;
  tsc_log_level_t maxLevel = TSC_LOG_WARNING;
};

LogState &state() {
  static LogState s;
  return s;
}

const char *levelName(tsc_log_level_t level) {
  switch (level) {
  case TSC_LOG_ERROR:
    return "error";
  case TSC_LOG_WARNING:
    return "warning";
  case TSC_LOG_INFO:
    return "info";
  case TSC_LOG_DEBUG:
    return "debug";
  }
  return "message";
}

} // namespace

void tsc::rt::logf(tsc_log_level_t level, const char *format, ...) {
  // The state is read under the lock and the callback called outside it, so
  // a callback may call the runtime.
  LogState &s = state();
  tsc_log_fn fn;
  void *userData;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (level > s.maxLevel)
      return;
    fn = s.fn;
    userData = s.userData;
  }
  va_list args;
  va_start(args, format);
  va_list copy;
  va_copy(copy, args);
  int size = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  std::string message(size > 0 ? size_t(size) : 0, '\0');
  if (size > 0)
    std::vsnprintf(message.data(), message.size() + 1, format, args);
  va_end(args);
  if (fn)
    fn(level, message.c_str(), userData);
  else
    std::fprintf(stderr, "tsc: %s: %s\n", levelName(level), message.c_str());
}

extern "C" void tsc_set_log_callback(tsc_log_fn fn, void *user_data,
                                     tsc_log_level_t max_level) {
  LogState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.fn = fn;
  s.userData = fn ? user_data : nullptr;
  s.maxLevel = fn ? max_level : TSC_LOG_WARNING;
}
