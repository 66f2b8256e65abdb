// cuda_driver.cpp - the CUDA driver and cuBLASLt through dlopen, and the
// device queries of the C API.
//
// libcuda.so.1 and libcublasLt are opened on first use and the entry points
// tsc needs are looked up by name (cuda_api.h), so the runtime has no
// dependency on the CUDA toolkit and reports a missing driver, library or
// GPU as a status naming what is missing and the driver's error name.

#include "cuda_api.h"
#include "internal.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace tsc::rt::cuda {

void *lookupSymbol(void *library, const char *name) {
  return dlsym(library, name);
}

void *openLibrary(const std::string &name, std::string &why) {
  if (void *library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL))
    return library;
  const char *error = dlerror();
  why = error ? error : "unknown dlopen error";
  if (name.find('/') != std::string::npos)
    return nullptr;
  const char *home = std::getenv("CUDA_HOME");
  for (const std::string &root :
       {std::string(home ? home : ""), std::string("/usr/local/cuda")})
    if (!root.empty())
      if (void *library = dlopen((root + "/lib64/" + name).c_str(),
                                 RTLD_NOW | RTLD_LOCAL))
        return library;
  return nullptr;
}

std::string errorName(CUresult result) {
  const char *name = nullptr;
  const Driver &d = driver();
  if (d.cuGetErrorName && d.cuGetErrorName(result, &name) == CUDA_SUCCESS &&
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
    // 64-bit API (cuda.h maps the plain names to them).
    bool found =
        lookup(library, "cuInit", d.cuInit) &&
        lookup(library, "cuDriverGetVersion", d.cuDriverGetVersion) &&
        lookup(library, "cuDeviceGetCount", d.cuDeviceGetCount) &&
        lookup(library, "cuDeviceGet", d.cuDeviceGet) &&
        lookup(library, "cuDeviceGetName", d.cuDeviceGetName) &&
        lookup(library, "cuDeviceGetAttribute", d.cuDeviceGetAttribute) &&
        lookup(library, "cuDeviceTotalMem_v2", d.cuDeviceTotalMem) &&
        lookup(library, "cuGetErrorName", d.cuGetErrorName) &&
        lookup(library, "cuDevicePrimaryCtxRetain",
               d.cuDevicePrimaryCtxRetain) &&
        lookup(library, "cuDevicePrimaryCtxRelease_v2",
               d.cuDevicePrimaryCtxRelease) &&
        lookup(library, "cuCtxPushCurrent_v2", d.cuCtxPushCurrent) &&
        lookup(library, "cuCtxPopCurrent_v2", d.cuCtxPopCurrent) &&
        lookup(library, "cuModuleLoadDataEx", d.cuModuleLoadDataEx) &&
        lookup(library, "cuModuleGetFunction", d.cuModuleGetFunction) &&
        lookup(library, "cuModuleUnload", d.cuModuleUnload) &&
        lookup(library, "cuMemAlloc_v2", d.cuMemAlloc) &&
        lookup(library, "cuMemFree_v2", d.cuMemFree) &&
        lookup(library, "cuMemcpyHtoD_v2", d.cuMemcpyHtoD) &&
        lookup(library, "cuMemcpyHtoDAsync_v2", d.cuMemcpyHtoDAsync) &&
        lookup(library, "cuMemcpyDtoHAsync_v2", d.cuMemcpyDtoHAsync) &&
        lookup(library, "cuMemcpyDtoDAsync_v2", d.cuMemcpyDtoDAsync) &&
        lookup(library, "cuStreamCreate", d.cuStreamCreate) &&
        lookup(library, "cuStreamDestroy_v2", d.cuStreamDestroy) &&
        lookup(library, "cuStreamSynchronize", d.cuStreamSynchronize) &&
        lookup(library, "cuStreamIsCapturing", d.cuStreamIsCapturing) &&
        lookup(library, "cuStreamBeginCapture_v2", d.cuStreamBeginCapture) &&
        lookup(library, "cuStreamEndCapture", d.cuStreamEndCapture) &&
        lookup(library, "cuGraphInstantiateWithFlags",
               d.cuGraphInstantiateWithFlags) &&
        lookup(library, "cuGraphLaunch", d.cuGraphLaunch) &&
        lookup(library, "cuGraphExecDestroy", d.cuGraphExecDestroy) &&
        lookup(library, "cuGraphDestroy", d.cuGraphDestroy) &&
        lookup(library, "cuLaunchKernel", d.cuLaunchKernel);
    if (!found) {
      d.error = "the CUDA driver (libcuda.so.1) lacks an entry point tsc needs: "
                "it is too old (tsc needs CUDA 11.4 or later)";
      return;
    }
    if (CUresult r = d.cuInit(0); r != CUDA_SUCCESS) {
      // Not errorName: it calls driver(), and this is driver()'s call_once
      // (a recursive call_once deadlocks).
      const char *name = nullptr;
      std::string text = d.cuGetErrorName(r, &name) == CUDA_SUCCESS && name
                             ? name
                             : "CUresult " + std::to_string(r);
      d.error = "the CUDA driver did not initialize: cuInit failed with " +
                text + " (no GPU, or the driver and kernel module disagree)";
    }
  });
  return d;
}

std::string blasStatusName(cublasStatus_t status) {
  const BlasLt &b = blasLt();
  if (b.cublasLtGetStatusName)
    if (const char *name = b.cublasLtGetStatusName(status))
      return name;
  return "cublasStatus_t " + std::to_string(status);
}

const BlasLt &blasLt() {
  static BlasLt b;
  static std::once_flag once;
  std::call_once(once, [] {
    std::vector<std::string> names;
    if (const char *path = std::getenv("TSC_CUBLASLT"))
      names.push_back(path);
    else
      names = {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so.11"};
    void *library = nullptr;
    std::string why;
    for (const std::string &name : names)
      if ((library = openLibrary(name, why)))
        break;
    if (!library) {
      b.error = "cuBLASLt could not be loaded (" + why +
                "); set TSC_CUBLASLT to the path of libcublasLt.so";
      return;
    }
    bool found =
        lookup(library, "cublasLtCreate", b.cublasLtCreate) &&
        lookup(library, "cublasLtDestroy", b.cublasLtDestroy) &&
        lookup(library, "cublasLtMatmulDescCreate",
               b.cublasLtMatmulDescCreate) &&
        lookup(library, "cublasLtMatmulDescDestroy",
               b.cublasLtMatmulDescDestroy) &&
        lookup(library, "cublasLtMatmulDescSetAttribute",
               b.cublasLtMatmulDescSetAttribute) &&
        lookup(library, "cublasLtMatrixLayoutCreate",
               b.cublasLtMatrixLayoutCreate) &&
        lookup(library, "cublasLtMatrixLayoutDestroy",
               b.cublasLtMatrixLayoutDestroy) &&
        lookup(library, "cublasLtMatrixLayoutSetAttribute",
               b.cublasLtMatrixLayoutSetAttribute) &&
        lookup(library, "cublasLtMatmulPreferenceCreate",
               b.cublasLtMatmulPreferenceCreate) &&
        lookup(library, "cublasLtMatmulPreferenceDestroy",
               b.cublasLtMatmulPreferenceDestroy) &&
        lookup(library, "cublasLtMatmulPreferenceSetAttribute",
               b.cublasLtMatmulPreferenceSetAttribute) &&
        lookup(library, "cublasLtMatmulAlgoGetHeuristic",
               b.cublasLtMatmulAlgoGetHeuristic) &&
        lookup(library, "cublasLtMatmul", b.cublasLtMatmul);
    // Only for messages: absent before CUDA 11.4.
    lookup(library, "cublasLtGetStatusName", b.cublasLtGetStatusName);
    if (!found)
      b.error = "the cuBLASLt library lacks an entry point tsc needs";
  });
  return b;
}

} // namespace tsc::rt::cuda

namespace {

using namespace tsc::rt::cuda;

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
  if (CUresult r = d.cuDeviceGetCount(&count); r != CUDA_SUCCESS)
    return unavailable("cuDeviceGetCount failed with " + errorName(r));
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
  if (r == CUDA_SUCCESS)
    r = d.cuDeviceGetAttribute(
        &info.major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
  if (r == CUDA_SUCCESS)
    r = d.cuDeviceGetAttribute(
        &info.minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
  if (r == CUDA_SUCCESS)
    r = d.cuDeviceTotalMem(&memory, device);
  if (r == CUDA_SUCCESS)
    r = d.cuDeviceGetName(info.name, sizeof(info.name), device);
  if (r != CUDA_SUCCESS)
    return unavailable("querying CUDA device " + std::to_string(index) +
                       " failed with " + errorName(r));
  info.memory = memory;
  *out_device = info;
  return nullptr;
}

} // extern "C"
