//===- runtime.hpp - header-only C++17 wrapper of the tsc runtime's C API -===//
//
// RAII handles over runtime.h: copying a handle retains, destroying releases.
// Errors are thrown as tsc::Error carrying the status code and message. Thread
// safety is the C API's (see runtime.h): Model is shareable, Session is not.
//
//   tsc::Model model = tsc::Model::load("model.tscm");
//   tsc::Session session(model);
//   session.bindInput("x", tsc::Tensor::wrapHost(TSC_DTYPE_F32, {2, 4}, data,
//   bytes)); session.run(); tsc::Tensor y = session.output("y");
//
//===----------------------------------------------------------------------===//

#ifndef TSC_RUNTIME_HPP
#define TSC_RUNTIME_HPP

#include "tsc/runtime.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tsc {

/// A failed runtime call.
class Error : public std::runtime_error {
public:
  Error(tsc_status_code_t code, const std::string &message)
      : std::runtime_error(message), code_(code) {}
  tsc_status_code_t code() const noexcept { return code_; }

private:
  tsc_status_code_t code_;
};

namespace detail {

/// Throws the status as an Error (freeing it); does nothing for OK.
inline void check(tsc_status_t status) {
  if (!status)
    return;
  tsc_status_code_t code = tsc_status_code(status);
  std::string message = tsc_status_message(status);
  tsc_status_free(status);
  throw Error(code, message);
}

/// A reference-counted handle: copies retain, destruction releases.
template <typename T, void (*Retain)(T *), void (*Release)(T *)> class Handle {
public:
  Handle() = default;
  /// Adopts an owned reference.
  explicit Handle(T *owned) : ptr_(owned) {}
  Handle(const Handle &other) : ptr_(other.ptr_) { Retain(ptr_); }
  Handle(Handle &&other) noexcept : ptr_(std::exchange(other.ptr_, nullptr)) {}
  Handle &operator=(Handle other) noexcept {
    std::swap(ptr_, other.ptr_);
    return *this;
  }
  ~Handle() { Release(ptr_); }

  T *get() const { return ptr_; }
  explicit operator bool() const { return ptr_ != nullptr; }

private:
  T *ptr_ = nullptr;
};

} // namespace detail

/// A dense host tensor.
class Tensor {
public:
  Tensor() = default;
  /// Adopts an owned reference.
  explicit Tensor(tsc_tensor_t *owned) : h_(owned) {}

  /// New runtime-owned, 64-byte aligned, uninitialized memory.
  static Tensor createHost(tsc_dtype_t dtype,
                           const std::vector<int64_t> &dims) {
    tsc_tensor_t *t = nullptr;
    detail::check(tsc_tensor_create_host(dtype, dims.size(), dims.data(), &t));
    return Tensor(t);
  }
  /// Borrows `data` (at least `byteSize` bytes), which must outlive the tensor.
  static Tensor wrapHost(tsc_dtype_t dtype, const std::vector<int64_t> &dims,
                         void *data, size_t byteSize) {
    tsc_tensor_t *t = nullptr;
    detail::check(tsc_tensor_wrap_host(dtype, dims.size(), dims.data(), data,
                                       byteSize, &t));
    return Tensor(t);
  }
  /// Borrows CUDA memory of `device` (a CUdeviceptr as a pointer).
  static Tensor wrapCuda(tsc_dtype_t dtype, const std::vector<int64_t> &dims,
                         void *devicePointer, size_t byteSize,
                         int32_t device = 0) {
    tsc_tensor_t *t = nullptr;
    detail::check(tsc_tensor_wrap_cuda(dtype, dims.size(), dims.data(),
                                       devicePointer, byteSize, device, &t));
    return Tensor(t);
  }

  tsc_tensor_t *get() const { return h_.get(); }
  explicit operator bool() const { return bool(h_); }
  void *data() const { return tsc_tensor_data(get()); }
  template <typename T> T *data() const { return static_cast<T *>(data()); }
  tsc_dtype_t dtype() const { return tsc_tensor_dtype(get()); }
  tsc_location_t location() const { return tsc_tensor_location(get()); }
  size_t rank() const { return tsc_tensor_rank(get()); }
  std::vector<int64_t> dims() const {
    const int64_t *d = tsc_tensor_dims(get());
    return std::vector<int64_t>(d, d + rank());
  }
  size_t byteSize() const { return tsc_tensor_byte_size(get()); }
  bool ownsData() const { return tsc_tensor_owns_data(get()) != 0; }

private:
  detail::Handle<tsc_tensor_t, tsc_tensor_retain, tsc_tensor_release> h_;
};

/// A loaded artifact; immutable and shareable between threads.
class Model {
public:
  Model() = default;
  explicit Model(tsc_model_t *owned) : h_(owned) {}

  static Model load(const std::string &path,
                    const tsc_model_options_t *options = nullptr) {
    tsc_model_t *m = nullptr;
    detail::check(tsc_model_load(options, path.c_str(), &m));
    return Model(m);
  }
  /// `data` must be 64-byte aligned and outlive the model.
  static Model loadFromMemory(const void *data, size_t size,
                              const std::string &name,
                              const tsc_model_options_t *options = nullptr) {
    tsc_model_t *m = nullptr;
    detail::check(
        tsc_model_load_from_memory(options, data, size, name.c_str(), &m));
    return Model(m);
  }

  tsc_model_t *get() const { return h_.get(); }
  std::string producer() const { return tsc_model_producer(get()); }
  /// "cpu" or "cuda".
  std::string target() const { return tsc_model_target(get()); }

  size_t symbolCount() const { return tsc_model_symbol_count(get()); }
  std::string symbolName(size_t i) const {
    return text(tsc_model_symbol_name(get(), i));
  }
  int64_t symbolMin(size_t i) const { return tsc_model_symbol_min(get(), i); }
  int64_t symbolMax(size_t i) const { return tsc_model_symbol_max(get(), i); }

  size_t inputCount() const { return tsc_model_input_count(get()); }
  std::string inputName(size_t i) const {
    return text(tsc_model_input_name(get(), i));
  }
  tsc_dtype_t inputDtype(size_t i) const {
    return tsc_model_input_dtype(get(), i);
  }
  size_t inputRank(size_t i) const { return tsc_model_input_rank(get(), i); }
  int64_t inputDimSize(size_t i, size_t d) const {
    return tsc_model_input_dim_size(get(), i, d);
  }
  int64_t inputDimSymbol(size_t i, size_t d) const {
    return tsc_model_input_dim_symbol(get(), i, d);
  }
  /// The input's shape for one value per symbol.
  std::vector<int64_t> inputShape(size_t i,
                                  const std::vector<int64_t> &symbols) const {
    std::vector<int64_t> dims(inputRank(i));
    detail::check(tsc_model_input_shape(get(), i, symbols.data(),
                                        symbols.size(), dims.data()));
    return dims;
  }

  size_t outputCount() const { return tsc_model_output_count(get()); }
  std::string outputName(size_t i) const {
    return text(tsc_model_output_name(get(), i));
  }
  tsc_dtype_t outputDtype(size_t i) const {
    return tsc_model_output_dtype(get(), i);
  }
  size_t outputRank(size_t i) const { return tsc_model_output_rank(get(), i); }
  int64_t outputDimSize(size_t i, size_t d) const {
    return tsc_model_output_dim_size(get(), i, d);
  }
  int64_t outputDimSymbol(size_t i, size_t d) const {
    return tsc_model_output_dim_symbol(get(), i, d);
  }
  std::vector<int64_t> outputShape(size_t i,
                                   const std::vector<int64_t> &symbols) const {
    std::vector<int64_t> dims(outputRank(i));
    detail::check(tsc_model_output_shape(get(), i, symbols.data(),
                                         symbols.size(), dims.data()));
    return dims;
  }

private:
  static std::string text(const char *s) { return s ? s : ""; }
  detail::Handle<tsc_model_t, tsc_model_retain, tsc_model_release> h_;
};

/// A session of a model; one run at a time, not thread-safe.
class Session {
public:
  Session() = default;
  /// `threadCount` 0 = all cores; `profile` times every step (see
  /// tsc_session_options_t).
  explicit Session(const Model &model, int32_t threadCount = 0,
                   bool profile = false) {
    tsc_session_options_t options;
    tsc_session_options_init(&options);
    options.thread_count = threadCount;
    options.profile = profile;
    tsc_session_t *s = nullptr;
    detail::check(tsc_session_create(model.get(), &options, &s));
    h_ = Handle(s);
  }
  /// With all options (CUDA device, graphs, stream); see
  /// tsc_session_options_t.
  Session(const Model &model, const tsc_session_options_t &options) {
    tsc_session_t *s = nullptr;
    detail::check(tsc_session_create(model.get(), &options, &s));
    h_ = Handle(s);
  }

  tsc_session_t *get() const { return h_.get(); }
  void bindInput(const std::string &name, const Tensor &tensor) {
    detail::check(tsc_session_bind_input(get(), name.c_str(), tensor.get()));
  }
  void bindOutput(const std::string &name, const Tensor &tensor) {
    detail::check(tsc_session_bind_output(get(), name.c_str(), tensor.get()));
  }
  void run() { detail::check(tsc_session_run(get())); }
  /// Milliseconds spent in plan step `index` over the profiled runs.
  double stepTime(size_t index) const {
    return tsc_session_step_time(get(), index);
  }
  uint64_t runCount() const { return tsc_session_run_count(get()); }
  Tensor output(const std::string &name) const {
    tsc_tensor_t *t = nullptr;
    detail::check(tsc_session_get_output(get(), name.c_str(), &t));
    return Tensor(t);
  }

private:
  using Handle =
      detail::Handle<tsc_session_t, tsc_session_retain, tsc_session_release>;
  Handle h_;
};

} // namespace tsc

#endif // TSC_RUNTIME_HPP
