//===- tensor.cpp - tensors: owned host memory or borrowed memory ---------===//

#include "internal.h"

#include <cstdlib>
#include <memory>

using namespace tsc::rt;

namespace {

constexpr size_t kAlignment = 64;

// Checks dtype and dims and computes the dense byte size.
tsc_status_t checkShape(tsc_dtype_t dtype, size_t rank, const int64_t *dims,
                        size_t &bytes) {
  if (!dtypeBits(dtype))
    return statusf(TSC_STATUS_INVALID_ARGUMENT, "unknown dtype %d", int(dtype));
  if (rank && !dims)
    return statusf(TSC_STATUS_INVALID_ARGUMENT, "dims is NULL for rank %zu",
                   rank);
  int64_t elements = 1, total = 0;
  for (size_t d = 0; d < rank; ++d) {
    if (dims[d] < 0)
      return statusf(TSC_STATUS_INVALID_ARGUMENT, "dim %zu is %lld", d,
                     static_cast<long long>(dims[d]));
    if (!mulNonNegative(elements, dims[d], elements))
      return makeStatus(TSC_STATUS_OUT_OF_RANGE,
                        "tensor size overflows 64 bits");
  }
  if (!denseBytes(elements, dtype, total))
    return makeStatus(TSC_STATUS_OUT_OF_RANGE, "tensor size overflows 64 bits");
  bytes = size_t(total);
  return nullptr;
}

std::unique_ptr<tsc_tensor_s> newTensor(tsc_dtype_t dtype, size_t rank,
                                        const int64_t *dims, size_t bytes) {
  auto tensor = std::make_unique<tsc_tensor_s>();
  tensor->dtype = dtype;
  tensor->dims.assign(dims, dims + rank);
  tensor->byteSize = bytes;
  return tensor;
}

} // namespace

namespace tsc::rt {

tsc_status_t createHostTensor(tsc_dtype_t dtype, size_t rank,
                              const int64_t *dims, tsc_tensor_t **out) {
  size_t bytes = 0;
  if (tsc_status_t status = checkShape(dtype, rank, dims, bytes))
    return status;
  auto tensor = newTensor(dtype, rank, dims, bytes);
  // aligned_alloc needs a multiple of the alignment; an empty tensor still
  // gets a unique, aligned address.
  size_t rounded = bytes + (kAlignment - 1);
  if (rounded < bytes)
    return makeStatus(TSC_STATUS_RESOURCE_EXHAUSTED, "tensor too large");
  rounded -= rounded % kAlignment;
  tensor->data = std::aligned_alloc(kAlignment, rounded ? rounded : kAlignment);
  if (!tensor->data)
    return statusf(TSC_STATUS_RESOURCE_EXHAUSTED,
                   "cannot allocate %zu bytes for a tensor", bytes);
  tensor->owned = true;
  *out = tensor.release();
  return nullptr;
}

} // namespace tsc::rt

extern "C" {

tsc_status_t tsc_tensor_create_host(tsc_dtype_t dtype, size_t rank,
                                    const int64_t *dims,
                                    tsc_tensor_t **out_tensor) {
  if (!out_tensor)
    return makeStatus(TSC_STATUS_INVALID_ARGUMENT, "out_tensor is NULL");
  *out_tensor = nullptr;
  return guarded(
      [&] { return createHostTensor(dtype, rank, dims, out_tensor); });
}

namespace {

tsc_status_t wrap(tsc_dtype_t dtype, size_t rank, const int64_t *dims,
                  void *data, size_t byte_size, tsc_location_t location,
                  int32_t device, tsc_tensor_t **out_tensor) {
  if (!out_tensor)
    return makeStatus(TSC_STATUS_INVALID_ARGUMENT, "out_tensor is NULL");
  *out_tensor = nullptr;
  return guarded([&]() -> tsc_status_t {
    size_t bytes = 0;
    if (tsc_status_t status = checkShape(dtype, rank, dims, bytes))
      return status;
    if (byte_size < bytes)
      return statusf(TSC_STATUS_INVALID_ARGUMENT,
                     "buffer of %zu bytes is smaller than the tensor's %zu",
                     byte_size, bytes);
    if (!data && bytes)
      return makeStatus(TSC_STATUS_INVALID_ARGUMENT, "data is NULL");
    if (device < 0)
      return statusf(TSC_STATUS_INVALID_ARGUMENT, "CUDA device %d",
                     int(device));
    auto tensor = newTensor(dtype, rank, dims, bytes);
    tensor->data = data;
    tensor->location = location;
    tensor->device = device;
    *out_tensor = tensor.release();
    return nullptr;
  });
}

} // namespace

tsc_status_t tsc_tensor_wrap_host(tsc_dtype_t dtype, size_t rank,
                                  const int64_t *dims, void *data,
                                  size_t byte_size, tsc_tensor_t **out_tensor) {
  return wrap(dtype, rank, dims, data, byte_size, TSC_LOCATION_HOST, 0,
              out_tensor);
}

tsc_status_t tsc_tensor_wrap_cuda(tsc_dtype_t dtype, size_t rank,
                                  const int64_t *dims, void *device_pointer,
                                  size_t byte_size, int32_t device,
                                  tsc_tensor_t **out_tensor) {
  return wrap(dtype, rank, dims, device_pointer, byte_size, TSC_LOCATION_CUDA,
              device, out_tensor);
}

void tsc_tensor_retain(tsc_tensor_t *tensor) {
  if (tensor)
    tensor->refs.fetch_add(1, std::memory_order_relaxed);
}

void tsc_tensor_release(tsc_tensor_t *tensor) {
  if (!tensor || tensor->refs.fetch_sub(1, std::memory_order_acq_rel) != 1)
    return;
  if (tensor->owned)
    std::free(tensor->data);
  delete tensor;
}

void *tsc_tensor_data(const tsc_tensor_t *tensor) {
  return tensor ? tensor->data : nullptr;
}

tsc_dtype_t tsc_tensor_dtype(const tsc_tensor_t *tensor) {
  return tensor ? tensor->dtype : tsc_dtype_t(0);
}

size_t tsc_tensor_rank(const tsc_tensor_t *tensor) {
  return tensor ? tensor->dims.size() : 0;
}

const int64_t *tsc_tensor_dims(const tsc_tensor_t *tensor) {
  return tensor ? tensor->dims.data() : nullptr;
}

size_t tsc_tensor_byte_size(const tsc_tensor_t *tensor) {
  return tensor ? tensor->byteSize : 0;
}

tsc_location_t tsc_tensor_location(const tsc_tensor_t *tensor) {
  return tensor ? tensor->location : tsc_location_t(0);
}

int32_t tsc_tensor_cuda_device(const tsc_tensor_t *tensor) {
  return tensor && tensor->location == TSC_LOCATION_CUDA ? tensor->device : -1;
}

int tsc_tensor_owns_data(const tsc_tensor_t *tensor) {
  return tensor && tensor->owned ? 1 : 0;
}

} // extern "C"
