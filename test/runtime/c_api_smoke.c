/* c_api_smoke.c - compiled as C99 (-std=c99 -pedantic-errors) to prove that
   runtime.h is valid C; tsc-runtime-tests calls tsc_c_api_smoke. */
#include "tsc/runtime.h"

#include <stdio.h>
#include <string.h>

/* Returns 0 when every call behaves; otherwise writes what failed to `why`. */
int tsc_c_api_smoke(char *why, size_t why_size);

int tsc_c_api_smoke(char *why, size_t why_size) {
  tsc_model_options_t model_options;
  tsc_session_options_t session_options;
  tsc_model_t *model = NULL;
  tsc_tensor_t *tensor = NULL;
  tsc_status_t status;
  int64_t dims[2] = {2, 3};
  float data[6] = {0};

  if (tsc_api_version() != TSC_API_VERSION) {
    snprintf(why, why_size, "tsc_api_version() is %u",
             (unsigned)tsc_api_version());
    return 1;
  }
  tsc_model_options_init(&model_options);
  tsc_session_options_init(&session_options);
  if (model_options.struct_size != sizeof(model_options) ||
      session_options.struct_size != sizeof(session_options) ||
      session_options.thread_count != 0) {
    snprintf(why, why_size, "options defaults");
    return 1;
  }

  status = tsc_model_load(&model_options, "/nonexistent/c-smoke.tscm", &model);
  if (tsc_status_code(status) != TSC_STATUS_NOT_FOUND || model != NULL ||
      strstr(tsc_status_message(status), "c-smoke.tscm") == NULL) {
    snprintf(why, why_size, "load of a missing file: %s",
             tsc_status_message(status));
    tsc_status_free(status);
    return 1;
  }
  tsc_status_free(status);

  status =
      tsc_tensor_wrap_host(TSC_DTYPE_F32, 2, dims, data, sizeof(data), &tensor);
  if (status != NULL || tsc_tensor_data(tensor) != (void *)data ||
      tsc_tensor_byte_size(tensor) != sizeof(data) ||
      tsc_tensor_owns_data(tensor) != 0 ||
      tsc_tensor_location(tensor) != TSC_LOCATION_HOST) {
    snprintf(why, why_size, "wrap_host: %s", tsc_status_message(status));
    tsc_status_free(status);
    tsc_tensor_release(tensor);
    return 1;
  }
  tsc_tensor_release(tensor);
  return 0;
}
