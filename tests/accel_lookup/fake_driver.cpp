// A stand-in for libcuda.so.1 (its soname), for testing accel's lookup of the driver's entry
// points without a GPU: cuGetProcAddress answers as the driver does for a few names (the copy
// functions by version and stream form, cuMemAlloc as a function accel leaves alone), and each
// copy function only counts its calls. Linked with -Bsymbolic, as the driver is, so the
// addresses it hands out are its own functions, never what LD_PRELOAD put in front of them.
#include <cstddef>
#include <cstdint>
#include <cstring>

extern "C" {
using Result = int;  // CUresult: 0 success, 500 not found
constexpr Result kSuccess = 0;
constexpr Result kNotFound = 500;

__attribute__((visibility("default"))) int fake_calls[16] = {};
__attribute__((visibility("default"))) std::size_t fake_last_bytes = 0;

#define FAKE_COPY(index, name, params, bytes)                 \
  __attribute__((visibility("default"))) Result name params { \
    ++fake_calls[index];                                      \
    fake_last_bytes = bytes;                                  \
    return kSuccess;                                          \
  }

FAKE_COPY(0, cuMemcpyHtoD_v2, (std::uint64_t, const void*, std::size_t n), n)
FAKE_COPY(1, cuMemcpyHtoD_v2_ptds, (std::uint64_t, const void*, std::size_t n), n)
FAKE_COPY(2, cuMemcpyHtoD, (unsigned int, const void*, std::size_t n), n)
FAKE_COPY(3, cuMemcpyDtoH_v2, (void*, std::uint64_t, std::size_t n), n)
FAKE_COPY(4, cuMemcpyAsync, (std::uint64_t, std::uint64_t, std::size_t n, void*), n)
FAKE_COPY(5, cuMemcpyAsync_ptsz, (std::uint64_t, std::uint64_t, std::size_t n, void*), n)
FAKE_COPY(6, cuMemAlloc_v2, (std::uint64_t*, std::size_t n), n)
FAKE_COPY(7, cuMemcpy2D_v2, (const void*), 0)
#undef FAKE_COPY

__attribute__((visibility("default"))) Result cuGetProcAddress_v2(const char* symbol, void** pfn,
                                                                  int version, std::uint64_t flags,
                                                                  int* status) {
  const bool per_thread = (flags & 2) != 0;
  void* fn = nullptr;
  if (std::strcmp(symbol, "cuMemcpyHtoD") == 0) {
    fn = version < 3020 ? reinterpret_cast<void*>(&cuMemcpyHtoD)
         : per_thread   ? reinterpret_cast<void*>(&cuMemcpyHtoD_v2_ptds)
                        : reinterpret_cast<void*>(&cuMemcpyHtoD_v2);
  } else if (std::strcmp(symbol, "cuMemcpyDtoH") == 0) {
    fn = reinterpret_cast<void*>(&cuMemcpyDtoH_v2);
  } else if (std::strcmp(symbol, "cuMemcpyAsync") == 0) {
    fn = per_thread ? reinterpret_cast<void*>(&cuMemcpyAsync_ptsz)
                    : reinterpret_cast<void*>(&cuMemcpyAsync);
  } else if (std::strcmp(symbol, "cuMemAlloc") == 0) {
    fn = reinterpret_cast<void*>(&cuMemAlloc_v2);
  } else if (std::strcmp(symbol, "cuGetProcAddress") == 0) {
    fn = reinterpret_cast<void*>(&cuGetProcAddress_v2);
  }
  if (status != nullptr) *status = fn != nullptr ? 0 : 1;
  if (pfn != nullptr) *pfn = fn;
  return fn != nullptr ? kSuccess : kNotFound;
}
}
