/* scale_kernel.c - a host kernel with the tsc kernel ABI, for the runtime
   tests: y[n] = 2 * x[n], buffers {x, y}, symbols {n}. */
#include <stdint.h>

void scale_by_two(void *const *buffers, const int64_t *symbols) {
  const float *x = (const float *)buffers[0];
  float *y = (float *)buffers[1];
  for (int64_t i = 0; i < symbols[0]; ++i)
    y[i] = 2.0f * x[i];
}
