/* scale_kernel.c - a host kernel with the tsc kernel ABI, for the runtime
   tests: y[n] = 2 * x[n], buffers {x, y}, symbols {n}. */
#include <stdint.h>

/* With -DTSC_SCALE_BY_THREE: scale_by_three, y[n] = 3 * x[n], a second
   object for the test that two models' objects stay apart in one process. */
#ifdef TSC_SCALE_BY_THREE
#define SCALE_FUNCTION scale_by_three
#define SCALE_FACTOR 3.0f
#else
#define SCALE_FUNCTION scale_by_two
#define SCALE_FACTOR 2.0f
#endif

void SCALE_FUNCTION(void *const *buffers, const int64_t *symbols) {
  const float *x = (const float *)buffers[0];
  float *y = (float *)buffers[1];
  for (int64_t i = 0; i < symbols[0]; ++i)
    y[i] = SCALE_FACTOR * x[i];
}
