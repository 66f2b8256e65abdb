/* c_log_callback.c - tsc_set_log_callback from C99 (compiled with
   -std=c99 -pedantic-errors); tsc-runtime-tests calls tsc_c_log_callback. */
#include "tsc/runtime.h"

#include <stdio.h>
#include <string.h>

int tsc_c_log_callback(const char *newer, const char *copy, char *why,
                       size_t why_size);

typedef struct {
  int count;
  tsc_log_level_t level;
  char last[512];
} messages_t;

static void collect(tsc_log_level_t level, const char *message,
                    void *user_data) {
  messages_t *m = (messages_t *)user_data;
  m->count++;
  m->level = level;
  snprintf(m->last, sizeof m->last, "%s", message);
}

/* Loads `newer` (format 1.99 with an unknown section) and `copy` (a valid
   artifact) with the callback at WARNING, then at INFO. Returns 0 when the
   messages are as documented; otherwise writes what failed to `why`. */
int tsc_c_log_callback(const char *newer, const char *copy, char *why,
                       size_t why_size) {
  messages_t m;
  tsc_model_t *model = NULL;
  tsc_status_t status;
  int failed = 0;
  memset(&m, 0, sizeof m);
  tsc_set_log_callback(collect, &m, TSC_LOG_WARNING);
  status = tsc_model_load(NULL, newer, &model);
  tsc_model_release(model);
  model = NULL;
  if (status || m.count != 1 || m.level != TSC_LOG_WARNING ||
      !strstr(m.last, "skipped its section XTRA") || !strstr(m.last, newer)) {
    snprintf(why, why_size, "newer artifact at WARNING: %d messages, last '%s'",
             m.count, m.last);
    failed = 1;
  }
  tsc_status_free(status);
  /* A valid artifact says nothing at WARNING, and that it loaded at INFO. */
  memset(&m, 0, sizeof m);
  status = tsc_model_load(NULL, copy, &model);
  tsc_model_release(model);
  model = NULL;
  if (!failed && (status || m.count != 0)) {
    snprintf(why, why_size, "valid artifact at WARNING: %d messages '%s'",
             m.count, m.last);
    failed = 1;
  }
  tsc_status_free(status);
  tsc_set_log_callback(collect, &m, TSC_LOG_INFO);
  status = tsc_model_load(NULL, copy, &model);
  tsc_model_release(model);
  if (!failed && (status || m.count != 1 || m.level != TSC_LOG_INFO ||
                  !strstr(m.last, "loaded: format 1."))) {
    snprintf(why, why_size, "valid artifact at INFO: %d messages, last '%s'",
             m.count, m.last);
    failed = 1;
  }
  tsc_status_free(status);
  tsc_set_log_callback(NULL, NULL, TSC_LOG_WARNING);
  return failed;
}
