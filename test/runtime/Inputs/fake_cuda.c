/* fake_cuda.c - a stand-in libcuda.so.1 and libcublasLt for the runtime's
 * CUDA backend tests on machines without a GPU.
 *
 * It implements the driver and cuBLASLt entry points the runtime looks up,
 * on host memory, with CUDA's semantics where the backend depends on them:
 * work captured on a stream is recorded, not run, and runs when the graph is
 * launched; modules must hold the kernel they are asked for; an image is SASS
 * (an ELF) or PTX (text). Kernels run by name: the fake knows
 * "scale_by_two" (y[i] = 2 x[i] for i < n; params x, y, n), the kernel of
 * make_artifact.py's CUDA fixture. cublasLtMatmul computes the column-major
 * D = alpha op(A) op(B) + beta C (+ bias per row), as cuBLASLt documents;
 * the GELU epilogues (32, 36 with the bias) by the tanh approximation. An
 * int8 matmul (CUBLAS_COMPUTE_32I, CUDA_R_32I scale, s8 A and B, s32 C and
 * D) is exact in integers, and refused unless it is "TN" with leading
 * dimensions that are multiples of 4, the regular-order IMMA kernels'
 * conditions. An fp8 matmul (CUDA_R_8F_E4M3 A and B, f32 C and D) decodes
 * the codes exactly and sums in double; it is refused unless it is "TN"
 * with A's and B's leading dimensions multiples of 16, and on a device
 * below sm_89, as cuBLASLt refuses it.
 * It stands in for cuSPARSELt too (TSC_CUSPARSELT=this library): the
 * "compressed" matrix is the dense one, after a check that it has the 2:4
 * pattern along K, and cusparseLtMatmul computes the row-major product as
 * cublasLtMatmul's transposed one.
 *
 * Environment: FAKE_CUDA_CC (compute capability, default 90),
 * FAKE_CUDA_DRIVER (cuDriverGetVersion, default 12040), FAKE_CUDA_FAIL
 * (a kernel name whose launches fail with CUDA_ERROR_LAUNCH_FAILED).
 * fake_cuda_counter(NAME) reads what happened, for the tests' checks. */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

typedef int CUresult;
enum {
  OK = 0,
  INVALID_VALUE = 1,
  OUT_OF_MEMORY = 2,
  INVALID_IMAGE = 200,
  NOT_FOUND = 500,
  LAUNCH_FAILED = 719,
  NOT_SUPPORTED = 801,
  CAPTURE_INVALIDATED = 901
};

static int env(const char *name, int fallback) {
  const char *v = getenv(name);
  return v ? atoi(v) : fallback;
}

/* --- Counters ------------------------------------------------------------ */
static long live_allocations, module_loads, sass_loads, ptx_loads, live_modules,
    launches, captures, graph_launches, matmuls, contexts, weight_uploads,
    tf32_descs, sparse_compressions, sparse_matmuls, int8_matmuls, fp8_matmuls;

EXPORT long fake_cuda_counter(const char *name) {
  struct {
    const char *name;
    long *value;
  } all[] = {{"live_allocations", &live_allocations},
             {"module_loads", &module_loads},
             {"sass_loads", &sass_loads},
             {"ptx_loads", &ptx_loads},
             {"live_modules", &live_modules},
             {"launches", &launches},
             {"captures", &captures},
             {"graph_launches", &graph_launches},
             {"matmuls", &matmuls},
             {"contexts", &contexts},
             {"sync_uploads", &weight_uploads},
             {"tf32_descs", &tf32_descs},
             {"sparse_compressions", &sparse_compressions},
             {"sparse_matmuls", &sparse_matmuls},
             {"int8_matmuls", &int8_matmuls},
             {"fp8_matmuls", &fp8_matmuls}};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
    if (strcmp(all[i].name, name) == 0)
      return *all[i].value;
  return -1;
}

/* --- Recorded work: run now, or later by a graph ------------------------- */
typedef struct Work {
  void (*run)(struct Work *);
  void (*cleanup)(struct Work *); /* may be null */
  unsigned grid[3], block[3];
  uint64_t params[16];
  unsigned param_count;
  char kernel[64];
  void *blas[24]; /* a matmul's arguments, see cublasLtMatmul */
  struct Work *next;
} Work;

typedef struct {
  int capturing;
  Work *first, *last;
} Stream;

typedef struct {
  Work *first;
} Graph;

/* The stream behind a handle; NULL for the NULL, legacy (0x1) and
 * per-thread (0x2) default streams, which never capture. */
static Stream *real(void *handle) {
  return (uintptr_t)handle <= 2 ? NULL : (Stream *)handle;
}

static void submit(void *handle, Work *work) {
  Stream *stream = real(handle);
  if (stream && stream->capturing) {
    work->next = NULL;
    if (stream->last)
      stream->last->next = work;
    else
      stream->first = work;
    stream->last = work;
    return;
  }
  work->run(work);
  if (work->cleanup)
    work->cleanup(work);
  free(work);
}

/* --- Driver ---------------------------------------------------------------- */
EXPORT CUresult cuInit(unsigned flags) { return OK; }
EXPORT CUresult cuDriverGetVersion(int *v) {
  *v = env("FAKE_CUDA_DRIVER", 12040);
  return OK;
}
EXPORT CUresult cuDeviceGetCount(int *n) {
  *n = 1;
  return OK;
}
EXPORT CUresult cuDeviceGet(int *d, int ordinal) {
  if (ordinal != 0)
    return INVALID_VALUE;
  *d = 0;
  return OK;
}
EXPORT CUresult cuDeviceGetName(char *name, int len, int d) {
  snprintf(name, (size_t)len, "Fake GPU sm_%d", env("FAKE_CUDA_CC", 90));
  return OK;
}
EXPORT CUresult cuDeviceGetAttribute(int *v, int attribute, int d) {
  int cc = env("FAKE_CUDA_CC", 90);
  if (attribute == 75)
    *v = cc / 10;
  else if (attribute == 76)
    *v = cc % 10;
  else
    return INVALID_VALUE;
  return OK;
}
EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, int d) {
  *bytes = (size_t)1 << 34;
  return OK;
}
EXPORT CUresult cuGetErrorName(CUresult r, const char **name) {
  switch (r) {
  case INVALID_VALUE: *name = "CUDA_ERROR_INVALID_VALUE"; return OK;
  case OUT_OF_MEMORY: *name = "CUDA_ERROR_OUT_OF_MEMORY"; return OK;
  case INVALID_IMAGE: *name = "CUDA_ERROR_INVALID_IMAGE"; return OK;
  case NOT_FOUND: *name = "CUDA_ERROR_NOT_FOUND"; return OK;
  case LAUNCH_FAILED: *name = "CUDA_ERROR_LAUNCH_FAILED"; return OK;
  case NOT_SUPPORTED: *name = "CUDA_ERROR_NOT_SUPPORTED"; return OK;
  case CAPTURE_INVALIDATED:
    *name = "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED";
    return OK;
  }
  return INVALID_VALUE;
}

static int context_token;
EXPORT CUresult cuDevicePrimaryCtxRetain(void **ctx, int d) {
  ++contexts;
  *ctx = &context_token;
  return OK;
}
EXPORT CUresult cuDevicePrimaryCtxRelease_v2(int d) {
  --contexts;
  return OK;
}
static int context_depth;
EXPORT CUresult cuCtxPushCurrent_v2(void *ctx) {
  if (ctx != &context_token)
    return INVALID_VALUE;
  ++context_depth;
  return OK;
}
EXPORT CUresult cuCtxPopCurrent_v2(void **ctx) {
  if (context_depth == 0)
    return INVALID_VALUE;
  --context_depth;
  if (ctx)
    *ctx = &context_token;
  return OK;
}

typedef struct {
  char *image;
  size_t size;
} Module;

EXPORT CUresult cuModuleLoadDataEx(void **module, const void *image,
                                   unsigned n, int *options, void **values) {
  if (context_depth == 0)
    return INVALID_VALUE; /* no current context */
  const char *bytes = (const char *)image;
  int sass = memcmp(bytes, "\x7f" "ELF", 4) == 0;
  int ptx = !sass && strstr(bytes, ".version") != NULL;
  if (!sass && !ptx)
    return INVALID_IMAGE;
  /* An ELF's size is where its section headers end (ELF64: e_shoff at 0x28,
   * e_shentsize and e_shnum at 0x3A); the fixture's stand-in SASS has none
   * and keeps its kernel name in its first 256 bytes. */
  size_t size = strlen(bytes);
  if (sass) {
    uint64_t shoff;
    uint16_t shentsize, shnum;
    memcpy(&shoff, bytes + 0x28, 8);
    memcpy(&shentsize, bytes + 0x3A, 2);
    memcpy(&shnum, bytes + 0x3C, 2);
    size = shoff && shoff < (1u << 26) ? shoff + (uint64_t)shentsize * shnum
                                       : 256;
  }
  Module *m = malloc(sizeof(Module));
  m->size = size;
  m->image = malloc(m->size + 1);
  memcpy(m->image, bytes, m->size);
  m->image[m->size] = 0;
  for (size_t i = 0; i < m->size; ++i)
    if (!m->image[i])
      m->image[i] = ' ';
  ++module_loads;
  ++live_modules;
  sass ? ++sass_loads : ++ptx_loads;
  *module = m;
  return OK;
}
EXPORT CUresult cuModuleGetFunction(void **fn, void *module, const char *name) {
  Module *m = module;
  /* PTX declares `.entry NAME(`; a real cubin has NAME in its string table
   * (NULs were made spaces at load). */
  char entry[160], symbol[160];
  snprintf(entry, sizeof entry, ".entry %s(", name);
  snprintf(symbol, sizeof symbol, " %s ", name);
  if (!strstr(m->image, entry) && !strstr(m->image, symbol))
    return NOT_FOUND;
  *fn = strdup(name); /* leaked with the module, like the driver's */
  return OK;
}
EXPORT CUresult cuModuleUnload(void *module) {
  Module *m = module;
  free(m->image);
  free(m);
  --live_modules;
  return OK;
}

EXPORT CUresult cuMemAlloc_v2(unsigned long long *p, size_t bytes) {
  if (context_depth == 0 || bytes == 0)
    return INVALID_VALUE;
  void *memory = aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!memory)
    return OUT_OF_MEMORY;
  memset(memory, 0xA5, bytes); /* device memory is not zeroed */
  *p = (unsigned long long)(uintptr_t)memory;
  ++live_allocations;
  return OK;
}
EXPORT CUresult cuMemFree_v2(unsigned long long p) {
  free((void *)(uintptr_t)p);
  --live_allocations;
  return OK;
}
EXPORT CUresult cuMemcpyHtoD_v2(unsigned long long to, const void *from,
                                size_t bytes) {
  memcpy((void *)(uintptr_t)to, from, bytes);
  ++weight_uploads;
  return OK;
}

static void run_copy(Work *w) {
  memcpy((void *)(uintptr_t)w->params[0], (const void *)(uintptr_t)w->params[1],
         (size_t)w->params[2]);
}
static CUresult copy(void *to, const void *from, size_t bytes, void *stream) {
  Work *w = calloc(1, sizeof(Work));
  w->run = run_copy;
  w->params[0] = (uint64_t)(uintptr_t)to;
  w->params[1] = (uint64_t)(uintptr_t)from;
  w->params[2] = bytes;
  submit(stream, w);
  return OK;
}
EXPORT CUresult cuMemcpyHtoDAsync_v2(unsigned long long to, const void *from,
                                     size_t bytes, void *stream) {
  return copy((void *)(uintptr_t)to, from, bytes, stream);
}
EXPORT CUresult cuMemcpyDtoHAsync_v2(void *to, unsigned long long from,
                                     size_t bytes, void *stream) {
  return copy(to, (const void *)(uintptr_t)from, bytes, stream);
}
EXPORT CUresult cuMemcpyDtoDAsync_v2(unsigned long long to,
                                     unsigned long long from, size_t bytes,
                                     void *stream) {
  return copy((void *)(uintptr_t)to, (const void *)(uintptr_t)from, bytes,
              stream);
}

EXPORT CUresult cuStreamCreate(void **stream, unsigned flags) {
  *stream = calloc(1, sizeof(Stream));
  ++live_allocations;
  return OK;
}
EXPORT CUresult cuStreamDestroy_v2(void *stream) {
  free(stream);
  --live_allocations;
  return OK;
}
EXPORT CUresult cuStreamSynchronize(void *stream) {
  Stream *s = real(stream);
  return s && s->capturing ? CAPTURE_INVALIDATED : OK;
}
EXPORT CUresult cuStreamIsCapturing(void *stream, int *status) {
  Stream *s = real(stream);
  *status = s && s->capturing ? 1 : 0;
  return OK;
}
EXPORT CUresult cuStreamBeginCapture_v2(void *stream, int mode) {
  Stream *s = real(stream);
  if (!s || s->capturing)
    return INVALID_VALUE;
  s->capturing = 1;
  s->first = s->last = NULL;
  ++captures;
  return OK;
}
EXPORT CUresult cuStreamEndCapture(void *stream, void **graph) {
  Stream *s = real(stream);
  if (!s || !s->capturing)
    return INVALID_VALUE;
  Graph *g = malloc(sizeof(Graph));
  g->first = s->first;
  s->capturing = 0;
  s->first = s->last = NULL;
  *graph = g;
  ++live_allocations;
  return OK;
}
EXPORT CUresult cuGraphInstantiateWithFlags(void **exec, void *graph,
                                            unsigned long long flags) {
  /* The executable graph shares the recorded work; cuGraphDestroy leaves it
   * to the exec, which frees it. */
  Graph *g = graph, *e = malloc(sizeof(Graph));
  e->first = g->first;
  g->first = NULL;
  *exec = e;
  ++live_allocations;
  return OK;
}
static void free_work(Work *w) {
  while (w) {
    Work *next = w->next;
    if (w->cleanup)
      w->cleanup(w);
    free(w);
    w = next;
  }
}
EXPORT CUresult cuGraphDestroy(void *graph) {
  Graph *g = graph;
  free_work(g->first);
  free(g);
  --live_allocations;
  return OK;
}
EXPORT CUresult cuGraphExecDestroy(void *exec) { return cuGraphDestroy(exec); }
EXPORT CUresult cuGraphLaunch(void *exec, void *stream) {
  Stream *s = real(stream);
  if (s && s->capturing)
    return INVALID_VALUE;
  ++graph_launches;
  for (Work *w = ((Graph *)exec)->first; w; w = w->next)
    w->run(w);
  return OK;
}

static void scale_by_two(Work *w) {
  const float *x = (const float *)(uintptr_t)w->params[0];
  float *y = (float *)(uintptr_t)w->params[1];
  int64_t n = (int64_t)w->params[2];
  for (unsigned bx = 0; bx < w->grid[0]; ++bx)
    for (unsigned tx = 0; tx < w->block[0]; ++tx) {
      int64_t i = (int64_t)bx * w->block[0] + tx;
      if (i < n)
        y[i] = 2 * x[i];
    }
}

EXPORT CUresult cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz,
                               unsigned bx, unsigned by, unsigned bz,
                               unsigned shared, void *stream, void **params,
                               void **extra) {
  const char *name = fn;
  const char *fail = getenv("FAKE_CUDA_FAIL");
  if (fail && strcmp(fail, name) == 0)
    return LAUNCH_FAILED;
  if (strcmp(name, "scale_by_two") != 0)
    return NOT_SUPPORTED;
  if (gx == 0 || gy == 0 || gz == 0 || bx * by * bz > 1024)
    return INVALID_VALUE;
  Work *w = calloc(1, sizeof(Work));
  w->run = scale_by_two;
  w->grid[0] = gx, w->grid[1] = gy, w->grid[2] = gz;
  w->block[0] = bx, w->block[1] = by, w->block[2] = bz;
  w->param_count = 3;
  for (unsigned i = 0; i < w->param_count; ++i)
    memcpy(&w->params[i], params[i], 8);
  snprintf(w->kernel, sizeof w->kernel, "%s", name);
  ++launches;
  submit(stream, w);
  return OK;
}

/* --- cuBLASLt ------------------------------------------------------------- */
typedef struct {
  int32_t trans[2];
  uint32_t epilogue;
  const void *bias;
  int integer; /* CUBLAS_COMPUTE_32I with a CUDA_R_32I scale */
} Desc;
typedef struct {
  uint64_t rows, cols;
  int64_t ld, stride;
  int32_t batch;
  int type; /* CUDA_R_32F 0, CUDA_R_16F 2, CUDA_R_16BF 14, 8I 3, 32I 10,
             * 8F_E4M3 28 */
} Layout;

EXPORT int cublasLtCreate(void **h) {
  *h = &context_token;
  return 0;
}
EXPORT int cublasLtDestroy(void *h) { return 0; }
EXPORT int cublasLtMatmulDescCreate(Desc **d, int compute, int scale) {
  /* CUBLAS_COMPUTE_32F or _32F_FAST_TF32 (counted; computed in full fp32
   * here) with a CUDA_R_32F scale, or CUBLAS_COMPUTE_32I with CUDA_R_32I */
  int integer = compute == 72 && scale == 10;
  if (!integer && ((compute != 68 && compute != 77) || scale != 0))
    return 15; /* CUBLAS_STATUS_NOT_SUPPORTED */
  tf32_descs += compute == 77;
  *d = calloc(1, sizeof(Desc));
  (*d)->epilogue = 1;
  (*d)->integer = integer;
  ++live_allocations;
  return 0;
}
EXPORT int cublasLtMatmulDescDestroy(Desc *d) {
  free(d);
  --live_allocations;
  return 0;
}
EXPORT int cublasLtMatmulDescSetAttribute(Desc *d, int attribute,
                                          const void *value, size_t size) {
  switch (attribute) {
  case 3: memcpy(&d->trans[0], value, 4); return 0;
  case 4: memcpy(&d->trans[1], value, 4); return 0;
  case 7: memcpy(&d->epilogue, value, 4); return 0;
  case 8: memcpy(&d->bias, value, sizeof(void *)); return 0;
  }
  return 7; /* CUBLAS_STATUS_INVALID_VALUE */
}
EXPORT int cublasLtMatrixLayoutCreate(Layout **l, int type, uint64_t rows,
                                      uint64_t cols, int64_t ld) {
  if ((type != 0 && type != 2 && type != 14 && type != 3 && type != 10 &&
       type != 28) ||
      ld < (int64_t)rows)
    return 7;
  *l = calloc(1, sizeof(Layout));
  (*l)->rows = rows, (*l)->cols = cols, (*l)->ld = ld, (*l)->batch = 1;
  (*l)->type = type;
  ++live_allocations;
  return 0;
}
EXPORT int cublasLtMatrixLayoutDestroy(Layout *l) {
  free(l);
  --live_allocations;
  return 0;
}
EXPORT int cublasLtMatrixLayoutSetAttribute(Layout *l, int attribute,
                                            const void *value, size_t size) {
  if (attribute == 5)
    memcpy(&l->batch, value, 4);
  else if (attribute == 6)
    memcpy(&l->stride, value, 8);
  else
    return 7;
  return 0;
}
/* Preferences: the operands' minimum alignments (A, B, C, D), 256 bytes
 * unless set, as cuBLASLt's; the chosen algorithm keeps them, and a matmul
 * on operands less aligned than that fails, as the real one may. */
typedef struct {
  uint32_t align[4];
} Preference;

EXPORT int cublasLtMatmulPreferenceCreate(Preference **p) {
  *p = malloc(sizeof(Preference));
  for (int i = 0; i < 4; ++i)
    (*p)->align[i] = 256;
  return 0;
}
EXPORT int cublasLtMatmulPreferenceDestroy(Preference *p) {
  free(p);
  return 0;
}
EXPORT int cublasLtMatmulPreferenceSetAttribute(Preference *p, int a,
                                                const void *v, size_t s) {
  if (a == 1)
    return 0;
  if (a >= 5 && a <= 8 && s == 4) {
    memcpy(&p->align[a - 5], v, 4);
    return 0;
  }
  return 7;
}
EXPORT int cublasLtMatmulAlgoGetHeuristic(void *h, Desc *d, Layout *a,
                                          Layout *b, Layout *c, Layout *dl,
                                          Preference *pref, int requested,
                                          void *results, int *count) {
  uint64_t algo[8] = {0};
  for (int i = 0; i < 4; ++i)
    algo[i] = pref->align[i];
  memset(results, 0, 96);
  memcpy(results, algo, sizeof algo);
  *count = 1;
  return 0;
}
EXPORT const char *cublasLtGetStatusName(int status) {
  return status == 7 ? "CUBLAS_STATUS_INVALID_VALUE" : "CUBLAS_STATUS_OTHER";
}

/* An f8E4M3FN code's value: 4 exponent bits (bias 7), 3 mantissa bits,
 * subnormals below 2^-6, S.1111.111 NaN. */
static float decode_e4m3(uint8_t code) {
  int exponent = (code >> 3) & 15, mantissa = code & 7;
  float magnitude = (exponent == 15 && mantissa == 7) ? NAN
                    : exponent ? ldexpf(1.0f + mantissa / 8.0f, exponent - 7)
                               : ldexpf(mantissa / 8.0f, -6);
  return code & 0x80 ? -magnitude : magnitude;
}

/* Elements of a layout's type as floats: f32, f16 (the compiler's
 * _Float16), bf16 (the top half of an f32, rounded to nearest even) or
 * f8E4M3FN. */
static float load_element(const void *m, int type, int64_t k) {
  if (type == 28)
    return decode_e4m3(((const uint8_t *)m)[k]);
  if (type == 2)
    return (float)((const _Float16 *)m)[k];
  if (type == 14) {
    uint32_t bits = (uint32_t)((const uint16_t *)m)[k] << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
  }
  return ((const float *)m)[k];
}

static void store_element(void *m, int type, int64_t k, float v) {
  if (type == 2) {
    ((_Float16 *)m)[k] = (_Float16)v;
  } else if (type == 14) {
    uint32_t bits;
    memcpy(&bits, &v, 4);
    ((uint16_t *)m)[k] = (uint16_t)((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
  } else {
    ((float *)m)[k] = v;
  }
}

/* Column-major element (r, c) of batch item `i`. */
static float at(const void *m, const Layout *l, int64_t i, uint64_t r,
                uint64_t c) {
  return load_element(m, l->type, i * l->stride + (int64_t)c * l->ld + (int64_t)r);
}

static void run_matmul(Work *w) {
  Desc *d = w->blas[0];
  Layout *la = w->blas[1], *lb = w->blas[2], *lc = w->blas[3], *ld = w->blas[4];
  const void *a = w->blas[5], *b = w->blas[6], *c = w->blas[7];
  void *out = w->blas[8];
  const void *bias = w->blas[9]; /* of D's type, as cuBLASLt's default */
  float alpha, beta;
  memcpy(&alpha, &w->params[0], 4);
  memcpy(&beta, &w->params[1], 4);
  uint64_t m = ld->rows, n = ld->cols;
  uint64_t k = d->trans[0] ? la->rows : la->cols;
  for (int64_t i = 0; i < ld->batch; ++i)
    for (uint64_t col = 0; col < n; ++col)
      for (uint64_t row = 0; row < m; ++row) {
        double sum = 0;
        for (uint64_t p = 0; p < k; ++p) {
          float x = d->trans[0] ? at(a, la, i, p, row) : at(a, la, i, row, p);
          float y = d->trans[1] ? at(b, lb, i, col, p) : at(b, lb, i, p, col);
          sum += (double)x * y;
        }
        float value = alpha * (float)sum;
        if (beta != 0)
          value += beta * at(c, lc, i, row, col);
        if (d->epilogue & 4)
          value += load_element(bias, ld->type, (int64_t)row);
        if (d->epilogue & 32)
          value = 0.5f * value *
                  (1.0f + tanhf(0.7978845608f *
                                (value + 0.044715f * value * value * value)));
        store_element(out, ld->type,
                      i * ld->stride + (int64_t)col * ld->ld + (int64_t)row, value);
      }
}

/* s8 · s8 into s32, exactly (alpha and beta int32). */
static void run_int8_matmul(Work *w) {
  Desc *d = w->blas[0];
  Layout *la = w->blas[1], *lb = w->blas[2], *lc = w->blas[3], *ld = w->blas[4];
  const int8_t *a = w->blas[5], *b = w->blas[6];
  const int32_t *c = w->blas[7];
  int32_t *out = w->blas[8];
  int32_t alpha, beta;
  memcpy(&alpha, &w->params[0], 4);
  memcpy(&beta, &w->params[1], 4);
  uint64_t k = la->rows; /* A transposed: k x m stored */
  for (int64_t i = 0; i < ld->batch; ++i)
    for (uint64_t col = 0; col < ld->cols; ++col)
      for (uint64_t row = 0; row < ld->rows; ++row) {
        int64_t sum = 0;
        for (uint64_t p = 0; p < k; ++p)
          sum +=
              (int64_t)a[i * la->stride + (int64_t)row * la->ld + (int64_t)p] *
              b[i * lb->stride + (int64_t)col * lb->ld + (int64_t)p];
        int64_t value = alpha * sum;
        if (beta != 0)
          value += (int64_t)beta *
                   c[i * lc->stride + (int64_t)col * lc->ld + (int64_t)row];
        out[i * ld->stride + (int64_t)col * ld->ld + (int64_t)row] =
            (int32_t)value;
      }
}

static void free_matmul(Work *w) {
  for (int i = 0; i < 5; ++i)
    free(w->blas[i]);
}

EXPORT int cublasLtMatmul(void *h, Desc *d, const void *alpha, const void *a,
                          Layout *la, const void *b, Layout *lb,
                          const void *beta, const void *c, Layout *lc, void *out,
                          Layout *ld, const void *algo, void *workspace,
                          size_t workspace_size, void *stream) {
  uint64_t k = d->trans[0] ? la->rows : la->cols;
  uint64_t kb = d->trans[1] ? lb->cols : lb->rows;
  uint64_t m = d->trans[0] ? la->cols : la->rows;
  uint64_t n = d->trans[1] ? lb->rows : lb->cols;
  int fp8 = la->type == 28;
  int in_type = d->integer ? 3
                : fp8      ? 28
                           : ld->type,
      out_type = d->integer ? 10 : ld->type;
  if (k != kb || m != ld->rows || n != ld->cols || lc->rows != m ||
      lc->cols != n || la->batch != ld->batch || lb->batch != ld->batch ||
      la->type != in_type || lb->type != in_type || lc->type != out_type ||
      ld->type != out_type || ((d->epilogue & 4) && !d->bias) || !workspace)
    return 7;
  if (d->integer && (!d->trans[0] || d->trans[1] || d->epilogue != 1 ||
                     la->ld % 4 || lb->ld % 4 || lc->ld % 4 || ld->ld % 4))
    return 15; /* CUBLAS_STATUS_NOT_SUPPORTED */
  if (fp8 && (d->integer || ld->type != 0 || !d->trans[0] || d->trans[1] ||
              la->ld % 16 || lb->ld % 16 || env("FAKE_CUDA_CC", 90) < 89))
    return 15; /* CUBLAS_STATUS_NOT_SUPPORTED */
  if (d->epilogue != 1 && d->epilogue != 4 && d->epilogue != 32 &&
      d->epilogue != 36)
    return 15; /* CUBLAS_STATUS_NOT_SUPPORTED */
  const uint64_t *need = algo;
  const void *operands[4] = {a, b, c, out};
  for (int i = 0; i < 4; ++i)
    if ((uintptr_t)operands[i] % need[i])
      return 15; /* CUBLAS_STATUS_NOT_SUPPORTED */
  /* The descriptors may change before a graph replays: capture copies. */
  Work *w = calloc(1, sizeof(Work));
  w->run = d->integer ? run_int8_matmul : run_matmul;
  w->cleanup = free_matmul;
  Desc *dc = malloc(sizeof(Desc));
  *dc = *d;
  Layout *copies[4];
  Layout *from[4] = {la, lb, lc, ld};
  for (int i = 0; i < 4; ++i) {
    copies[i] = malloc(sizeof(Layout));
    *copies[i] = *from[i];
  }
  w->blas[0] = dc;
  for (int i = 0; i < 4; ++i)
    w->blas[1 + i] = copies[i];
  w->blas[5] = (void *)a, w->blas[6] = (void *)b, w->blas[7] = (void *)c;
  w->blas[8] = out, w->blas[9] = (void *)d->bias;
  memcpy(&w->params[0], alpha, 4);
  memcpy(&w->params[1], beta, 4);
  ++matmuls;
  int8_matmuls += d->integer;
  fp8_matmuls += fp8;
  submit(stream, w);
  return 0;
}

/* --- cuSPARSELt ----------------------------------------------------------- */
/* Descriptors live in the caller's opaque structs (1024 bytes in the
 * runtime's declaration). Row-major only, as the runtime describes them. */
typedef struct {
  uint64_t rows, cols;
  int64_t ld;
  int type, structured;
} SpMat;
typedef struct {
  int32_t op[2];
  SpMat a, b, c;
  int gelu;
  const void *bias;
} SpMatmul;
enum { SP_INVALID_VALUE = 3, SP_NOT_SUPPORTED = 10 };

EXPORT int cusparseLtInit(void *h) { return 0; }
EXPORT int cusparseLtDestroy(const void *h) { return 0; }
static int sp_describe(void *d, int64_t rows, int64_t cols, int64_t ld,
                       uint32_t alignment, int type, int order,
                       int structured) {
  if ((type != 0 && type != 2 && type != 14) || order != 2 /* ROW */ ||
      ld < cols || alignment % 16 || rows <= 0 || cols <= 0)
    return SP_INVALID_VALUE;
  SpMat m = {(uint64_t)rows, (uint64_t)cols, ld, type, structured};
  memcpy(d, &m, sizeof m);
  return 0;
}
EXPORT int cusparseLtDenseDescriptorInit(const void *h, void *d, int64_t rows,
                                         int64_t cols, int64_t ld,
                                         uint32_t alignment, int type,
                                         int order) {
  return sp_describe(d, rows, cols, ld, alignment, type, order, 0);
}
EXPORT int cusparseLtStructuredDescriptorInit(const void *h, void *d,
                                              int64_t rows, int64_t cols,
                                              int64_t ld, uint32_t alignment,
                                              int type, int order,
                                              int sparsity) {
  if (sparsity != 0)
    return SP_INVALID_VALUE;
  return sp_describe(d, rows, cols, ld, alignment, type, order, 1);
}
EXPORT int cusparseLtMatDescriptorDestroy(const void *d) { return 0; }
EXPORT int cusparseLtMatmulDescriptorInit(const void *h, void *md, int opA,
                                          int opB, const SpMat *a,
                                          const SpMat *b, const SpMat *c,
                                          const SpMat *d, int compute) {
  SpMatmul m;
  memset(&m, 0, sizeof m);
  m.op[0] = opA, m.op[1] = opB, m.a = *a, m.b = *b, m.c = *c;
  uint64_t k = opA ? a->rows : a->cols, kb = opB ? b->cols : b->rows;
  uint64_t rows = opA ? a->cols : a->rows, cols = opB ? b->rows : b->cols;
  /* CUSPARSE_COMPUTE_32F; the sparse operand B; sizes that agree. */
  if (compute != 2 || a->structured || !b->structured || k != kb ||
      rows != c->rows || cols != c->cols || memcmp(c, d, sizeof *c) ||
      a->type != c->type || b->type != c->type)
    return SP_NOT_SUPPORTED;
  memcpy(md, &m, sizeof m);
  return 0;
}
EXPORT int cusparseLtMatmulDescSetAttribute(const void *h, void *md,
                                            int attribute, const void *value,
                                            size_t size) {
  SpMatmul *m = md;
  if (attribute == 3 /* ACTIVATION_GELU */ && size == sizeof(int))
    memcpy(&m->gelu, value, sizeof(int));
  else if (attribute == 8 /* BIAS_POINTER */ && size == sizeof(void *))
    memcpy(&m->bias, value, sizeof(void *));
  else
    return SP_INVALID_VALUE;
  return 0;
}
EXPORT int cusparseLtMatmulAlgSelectionInit(const void *h, void *alg,
                                            const void *md, int id) {
  memcpy(alg, md, sizeof(SpMatmul));
  return id == 0 ? 0 : SP_INVALID_VALUE;
}
EXPORT int cusparseLtMatmulPlanInit(const void *h, void *plan, const void *md,
                                    const void *alg) {
  memcpy(plan, md, sizeof(SpMatmul));
  return 0;
}
EXPORT int cusparseLtMatmulPlanDestroy(const void *plan) { return 0; }
EXPORT int cusparseLtMatmulGetWorkspace(const void *h, const void *plan,
                                        size_t *size) {
  *size = 4096;
  return 0;
}
static size_t sp_bytes(const SpMat *m) {
  return m->rows * (size_t)m->ld * (m->type == 0 ? 4 : 2);
}
EXPORT int cusparseLtSpMMACompressedSize2(const void *h, const SpMat *d,
                                          size_t *size, size_t *buffer) {
  *size = sp_bytes(d);
  *buffer = 64;
  return 0;
}
EXPORT int cusparseLtSpMMACompress2(const void *h, const SpMat *d, int sparse_a,
                                    int op, const void *dense, void *compressed,
                                    void *buffer, void *stream) {
  /* B: K x N (op N) or N x K (op T); groups of 4 along K. */
  uint64_t k = op ? d->cols : d->rows, n = op ? d->rows : d->cols;
  if (sparse_a || !d->structured || k % 4 || !buffer)
    return SP_INVALID_VALUE;
  for (uint64_t col = 0; col < n; ++col)
    for (uint64_t g = 0; g < k; g += 4) {
      int nonzeros = 0;
      for (uint64_t i = g; i < g + 4; ++i)
        nonzeros += load_element(dense, d->type,
                                 op ? (int64_t)(col * d->ld + i)
                                    : (int64_t)(i * d->ld + col)) != 0.0f;
      if (nonzeros > 2)
        return SP_INVALID_VALUE; /* not 2:4: cuSPARSELt would drop values */
    }
  memcpy(compressed, dense, sp_bytes(d));
  ++sparse_compressions;
  return 0;
}
/* A row-major matrix is the column-major one with rows and columns
 * swapped. */
static Layout *sp_layout(const SpMat *m) {
  Layout *l = calloc(1, sizeof(Layout));
  l->rows = m->cols, l->cols = m->rows, l->ld = m->ld, l->batch = 1;
  l->type = m->type;
  return l;
}
EXPORT int cusparseLtMatmul(const void *h, const SpMatmul *p, const void *alpha,
                            const void *a, const void *b, const void *beta,
                            const void *c, void *d, void *workspace,
                            void **streams, int32_t count) {
  if (!workspace || count != 1)
    return SP_INVALID_VALUE;
  /* Row-major D = op(A) op(B) is column-major D^T = op(B)^T op(A)^T:
   * cuBLASLt's A is B here. */
  Work *w = calloc(1, sizeof(Work));
  w->run = run_matmul;
  w->cleanup = free_matmul;
  Desc *dc = calloc(1, sizeof(Desc));
  dc->trans[0] = p->op[1], dc->trans[1] = p->op[0];
  dc->epilogue = (p->bias ? 4 : 0) | (p->gelu ? 32 : 0);
  if (!dc->epilogue)
    dc->epilogue = 1;
  dc->bias = p->bias;
  w->blas[0] = dc;
  w->blas[1] = sp_layout(&p->b), w->blas[2] = sp_layout(&p->a);
  w->blas[3] = sp_layout(&p->c), w->blas[4] = sp_layout(&p->c);
  w->blas[5] = (void *)b, w->blas[6] = (void *)a, w->blas[7] = (void *)c;
  w->blas[8] = d, w->blas[9] = (void *)p->bias;
  memcpy(&w->params[0], alpha, 4);
  memcpy(&w->params[1], beta, 4);
  ++sparse_matmuls;
  submit(streams[0], w);
  return 0;
}
