/* runtime.h - the tsc runtime's C API: load a .tscm artifact and run it. */
/*
 * Plain C99. Every fallible call returns a tsc_status_t: NULL means success,
 * anything else is an error object that the caller owns and frees with
 * tsc_status_free. Handles are opaque and reference counted: a call that
 * creates one returns an owned reference; _retain adds one, _release drops one.
 * Accessors borrow: what they return lives as long as the handle. Output
 * parameters come last and are named out_*. Options structs start with
 * struct_size, set by their _init function; fields are only ever appended.
 *
 * A typical use:
 *
 *   tsc_model_t* model;  tsc_session_t* session;  tsc_tensor_t* out;
 *   tsc_status_t st = tsc_model_load(NULL, "model.tscm", &model);
 *   if (!st) st = tsc_session_create(model, NULL, &session);
 *   if (!st) st = tsc_session_bind_input(session, "input_ids", ids);
 *   if (!st) st = tsc_session_run(session);
 *   if (!st) st = tsc_session_get_output(session, "logits", &out);
 *   if (st) {
 *     fprintf(stderr, "%s\n", tsc_status_message(st));
 *     tsc_status_free(st);
 *   }
 */
#ifndef TSC_RUNTIME_H
#define TSC_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifndef TSC_API
#if defined(__GNUC__) || defined(__clang__)
#define TSC_API __attribute__((visibility("default")))
#else
#define TSC_API
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this API: incremented whenever a function, an enumerator or
 * an options field is added. Compare tsc_api_version() with TSC_API_VERSION to
 * detect a library older than the header a program was compiled with. */
#define TSC_API_VERSION 8

/// Returns the API version the library implements (TSC_API_VERSION when built).
TSC_API uint32_t tsc_api_version(void);

/*===-- Log ---------------------------------------------------------------===*/

/* API version 8. Where the runtime's messages go: warnings (e.g. an
 * artifact newer than this runtime, whose unknown sections are skipped) and
 * information (each model loaded). Process-wide; thread-safe: the callback
 * is called on the thread that calls the runtime, possibly on several
 * threads at once, and may call the runtime itself. */

typedef enum tsc_log_level_e {
  TSC_LOG_ERROR = 0,
  TSC_LOG_WARNING = 1,
  TSC_LOG_INFO = 2,
  TSC_LOG_DEBUG = 3,
} tsc_log_level_t;

/* One message (no trailing newline), valid during the call. */
typedef void (*tsc_log_fn)(tsc_log_level_t level, const char *message,
                           void *user_data);

/// Sends the messages of `max_level` and more severe ones to `fn` with
/// `user_data`; NULL restores the default: warnings and errors on stderr as
/// "tsc: warning: MESSAGE".
TSC_API void tsc_set_log_callback(tsc_log_fn fn, void *user_data,
                                  tsc_log_level_t max_level);

/*===-- Status ------------------------------------------------------------===*/

/* Thread safety: a status is a plain value owned by the caller that received
 * it; it may be read from any thread, and is freed exactly once. */

typedef enum tsc_status_code_e {
  TSC_STATUS_OK = 0,
  /* A caller error: NULL handle, bad dtype/rank/shape, wrong options. */
  TSC_STATUS_INVALID_ARGUMENT = 1,
  /* A file, an input/output name or a host-code symbol does not exist. */
  TSC_STATUS_NOT_FOUND = 2,
  /* A value outside its range, e.g. a symbolic dim outside [min, max]. */
  TSC_STATUS_OUT_OF_RANGE = 3,
  /* The call is valid but the object is not in a state for it (e.g. getting
   * an output before any run, or running a session that is running). */
  TSC_STATUS_FAILED_PRECONDITION = 4,
  /* The artifact is corrupt, truncated or inconsistent. */
  TSC_STATUS_DATA_LOSS = 5,
  /* The artifact needs something this runtime does not implement (another
   * format major version, another target). */
  TSC_STATUS_UNIMPLEMENTED = 6,
  /* The machine lacks something the artifact needs (e.g. a CPU feature). */
  TSC_STATUS_UNAVAILABLE = 7,
  /* Out of memory or another system resource. */
  TSC_STATUS_RESOURCE_EXHAUSTED = 8,
  /* A bug in the runtime. */
  TSC_STATUS_INTERNAL = 9,
  /* The product asked for a signed artifact and the signature is missing or
   * does not verify with its key (since API version 7). */
  TSC_STATUS_UNAUTHENTICATED = 10,
  /* Not a code: makes the enum 32 bits wide and every int value valid in it. */
  TSC_STATUS_CODE_MAX_ENUM = 0x7FFFFFFF
} tsc_status_code_t;

/* NULL == OK. */
typedef struct tsc_status_s *tsc_status_t;

/// The status's code; TSC_STATUS_OK for NULL.
TSC_API tsc_status_code_t tsc_status_code(tsc_status_t status);
/// The status's message, e.g. "model.tscm: section WGHT checksum mismatch
/// (corrupt artifact)"; "" for NULL. Valid until the status is freed.
TSC_API const char *tsc_status_message(tsc_status_t status);
/// Frees a status; NULL is a no-op.
TSC_API void tsc_status_free(tsc_status_t status);
/// The code's name, e.g. "DATA_LOSS"; "UNKNOWN" for values not listed above.
TSC_API const char *tsc_status_code_name(tsc_status_code_t code);

/*===-- Element types -----------------------------------------------------===*/

/* The numbering is the artifact format's. */
typedef enum tsc_dtype_e {
  TSC_DTYPE_F32 = 1,
  TSC_DTYPE_F16 = 2,
  TSC_DTYPE_BF16 = 3,
  TSC_DTYPE_F64 = 4,
  TSC_DTYPE_I8 = 5,
  TSC_DTYPE_U8 = 6,
  TSC_DTYPE_I16 = 7,
  TSC_DTYPE_I32 = 8,
  TSC_DTYPE_I64 = 9,
  TSC_DTYPE_BOOL = 10, /* one byte, 0 or 1 */
  TSC_DTYPE_U16 = 11,  /* since API version 4 */
  TSC_DTYPE_U32 = 12,
  TSC_DTYPE_U64 = 13,
  /* 8-bit floats, one byte each, as ONNX and ml_dtypes define them (since
   * API version 5): E4M3 without infinity (NaN S.1111.111), E4M3 and E5M2
   * with no -0 (0x80 is the NaN), IEEE-like E5M2, and E8M0: a power of two
   * 2^(e - 127), 0xFF NaN. */
  TSC_DTYPE_F8E4M3FN = 14,
  TSC_DTYPE_F8E4M3FNUZ = 15,
  TSC_DTYPE_F8E5M2 = 16,
  TSC_DTYPE_F8E5M2FNUZ = 17,
  TSC_DTYPE_F8E8M0 = 18,
  /* Sub-byte types, packed as ONNX packs them (since API version 6): two
   * 4-bit or four 2-bit elements a byte, the first in the low bits, a
   * tensor of n elements in ceil(n * bits / 8) bytes. Signed integers are
   * two's complement; F4E2M1 is ONNX's float4e2m1 (1 sign, 2 exponent, 1
   * mantissa bits, no infinity or NaN). */
  TSC_DTYPE_U4 = 19,
  TSC_DTYPE_I4 = 20,
  TSC_DTYPE_F4E2M1 = 21,
  TSC_DTYPE_U2 = 22,
  TSC_DTYPE_I2 = 23,
  TSC_DTYPE_MAX_ENUM =
      0x7FFFFFFF /* not a dtype: see TSC_STATUS_CODE_MAX_ENUM */
} tsc_dtype_t;

/// Bytes per element; 0 for a value that is not a tsc_dtype_t and for the
/// packed sub-byte types, whose elements share bytes (see tsc_dtype_bits).
TSC_API size_t tsc_dtype_size(tsc_dtype_t dtype);
/// Bits per element (4 for TSC_DTYPE_I4, 8 for TSC_DTYPE_BOOL); 0 for a value
/// that is not a tsc_dtype_t. A dense tensor of n elements takes
/// ceil(n * bits / 8) bytes. (API version 6.)
TSC_API size_t tsc_dtype_bits(tsc_dtype_t dtype);
/// The short name ("f32", "bf16", "bool"); NULL for a value that is not a
/// tsc_dtype_t.
TSC_API const char *tsc_dtype_name(tsc_dtype_t dtype);

/*===-- Devices -----------------------------------------------------------===*/

/* Thread safety: the queries may be called from any thread. The CUDA driver
 * (libcuda.so.1) is loaded with dlopen on first use, so one runtime binary
 * works on machines with and without an NVIDIA GPU. (API version 2.) */

typedef struct tsc_cuda_device_s {
  /* Compute capability, e.g. 9 and 0 for an H100/H200 (sm_90). */
  int32_t major, minor;
  /* Global memory in bytes. */
  uint64_t memory;
  /* The device's name, NUL-terminated. */
  char name[256];
} tsc_cuda_device_t;

/* The number of CUDA devices. A status, not a count of 0, when there is no
 * usable driver: TSC_STATUS_UNAVAILABLE naming what is missing (libcuda not
 * found, no device, driver too old), with the driver's own error name. */
TSC_API tsc_status_t tsc_cuda_device_count(size_t *out_count);

/* What device `index` is; TSC_STATUS_OUT_OF_RANGE past the count. */
TSC_API tsc_status_t tsc_cuda_device_get(size_t index,
                                         tsc_cuda_device_t *out_device);

/*===-- Tensor ------------------------------------------------------------===*/

/* A dense, row-major array with a dtype and a shape, and memory that either
 * the runtime owns (tsc_tensor_create_host, outputs) or the caller lends
 * (tsc_tensor_wrap_host, tsc_tensor_wrap_cuda). Thread safety: retain/release and the accessors may
 * be called from any thread; the data is the caller's to synchronize, and must
 * not change while a session that has it bound is running. */
typedef struct tsc_tensor_s tsc_tensor_t;

typedef enum tsc_location_e {
  TSC_LOCATION_HOST = 1, /* CPU memory */
  TSC_LOCATION_CUDA = 2, /* memory of a CUDA device (API version 3) */
  TSC_LOCATION_MAX_ENUM =
      0x7FFFFFFF /* not a location: see TSC_STATUS_CODE_MAX_ENUM */
} tsc_location_t;

/// Creates a tensor owning new host memory, 64-byte aligned, uninitialized.
/// `dims` holds `rank` sizes, each >= 0 (it may be NULL when rank is 0).
TSC_API tsc_status_t tsc_tensor_create_host(tsc_dtype_t dtype, size_t rank,
                                            const int64_t *dims,
                                            tsc_tensor_t **out_tensor);
/// Creates a tensor over caller memory, which must hold at least the tensor's
/// dense size in `byte_size` bytes and outlive the tensor. The runtime never
/// frees it.
TSC_API tsc_status_t tsc_tensor_wrap_host(tsc_dtype_t dtype, size_t rank,
                                          const int64_t *dims, void *data,
                                          size_t byte_size,
                                          tsc_tensor_t **out_tensor);
/// Creates a tensor over caller memory on CUDA device `device` (API version
/// 3): `device_pointer` is a CUdeviceptr, valid in that device's primary
/// context, holding at least the tensor's dense size in `byte_size` bytes.
/// The runtime never frees it and never reads it on the host; sessions of a
/// CUDA model on that device take it as an input or a bound output without a
/// copy through host memory (tsc_tensor_data returns the device pointer).
TSC_API tsc_status_t tsc_tensor_wrap_cuda(tsc_dtype_t dtype, size_t rank,
                                          const int64_t *dims,
                                          void *device_pointer,
                                          size_t byte_size, int32_t device,
                                          tsc_tensor_t **out_tensor);
/// Adds a reference; NULL is a no-op.
TSC_API void tsc_tensor_retain(tsc_tensor_t *tensor);
/// Drops a reference, freeing owned memory with the last one; NULL is a no-op.
TSC_API void tsc_tensor_release(tsc_tensor_t *tensor);
/// The first element's address.
TSC_API void *tsc_tensor_data(const tsc_tensor_t *tensor);
TSC_API tsc_dtype_t tsc_tensor_dtype(const tsc_tensor_t *tensor);
TSC_API size_t tsc_tensor_rank(const tsc_tensor_t *tensor);
/// `rank` sizes, valid as long as the tensor.
TSC_API const int64_t *tsc_tensor_dims(const tsc_tensor_t *tensor);
/// Element count × dtype size.
TSC_API size_t tsc_tensor_byte_size(const tsc_tensor_t *tensor);
TSC_API tsc_location_t tsc_tensor_location(const tsc_tensor_t *tensor);
/// The CUDA device of a TSC_LOCATION_CUDA tensor; -1 for host memory.
TSC_API int32_t tsc_tensor_cuda_device(const tsc_tensor_t *tensor);
/// 1 when the runtime allocated the memory (and frees it), 0 when it is
/// borrowed.
TSC_API int tsc_tensor_owns_data(const tsc_tensor_t *tensor);

/*===-- Model -------------------------------------------------------------===*/

/* A loaded artifact: its signature, plan, weights and host code. Thread
 * safety: immutable once loaded; share it between threads and sessions freely
 * (retain/release are atomic). */
typedef struct tsc_model_s tsc_model_t;

typedef struct tsc_model_options_s {
  size_t struct_size; /* sizeof(tsc_model_options_t), set by _init */
  /* API version 7. An Ed25519 public key (32 raw bytes), or NULL (the
   * default). When set, loading refuses with TSC_STATUS_UNAUTHENTICATED an
   * artifact whose signature is missing or does not verify with this key,
   * before any of its code is loaded. The signature is `signature` below or,
   * when that is NULL, the 64 bytes of the file PATH.sig next to the artifact
   * (`tsc --sign-key`; docs/artifact-format.md "Signatures"). */
  const uint8_t *public_key;
  const void *signature;
  size_t signature_size;
} tsc_model_options_t;

/// Fills `opts` with the defaults.
TSC_API void tsc_model_options_init(tsc_model_options_t *opts);

/// Maps the artifact at `path` read-only and validates it completely (header,
/// checksums, plan), checks that the CPU has the ISA the host code needs, and
/// loads the host code. `opts` may be NULL for the defaults. Errors name the
/// file.
TSC_API tsc_status_t tsc_model_load(const tsc_model_options_t *opts,
                                    const char *path, tsc_model_t **out_model);
/// Like tsc_model_load, from an artifact in memory. The runtime borrows `data`
/// (no copy): it must be 64-byte aligned, stay unchanged and outlive the model.
/// `name` (may be NULL) names the artifact in error messages.
TSC_API tsc_status_t tsc_model_load_from_memory(const tsc_model_options_t *opts,
                                                const void *data, size_t size,
                                                const char *name,
                                                tsc_model_t **out_model);
TSC_API void tsc_model_retain(tsc_model_t *model);
TSC_API void tsc_model_release(tsc_model_t *model);
/// What the artifact runs on: "cpu" or "cuda" (API version 3). A "cuda" model
/// loads (and validates) on any machine; its sessions need a GPU.
TSC_API const char *tsc_model_target(const tsc_model_t *model);
/// The producer string of the artifact's header, e.g. "tsc 0.1.0".
TSC_API const char *tsc_model_producer(const tsc_model_t *model);
/// API version 7. The artifact format version of the file (major 1).
TSC_API void tsc_model_format_version(const tsc_model_t *model,
                                      uint32_t *out_major, uint32_t *out_minor);
/// API version 7. The x86-64 features the artifact's host code was compiled
/// for, e.g. "AVX2+FMA, AVX-512 (F, BW, DQ, VL)"; "baseline" when it needs
/// none beyond x86-64. Loading already refused a CPU that lacks one.
TSC_API const char *tsc_model_isa(const tsc_model_t *model);
/// API version 7. Bytes of the intermediate arena a session allocates (at the
/// symbols' maxima) and bytes of the weights in the artifact.
TSC_API uint64_t tsc_model_arena_bytes(const tsc_model_t *model);
TSC_API uint64_t tsc_model_weight_bytes(const tsc_model_t *model);

/* Symbols: the named dynamic dims (batch, seq, ...), each with a range. */
TSC_API size_t tsc_model_symbol_count(const tsc_model_t *model);
/// NULL when `index` is out of range.
TSC_API const char *tsc_model_symbol_name(const tsc_model_t *model,
                                          size_t index);
TSC_API int64_t tsc_model_symbol_min(const tsc_model_t *model, size_t index);
TSC_API int64_t tsc_model_symbol_max(const tsc_model_t *model, size_t index);

/* Inputs and outputs, in signature order. Out-of-range indices give NULL,
 * 0 or -1. */
TSC_API size_t tsc_model_input_count(const tsc_model_t *model);
TSC_API const char *tsc_model_input_name(const tsc_model_t *model,
                                         size_t index);
TSC_API tsc_dtype_t tsc_model_input_dtype(const tsc_model_t *model,
                                          size_t index);
TSC_API size_t tsc_model_input_rank(const tsc_model_t *model, size_t index);
/// The dim's size when it is static, else -1.
TSC_API int64_t tsc_model_input_dim_size(const tsc_model_t *model, size_t index,
                                         size_t dim);
/// The symbol index when the dim is exactly one symbol (and so binds it), else
/// -1.
TSC_API int64_t tsc_model_input_dim_symbol(const tsc_model_t *model,
                                           size_t index, size_t dim);
/// The input's shape for the given symbol values (`symbol_count` of them, in
/// symbol order; values are not range-checked here). `out_dims` receives rank
/// sizes.
TSC_API tsc_status_t tsc_model_input_shape(const tsc_model_t *model,
                                           size_t index,
                                           const int64_t *symbol_values,
                                           size_t symbol_count,
                                           int64_t *out_dims);
TSC_API size_t tsc_model_output_count(const tsc_model_t *model);
TSC_API const char *tsc_model_output_name(const tsc_model_t *model,
                                          size_t index);
TSC_API tsc_dtype_t tsc_model_output_dtype(const tsc_model_t *model,
                                           size_t index);
TSC_API size_t tsc_model_output_rank(const tsc_model_t *model, size_t index);
TSC_API int64_t tsc_model_output_dim_size(const tsc_model_t *model,
                                          size_t index, size_t dim);
TSC_API int64_t tsc_model_output_dim_symbol(const tsc_model_t *model,
                                            size_t index, size_t dim);
TSC_API tsc_status_t tsc_model_output_shape(const tsc_model_t *model,
                                            size_t index,
                                            const int64_t *symbol_values,
                                            size_t symbol_count,
                                            int64_t *out_dims);

/*===-- Session -----------------------------------------------------------===*/

/* One execution context of a model: its arena (allocated once, sized for the
 * symbols' maxima; in device memory for a CUDA model, with staging buffers
 * for the inputs and outputs), its bound inputs and its outputs. Tensors are
 * host memory; a CUDA session copies inputs in and outputs out on each run. Thread safety: not
 * thread-safe; one call at a time, one run at a time (a concurrent run fails
 * with FAILED_PRECONDITION). Use one session per thread; they can share a
 * model. */
typedef struct tsc_session_s tsc_session_t;

typedef struct tsc_session_options_s {
  size_t struct_size; /* sizeof(tsc_session_options_t), set by _init */
  /* Host threads for the run; 0 (default) = all online cores; more than 4
   * per online core is refused (INVALID_ARGUMENT). Kernels and
   * GEMMs (oneDNN) share one OpenMP pool; each run (and session creation,
   * which prepares the weights) sets the calling thread's OpenMP thread
   * count (omp_set_num_threads) for its duration and gives the previous
   * count back after it (since API version 8), so sessions with different
   * counts run in turn on one thread and leave the caller's count alone. */
  int32_t thread_count;
  /* Nonzero: time every step of every run (tsc_session_step_time). On CUDA
   * this synchronizes after every step, and a device error names its step. */
  int32_t profile;
  /* CUDA models (API version 3). The device the session runs on (default 0).
   * The model's kernels and weights are loaded once per device, by the first
   * session there. */
  int32_t cuda_device;
  /* Nonzero (default): the first run at each set of symbol values is captured
   * in a CUDA graph, and later runs at the same values replay it. */
  int32_t cuda_graphs;
  /* A CUstream the session's work is ordered on; NULL (default): a stream the
   * session creates. tsc_session_run returns once the outputs are in host
   * memory either way, so the stream must not be capturing then
   * (FAILED_PRECONDITION). The legacy and per-thread default streams work,
   * without graphs (they cannot be captured). */
  void *cuda_stream;
} tsc_session_options_t;

TSC_API void tsc_session_options_init(tsc_session_options_t *opts);
/// Creates a session, retaining `model`. `opts` may be NULL for the defaults.
/// For a CUDA model without a usable driver, device, matching device code or
/// cuBLASLt: TSC_STATUS_UNAVAILABLE naming what is missing.
TSC_API tsc_status_t tsc_session_create(tsc_model_t *model,
                                        const tsc_session_options_t *opts,
                                        tsc_session_t **out_session);
TSC_API void tsc_session_retain(tsc_session_t *session);
TSC_API void tsc_session_release(tsc_session_t *session);
/// Binds the input `name` to `tensor` (retained until rebound or the session
/// is released); NULL unbinds. Shapes are checked by tsc_session_run.
TSC_API tsc_status_t tsc_session_bind_input(tsc_session_t *session,
                                            const char *name,
                                            const tsc_tensor_t *tensor);
/// Makes runs write the output `name` into `tensor` (retained), whose dtype
/// and shape must match the resolved ones at each run; NULL goes back to
/// runtime-allocated outputs. Either way the last run's outputs are dropped:
/// tsc_session_get_output fails until the next run.
TSC_API tsc_status_t tsc_session_bind_output(tsc_session_t *session,
                                             const char *name,
                                             tsc_tensor_t *tensor);
/// Runs the plan: resolves the symbols from the inputs' shapes, checks every
/// input, allocates the outputs that are not caller-bound, runs the steps.
TSC_API tsc_status_t tsc_session_run(tsc_session_t *session);
/// Returns a new reference to the output `name` of the last successful run.
/// A later run writes into a fresh tensor when the caller still holds this one.
TSC_API tsc_status_t tsc_session_get_output(tsc_session_t *session,
                                            const char *name,
                                            tsc_tensor_t **out_tensor);

/* Profiling (sessions created with options.profile set). Steps are the
 * plan's, in order: a generated kernel (its function name, e.g.
 * "tsc_kernel_12_add_layer_norm"), "gemm" (a library call) or "copy". */
TSC_API size_t tsc_model_step_count(const tsc_model_t *model);
/// Name of step `index`; NULL when out of range.
TSC_API const char *tsc_model_step_name(const tsc_model_t *model,
                                        size_t index);
/// API version 8. The model layer step `index` belongs to, as the compiler
/// named it from the source nodes ("/layers.3", "model.layers.3"; "" for the
/// embedding, the head and unnamed steps), and the source nodes the step
/// runs, comma-separated, at most 8 then ", ..."
/// ("/layers.3/attn/MatMul, /layers.3/attn/Add"). Both "" for artifacts
/// older than format 1.13; NULL when out of range. Valid while the model is.
TSC_API const char *tsc_model_step_layer(const tsc_model_t *model,
                                         size_t index);
TSC_API const char *tsc_model_step_nodes(const tsc_model_t *model,
                                         size_t index);
/// Milliseconds spent in step `index` over all profiled runs of `session`
/// so far; 0 without profiling or when out of range.
TSC_API double tsc_session_step_time(const tsc_session_t *session,
                                     size_t index);
/// API version 8. Step `index` in the last run of a profiling `session`:
/// milliseconds from the start of tsc_session_run to the step's start, and
/// the step's duration (for timelines such as tsc-run --trace). Returns 1,
/// or 0 with both set to 0 without profiling, before a run or when out of
/// range. A failed run leaves the steps it did not reach at 0.
TSC_API int32_t tsc_session_last_step_time(const tsc_session_t *session,
                                           size_t index, double *out_start_ms,
                                           double *out_duration_ms);
/// Number of runs `session` has completed.
TSC_API uint64_t tsc_session_run_count(const tsc_session_t *session);
/// API version 6. The library a host session's "gemm" steps run in, the ISA
/// it dispatches to on this CPU and the implementations its primitives use so
/// far, e.g. "oneDNN 2.6.3, ISA avx512_core_amx: brg:avx512_core_amx x48";
/// NULL for a session without host GEMM steps. Valid until the next call on
/// the session.
TSC_API const char *tsc_session_gemm_library(const tsc_session_t *session);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TSC_RUNTIME_H */
