// cuda_driver.cpp - the CUDA driver API through dlopen (no link-time libcuda).
//
// The CUDA backend's foundation: libcuda.so.1 is opened on first use and the
// few entry points tsc needs are looked up by name, so the runtime has no
// dependency on the CUDA toolkit and reports a missing driver or GPU as a
// status. Driver errors become statuses naming the call and the driver's
// error name (cuGetErrorName).

#include "internal.h"

#include <dlfcn.h>

#include <cstring>
#include <mutex>
#include <string>

namespace {

using CUresult = int;
using CUdevice = int;
constexpr CUresult kSuccess = 0;
constexpr int kComputeCapabilityMajor = 75; // CU_DEVICE_ATTRIBUTE_*
constexpr int kComputeCapabilityMinor = 76;

/// The driver entry points the runtime uses, resolved once.
struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int *);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDeviceTotalMem)(size_t *, CUdevice);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  std::string error; // why the driver is unusable; empty when it is
};

template <typename Fn> bool lookup(void *library, const char *name, Fn &fn) {
  fn = reinterpret_cast<Fn>(dlsym(library, name));
  return fn != nullptr;
}

std::string errorName(const Driver &driver, CUresult result) {
  const char *name = nullptr;
  if (driver.cuGetErrorName && driver.cuGetErrorName(result, &name) == kSuccess &&
      name)
    return name;
  return "CUresult " + std::to_string(result);
}

const Driver &driver() {
  static Driver d;
  static std::once_flag once;
  std::call_once(once, [] {
    void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      const char *why = dlerror();
      d.error = std::string("no CUDA driver: libcuda.so.1 could not be loaded (") +
                (why ? why : "unknown dlopen error") + ")";
      return;
    }
    // The _v2 entry points are the ones current drivers export for the
    // 64-bit API.
    if (!lookup(library, "cuInit", d.cuInit) ||
        !lookup(library, "cuDriverGetVersion", d.cuDriverGetVersion) ||
        !lookup(library, "cuDeviceGetCount", d.cuDeviceGetCount) ||
        !lookup(library, "cuDeviceGet", d.cuDeviceGet) ||
        !lookup(library, "cuDeviceGetName", d.cuDeviceGetName) ||
        !lookup(library, "cuDeviceGetAttribute", d.cuDeviceGetAttribute) ||
        !lookup(library, "cuDeviceTotalMem_v2", d.cuDeviceTotalMem) ||
        !lookup(library, "cuGetErrorName", d.cuGetErrorName)) {
      d.error = "the CUDA driver (libcuda.so.1) lacks an entry point tsc needs: "
                "it is too old";
      return;
    }
    if (CUresult r = d.cuInit(0); r != kSuccess)
      d.error = "the CUDA driver did not initialize: cuInit failed with " +
                errorName(d, r) + " (no GPU, or the driver and kernel module disagree)";
  });
  return d;
}

tsc_status_t unavailable(const std::string &message) {
  return tsc::rt::makeStatus(TSC_STATUS_UNAVAILABLE, message);
}

} // namespace

extern "C" {

TSC_API tsc_status_t tsc_cuda_device_count(size_t *out_count) {
  if (!out_count)
    return tsc::rt::makeStatus(TSC_STATUS_INVALID_ARGUMENT,
                               "tsc_cuda_device_count: out_count is NULL");
  const Driver &d = driver();
  if (!d.error.empty())
    return unavailable(d.error);
  int count = 0;
  if (CUresult r = d.cuDeviceGetCount(&count); r != kSuccess)
    return unavailable("cuDeviceGetCount failed with " + errorName(d, r));
  if (count == 0)
    return unavailable("the CUDA driver is loaded but reports no GPU");
  *out_count = static_cast<size_t>(count);
  return nullptr;
}

TSC_API tsc_status_t tsc_cuda_device_get(size_t index,
                                         tsc_cuda_device_t *out_device) {
  if (!out_device)
    return tsc::rt::makeStatus(TSC_STATUS_INVALID_ARGUMENT,
                               "tsc_cuda_device_get: out_device is NULL");
  size_t count = 0;
  if (tsc_status_t status = tsc_cuda_device_count(&count))
    return status;
  if (index >= count)
    return tsc::rt::makeStatus(TSC_STATUS_OUT_OF_RANGE,
                               "CUDA device " + std::to_string(index) +
                                   " does not exist (there are " +
                                   std::to_string(count) + ")");
  const Driver &d = driver();
  CUdevice device = 0;
  tsc_cuda_device_t info{};
  size_t memory = 0;
  CUresult r = d.cuDeviceGet(&device, static_cast<int>(index));
  if (r == kSuccess)
    r = d.cuDeviceGetAttribute(&info.major, kComputeCapabilityMajor, device);
  if (r == kSuccess)
    r = d.cuDeviceGetAttribute(&info.minor, kComputeCapabilityMinor, device);
  if (r == kSuccess)
    r = d.cuDeviceTotalMem(&memory, device);
  if (r == kSuccess)
    r = d.cuDeviceGetName(info.name, sizeof(info.name), device);
  if (r != kSuccess)
    return unavailable("querying CUDA device " + std::to_string(index) +
                       " failed with " + errorName(d, r));
  info.memory = memory;
  *out_device = info;
  return nullptr;
}

} // extern "C"
