//===- log.h - the runtime's messages, through tsc_set_log_callback -------===//

#ifndef TSC_RUNTIME_LOG_H
#define TSC_RUNTIME_LOG_H

#include "tsc/runtime.h"

namespace tsc::rt {

/// Sends a printf-style message at `level` to the log callback (default:
/// warnings and errors on stderr).
void logf(tsc_log_level_t level, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

} // namespace tsc::rt

#endif // TSC_RUNTIME_LOG_H
