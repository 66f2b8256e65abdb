//===- host_code.cpp - loading the HOST shared object from memory ---------===//

#include "host_code.h"

#include "internal.h"

#include <cerrno>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <elf.h>
#include <sys/mman.h>
#include <unistd.h>

namespace tsc::rt {
namespace {

#if defined(__x86_64__)
constexpr uint16_t kHostMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr uint16_t kHostMachine = EM_AARCH64;
#else
constexpr uint16_t kHostMachine = EM_NONE;
#endif

// Refuses what dlopen would reject with a less helpful message.
tsc_status_t checkElf(const SectionView &host, const char *file) {
  const uint8_t *p = host.data;
  if (host.size < sizeof(Elf64_Ehdr) || std::memcmp(p, ELFMAG, SELFMAG) != 0 ||
      p[EI_CLASS] != ELFCLASS64 || p[EI_DATA] != ELFDATA2LSB)
    return statusf(
        TSC_STATUS_DATA_LOSS,
        "%s: HOST is not a 64-bit little-endian ELF object (corrupt artifact)",
        file);
  if (loadU16(p + offsetof(Elf64_Ehdr, e_type)) != ET_DYN)
    return statusf(TSC_STATUS_DATA_LOSS,
                   "%s: HOST is not a shared object (corrupt artifact)", file);
  uint16_t machine = loadU16(p + offsetof(Elf64_Ehdr, e_machine));
  if (machine != kHostMachine)
    return statusf(
        TSC_STATUS_UNAVAILABLE,
        "%s: HOST code is for ELF machine %u, this CPU runs machine %u", file,
        machine, kHostMachine);
  return nullptr;
}

} // namespace

HostCode::~HostCode() {
  if (handle_)
    dlclose(handle_);
  if (fd_ >= 0)
    close(fd_);
}

tsc_status_t HostCode::load(const SectionView &host, const std::string &file) {
  const char *name = file.c_str();
  if (tsc_status_t status = checkElf(host, name))
    return status;
  int fd = memfd_create("tsc-host", MFD_CLOEXEC);
  if (fd < 0)
    return statusf(TSC_STATUS_UNAVAILABLE, "%s: memfd_create failed: %s", name,
                   std::strerror(errno));
  for (size_t done = 0; done < host.size;) {
    ssize_t n = write(fd, host.data + done, host.size - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      int error = n < 0 ? errno : ENOSPC;
      close(fd);
      return statusf(TSC_STATUS_RESOURCE_EXHAUSTED,
                     "%s: cannot write HOST to memory: %s", name,
                     std::strerror(error));
    }
    done += size_t(n);
  }
  // The dynamic loader finds an object it has loaded by its path, so two
  // models' objects must never be loaded from one path: the descriptor stays
  // open while the object is loaded (no other model's memory file gets its
  // number), and a number whose path names an object still loaded (one that
  // dlclose kept) is skipped.
  std::string path;
  for (;;) {
    path = "/proc/self/fd/" + std::to_string(fd);
    void *loaded = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
    if (!loaded)
      break;
    dlclose(loaded);
    int next = fcntl(fd, F_DUPFD_CLOEXEC, fd + 1);
    close(fd);
    if (next < 0)
      return statusf(TSC_STATUS_RESOURCE_EXHAUSTED,
                     "%s: no file descriptor for the HOST code: %s", name,
                     std::strerror(errno));
    fd = next;
  }
  handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  fd_ = fd;
  if (!handle_) {
    const char *error = dlerror();
    return statusf(TSC_STATUS_UNAVAILABLE, "%s: cannot load the HOST code: %s",
                   name, error ? error : "unknown dlopen error");
  }
  return nullptr;
}

tsc_status_t HostCode::resolve(const std::string &function, size_t step,
                               const std::string &file, KernelFn &out) const {
  dlerror();
  void *symbol = dlsym(handle_, function.c_str());
  if (!symbol)
    return statusf(TSC_STATUS_NOT_FOUND,
                   "%s: HOST does not export '%s', the function of step %zu "
                   "(corrupt artifact)",
                   file.c_str(), function.c_str(), step);
  out = reinterpret_cast<KernelFn>(symbol);
  return nullptr;
}

} // namespace tsc::rt
