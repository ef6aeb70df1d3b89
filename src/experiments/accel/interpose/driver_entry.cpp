// accel's second way in: the driver's entry points. A program that links the CUDA runtime
// statically (nvcc's default), CuPy, and code of the driver API reach the driver's copy
// functions without the shared runtime's symbols: they open libcuda and look its functions up,
// with dlsym, or with cuGetProcAddress found through dlsym. accel's library defines the
// program's dlsym, cuGetProcAddress and the driver's copy functions, and where a lookup would
// answer with the driver's copy function it answers with accel's instead, which routes the copy
// (router.hpp) or calls the driver's function exactly as the program would have:
//
//   cuMemcpyHtoD_v2, cuMemcpyDtoH_v2, cuMemcpy, cuMemcpyHtoDAsync_v2, cuMemcpyDtoHAsync_v2,
//   cuMemcpyAsync, cuMemcpy2D_v2, cuMemcpy2DAsync_v2, and the per-thread default stream form of
//   each (_ptds, _ptsz).
//
// Every other name is answered as the C library or the driver answers it. The first versions of
// cuMemcpyHtoD / cuMemcpyDtoH (32-bit device pointers, before CUDA 3.2), cuMemcpy2DUnaligned and
// the 3D copies are handed out unchanged; a 2D copy is routed when its rows touch and neither end
// is an array, as the runtime's cudaMemcpy2D is.
//
// dlsym must stay the C library's for every other name, and RTLD_NEXT depends on who calls it:
// accel's dlsym asks its own question first and, when it has no answer, jumps to the C library's
// dlsym with the caller's return address still on the stack, so the C library sees the caller.
//
// A driver copy is routed only in its device's primary context (the runtime's, and the one the
// engine's staging belongs to): in a context the program made itself, or with none current, it
// passes on, counted as other-context.
//
// This file is compiled without runtime_names.hpp: the names it defines are the program's.
#include <dlfcn.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>

#include "experiments/accel/interpose/driver_api.hpp"
#include "experiments/accel/interpose/entry.hpp"
#include "experiments/accel/interpose/symbols.hpp"

#define PINBENCH_EXPORT extern "C" __attribute__((visibility("default")))

extern "C" {
// The question accel's dlsym asks first (null: no answer of its own); the C library's dlsym is
// pinbench_accel_real_dlsym (symbols.cpp).
__attribute__((visibility("hidden"))) void* pinbench_accel_dlsym_answer(void* handle,
                                                                        const char* name);
}

namespace pinbench::experiments::accel {
namespace {

// The copy functions accel hands out: a family, in its two stream forms.
enum Family {
  kHtoD,
  kDtoH,
  kMemcpy,
  kHtoDAsync,
  kDtoHAsync,
  kMemcpyAsync,
  kCopy2D,
  kCopy2DAsync,
  kFamilies
};

struct Slot {
  const char* name;  // libcuda's exported name
  void* ours;        // accel's function of that name
  std::atomic<void*> real{nullptr};
};

struct FamilyNames {
  const char* base;    // the name cuGetProcAddress is asked for
  int since_version;   // the first CUDA version whose form this is (older ones: not ours)
  const char* legacy;  // exported names, legacy and per-thread default stream
  const char* per_thread;
};

constexpr FamilyNames kNames[kFamilies] = {
    {"cuMemcpyHtoD", 3020, "cuMemcpyHtoD_v2", "cuMemcpyHtoD_v2_ptds"},
    {"cuMemcpyDtoH", 3020, "cuMemcpyDtoH_v2", "cuMemcpyDtoH_v2_ptds"},
    {"cuMemcpy", 4000, "cuMemcpy", "cuMemcpy_ptds"},
    {"cuMemcpyHtoDAsync", 3020, "cuMemcpyHtoDAsync_v2", "cuMemcpyHtoDAsync_v2_ptsz"},
    {"cuMemcpyDtoHAsync", 3020, "cuMemcpyDtoHAsync_v2", "cuMemcpyDtoHAsync_v2_ptsz"},
    {"cuMemcpyAsync", 4000, "cuMemcpyAsync", "cuMemcpyAsync_ptsz"},
    {"cuMemcpy2D", 3020, "cuMemcpy2D_v2", "cuMemcpy2D_v2_ptds"},
    {"cuMemcpy2DAsync", 3020, "cuMemcpy2DAsync_v2", "cuMemcpy2DAsync_v2_ptsz"},
};

Slot g_slots[kFamilies][2];
std::atomic<void*> g_real_get_proc{nullptr};     // cuGetProcAddress_v2
std::atomic<void*> g_real_get_proc_v1{nullptr};  // cuGetProcAddress (before CUDA 12.0)

template <typename Fn>
Fn real_of(Family f, int per_thread) {
  Slot& s = g_slots[f][per_thread];
  void* r = s.real.load(std::memory_order_acquire);
  if (r == nullptr) {
    r = driver_symbol(s.name);
    s.real.store(r, std::memory_order_release);
  }
  return reinterpret_cast<Fn>(r);
}

// Whether a driver copy of these bytes on this stream is in its device's primary context.
bool in_primary_context(cudaStream_t stream) {
  const DriverApi& a = driver().api;
  if (a.ctx_get_current == nullptr || a.ctx_get_device == nullptr) return true;
  CUcontext current = nullptr;
  // No context current: the driver answers the call itself (with its error), as without accel.
  if (a.ctx_get_current(&current) != CUDA_SUCCESS || current == nullptr) return false;
  CUdevice device = 0;
  if (a.ctx_get_device(&device) != CUDA_SUCCESS) return true;
  if (active_primary_context(device) != current) return false;
  const auto s = reinterpret_cast<std::uintptr_t>(stream);
  if (s <= 2 || a.stream_get_ctx == nullptr) return true;  // 0, legacy, per-thread: current's
  CUcontext of_stream = nullptr;
  return a.stream_get_ctx(reinterpret_cast<CUstream>(stream), &of_stream) != CUDA_SUCCESS ||
         of_stream == current;
}

template <typename Pass>
CUresult driver_copy(CopyCall call, Pass&& pass) {
  if (inside_accel()) return pass();
  call.driver = true;
  const auto as_runtime = [&] { return static_cast<cudaError_t>(pass()); };
  const std::size_t least =
      std::min(router().threshold(Way::kToDevice), router().threshold(Way::kToHost));
  // The runtime's error codes are the driver's, number for number.
  const std::size_t bytes =
      call.height != 0 && call.width > SIZE_MAX / call.height ? SIZE_MAX : call.width * call.height;
  if (bytes >= least && !in_primary_context(call.stream)) {
    return static_cast<CUresult>(
        enter_passing(call, kViaDriver, Outcome::kOtherContext, as_runtime));
  }
  return static_cast<CUresult>(enter(call, kViaDriver, as_runtime));
}

cudaStream_t stream_of(int per_thread, CUstream s) {
  if (per_thread != 0 && s == nullptr) return cudaStreamPerThread;
  return reinterpret_cast<cudaStream_t>(s);
}

using SyncToDevice = CUresult (*)(CUdeviceptr, const void*, size_t);
using SyncToHost = CUresult (*)(void*, CUdeviceptr, size_t);
using SyncAny = CUresult (*)(CUdeviceptr, CUdeviceptr, size_t);
using AsyncToDevice = CUresult (*)(CUdeviceptr, const void*, size_t, CUstream);
using AsyncToHost = CUresult (*)(void*, CUdeviceptr, size_t, CUstream);
using AsyncAny = CUresult (*)(CUdeviceptr, CUdeviceptr, size_t, CUstream);

void* as_pointer(CUdeviceptr p) {
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(p));
}

template <int PT>
CUresult htod(CUdeviceptr dst, const void* src, size_t n) {
  return driver_copy(CopyCall{as_pointer(dst), src, n, 1, 0, 0, cudaMemcpyHostToDevice,
                              stream_of(PT, nullptr), true},
                     [&] { return real_of<SyncToDevice>(kHtoD, PT)(dst, src, n); });
}
template <int PT>
CUresult dtoh(void* dst, CUdeviceptr src, size_t n) {
  return driver_copy(CopyCall{dst, as_pointer(src), n, 1, 0, 0, cudaMemcpyDeviceToHost,
                              stream_of(PT, nullptr), true},
                     [&] { return real_of<SyncToHost>(kDtoH, PT)(dst, src, n); });
}
template <int PT>
CUresult any(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  return driver_copy(CopyCall{as_pointer(dst), as_pointer(src), n, 1, 0, 0, cudaMemcpyDefault,
                              stream_of(PT, nullptr), true},
                     [&] { return real_of<SyncAny>(kMemcpy, PT)(dst, src, n); });
}
template <int PT>
CUresult htod_async(CUdeviceptr dst, const void* src, size_t n, CUstream s) {
  return driver_copy(
      CopyCall{as_pointer(dst), src, n, 1, 0, 0, cudaMemcpyHostToDevice, stream_of(PT, s), false},
      [&] { return real_of<AsyncToDevice>(kHtoDAsync, PT)(dst, src, n, s); });
}
template <int PT>
CUresult dtoh_async(void* dst, CUdeviceptr src, size_t n, CUstream s) {
  return driver_copy(
      CopyCall{dst, as_pointer(src), n, 1, 0, 0, cudaMemcpyDeviceToHost, stream_of(PT, s), false},
      [&] { return real_of<AsyncToHost>(kDtoHAsync, PT)(dst, src, n, s); });
}
template <int PT>
CUresult any_async(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  return driver_copy(CopyCall{as_pointer(dst), as_pointer(src), n, 1, 0, 0, cudaMemcpyDefault,
                              stream_of(PT, s), false},
                     [&] { return real_of<AsyncAny>(kMemcpyAsync, PT)(dst, src, n, s); });
}

// A 2D copy as a CopyCall: each end's first byte, its pitch and kind of memory. An array at
// either end, or a kind the driver does not name, makes a call the router passes on (a kind of
// cudaMemcpyDeviceToDevice: not between host and device).
CopyCall call_of(const CUDA_MEMCPY2D& c, CUstream s, int per_thread, bool synchronous) {
  const auto end = [](CUmemorytype type, const void* host, CUdeviceptr device, std::size_t x,
                      std::size_t y, std::size_t pitch, bool& is_host, bool& known) -> const void* {
    const std::size_t at = y * pitch + x;
    is_host = type == CU_MEMORYTYPE_HOST;
    known =
        type == CU_MEMORYTYPE_HOST || type == CU_MEMORYTYPE_DEVICE || type == CU_MEMORYTYPE_UNIFIED;
    if (is_host) return static_cast<const char*>(host) + at;
    return as_pointer(device + at);
  };
  bool src_host = false, dst_host = false, src_known = false, dst_known = false;
  const void* src = end(c.srcMemoryType, c.srcHost, c.srcDevice, c.srcXInBytes, c.srcY, c.srcPitch,
                        src_host, src_known);
  const void* dst = end(c.dstMemoryType, c.dstHost, c.dstDevice, c.dstXInBytes, c.dstY, c.dstPitch,
                        dst_host, dst_known);
  cudaMemcpyKind kind = cudaMemcpyDeviceToDevice;
  if (src_known && dst_known) {
    if (c.srcMemoryType == CU_MEMORYTYPE_HOST && c.dstMemoryType == CU_MEMORYTYPE_DEVICE) {
      kind = cudaMemcpyHostToDevice;
    } else if (c.srcMemoryType == CU_MEMORYTYPE_DEVICE && c.dstMemoryType == CU_MEMORYTYPE_HOST) {
      kind = cudaMemcpyDeviceToHost;
    } else if (c.srcMemoryType == CU_MEMORYTYPE_UNIFIED ||
               c.dstMemoryType == CU_MEMORYTYPE_UNIFIED) {
      kind = cudaMemcpyDefault;
    } else if (src_host && dst_host) {
      kind = cudaMemcpyHostToHost;
    }
  }
  // One row: its pitch does not matter, as for cudaMemcpy2D.
  const std::size_t dpitch = c.Height > 1 ? c.dstPitch : c.WidthInBytes;
  const std::size_t spitch = c.Height > 1 ? c.srcPitch : c.WidthInBytes;
  return CopyCall{
      const_cast<void*>(dst),   src,        c.WidthInBytes, c.Height, dpitch, spitch, kind,
      stream_of(per_thread, s), synchronous};
}

using Copy2D = CUresult (*)(const CUDA_MEMCPY2D*);
using Copy2DAsync = CUresult (*)(const CUDA_MEMCPY2D*, CUstream);

template <int PT>
CUresult copy_2d(const CUDA_MEMCPY2D* c) {
  if (c == nullptr) return real_of<Copy2D>(kCopy2D, PT)(c);
  return driver_copy(call_of(*c, nullptr, PT, true),
                     [&] { return real_of<Copy2D>(kCopy2D, PT)(c); });
}
template <int PT>
CUresult copy_2d_async(const CUDA_MEMCPY2D* c, CUstream s) {
  if (c == nullptr) return real_of<Copy2DAsync>(kCopy2DAsync, PT)(c, s);
  return driver_copy(call_of(*c, s, PT, false),
                     [&] { return real_of<Copy2DAsync>(kCopy2DAsync, PT)(c, s); });
}

}  // namespace
}  // namespace pinbench::experiments::accel

using namespace pinbench::experiments::accel;  // NOLINT: the definitions below are the program's
                                               // names

// The driver's copy functions, under their exported names.
#define PINBENCH_DRIVER_COPY(label, ret_params, call)                         \
  PINBENCH_EXPORT CUresult pinbench_accel_##label ret_params __asm__(#label); \
  CUresult pinbench_accel_##label ret_params {                                \
    return call;                                                              \
  }

PINBENCH_DRIVER_COPY(cuMemcpyHtoD_v2, (CUdeviceptr d, const void* s, size_t n), htod<0>(d, s, n))
PINBENCH_DRIVER_COPY(cuMemcpyHtoD_v2_ptds, (CUdeviceptr d, const void* s, size_t n),
                     htod<1>(d, s, n))
PINBENCH_DRIVER_COPY(cuMemcpyDtoH_v2, (void* d, CUdeviceptr s, size_t n), dtoh<0>(d, s, n))
PINBENCH_DRIVER_COPY(cuMemcpyDtoH_v2_ptds, (void* d, CUdeviceptr s, size_t n), dtoh<1>(d, s, n))
PINBENCH_DRIVER_COPY(cuMemcpy, (CUdeviceptr d, CUdeviceptr s, size_t n), any<0>(d, s, n))
PINBENCH_DRIVER_COPY(cuMemcpy_ptds, (CUdeviceptr d, CUdeviceptr s, size_t n), any<1>(d, s, n))
PINBENCH_DRIVER_COPY(cuMemcpyHtoDAsync_v2, (CUdeviceptr d, const void* s, size_t n, CUstream st),
                     htod_async<0>(d, s, n, st))
PINBENCH_DRIVER_COPY(cuMemcpyHtoDAsync_v2_ptsz,
                     (CUdeviceptr d, const void* s, size_t n, CUstream st),
                     htod_async<1>(d, s, n, st))
PINBENCH_DRIVER_COPY(cuMemcpyDtoHAsync_v2, (void* d, CUdeviceptr s, size_t n, CUstream st),
                     dtoh_async<0>(d, s, n, st))
PINBENCH_DRIVER_COPY(cuMemcpyDtoHAsync_v2_ptsz, (void* d, CUdeviceptr s, size_t n, CUstream st),
                     dtoh_async<1>(d, s, n, st))
PINBENCH_DRIVER_COPY(cuMemcpyAsync, (CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st),
                     any_async<0>(d, s, n, st))
PINBENCH_DRIVER_COPY(cuMemcpyAsync_ptsz, (CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st),
                     any_async<1>(d, s, n, st))
PINBENCH_DRIVER_COPY(cuMemcpy2D_v2, (const CUDA_MEMCPY2D* c), copy_2d<0>(c))
PINBENCH_DRIVER_COPY(cuMemcpy2D_v2_ptds, (const CUDA_MEMCPY2D* c), copy_2d<1>(c))
PINBENCH_DRIVER_COPY(cuMemcpy2DAsync_v2, (const CUDA_MEMCPY2D* c, CUstream st),
                     copy_2d_async<0>(c, st))
PINBENCH_DRIVER_COPY(cuMemcpy2DAsync_v2_ptsz, (const CUDA_MEMCPY2D* c, CUstream st),
                     copy_2d_async<1>(c, st))
#undef PINBENCH_DRIVER_COPY

// The entry-point lookup, both versions.
PINBENCH_EXPORT CUresult
pinbench_accel_get_proc(const char* symbol, void** pfn, int version, cuuint64_t flags,
                        CUdriverProcAddressQueryResult* status) __asm__("cuGetProcAddress_v2");
PINBENCH_EXPORT CUresult pinbench_accel_get_proc_v1(const char* symbol, void** pfn, int version,
                                                    cuuint64_t flags) __asm__("cuGetProcAddress");

namespace pinbench::experiments::accel {
namespace {

void fill_slots() {
  static std::once_flag once;
  std::call_once(once, [] {
    void* const ours[kFamilies][2] = {
        {reinterpret_cast<void*>(&pinbench_accel_cuMemcpyHtoD_v2),
         reinterpret_cast<void*>(&pinbench_accel_cuMemcpyHtoD_v2_ptds)},
        {reinterpret_cast<void*>(&pinbench_accel_cuMemcpyDtoH_v2),
         reinterpret_cast<void*>(&pinbench_accel_cuMemcpyDtoH_v2_ptds)},
        {reinterpret_cast<void*>(&pinbench_accel_cuMemcpy),
         reinterpret_cast<void*>(&pinbench_accel_cuMemcpy_ptds)},
        {reinterpret_cast<void*>(&pinbench_accel_cuMemcpyHtoDAsync_v2),
         reinterpret_cast<void*>(&pinbench_accel_cuMemcpyHtoDAsync_v2_ptsz)},
        {reinterpret_cast<void*>(&pinbench_accel_cuMemcpyDtoHAsync_v2),
         reinterpret_cast<void*>(&pinbench_accel_cuMemcpyDtoHAsync_v2_ptsz)},
        {reinterpret_cast<void*>(&pinbench_accel_cuMemcpyAsync),
         reinterpret_cast<void*>(&pinbench_accel_cuMemcpyAsync_ptsz)},
        {reinterpret_cast<void*>(&pinbench_accel_cuMemcpy2D_v2),
         reinterpret_cast<void*>(&pinbench_accel_cuMemcpy2D_v2_ptds)},
        {reinterpret_cast<void*>(&pinbench_accel_cuMemcpy2DAsync_v2),
         reinterpret_cast<void*>(&pinbench_accel_cuMemcpy2DAsync_v2_ptsz)}};
    for (int f = 0; f < kFamilies; ++f) {
      g_slots[f][0].name = kNames[f].legacy;
      g_slots[f][1].name = kNames[f].per_thread;
      g_slots[f][0].ours = ours[f][0];
      g_slots[f][1].ours = ours[f][1];
    }
  });
}

bool is_ours(void* fn) {
  fill_slots();
  for (auto& family : g_slots) {
    for (Slot& s : family) {
      if (s.ours == fn) return true;
    }
  }
  return fn == reinterpret_cast<void*>(&pinbench_accel_get_proc) ||
         fn == reinterpret_cast<void*>(&pinbench_accel_get_proc_v1);
}

// accel's function for the driver's `real` one in slot (f, per_thread).
void* hand_out(int f, int per_thread, void* real) {
  if (is_ours(real)) return real;
  Slot& s = g_slots[f][per_thread];
  void* none = nullptr;
  s.real.compare_exchange_strong(none, real, std::memory_order_acq_rel);
  return s.ours;
}

void* hand_out_lookup(bool v2, void* real) {
  if (is_ours(real)) return real;
  std::atomic<void*>& slot = v2 ? g_real_get_proc : g_real_get_proc_v1;
  void* none = nullptr;
  slot.compare_exchange_strong(none, real, std::memory_order_acq_rel);
  return v2 ? reinterpret_cast<void*>(&pinbench_accel_get_proc)
            : reinterpret_cast<void*>(&pinbench_accel_get_proc_v1);
}

// What cuGetProcAddress hands the program for `symbol`, given what the driver answered.
void* answer_lookup(const char* symbol, void* fn, int version, cuuint64_t flags) {
  if (fn == nullptr || symbol == nullptr) return fn;
  if (std::strcmp(symbol, "cuGetProcAddress") == 0) return hand_out_lookup(version >= 12000, fn);
  fill_slots();
  for (int f = 0; f < kFamilies; ++f) {
    if (std::strcmp(symbol, kNames[f].base) != 0) continue;
    if (version < kNames[f].since_version) return fn;
    // Which stream form the driver chose: by the function itself, else by the flags.
    int per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0 ? 1 : 0;
    if (fn == driver_symbol(kNames[f].per_thread)) per_thread = 1;
    if (fn == driver_symbol(kNames[f].legacy)) per_thread = 0;
    return hand_out(f, per_thread, fn);
  }
  return fn;
}

void* real_get_proc() {
  void* r = g_real_get_proc.load(std::memory_order_acquire);
  if (r == nullptr) {
    r = driver_symbol("cuGetProcAddress_v2");
    g_real_get_proc.store(r, std::memory_order_release);
  }
  return r;
}

void* real_get_proc_v1() {
  void* r = g_real_get_proc_v1.load(std::memory_order_acquire);
  if (r == nullptr) {
    r = driver_symbol("cuGetProcAddress");
    g_real_get_proc_v1.store(r, std::memory_order_release);
  }
  return r;
}

}  // namespace

}  // namespace pinbench::experiments::accel

CUresult pinbench_accel_get_proc(const char* symbol, void** pfn, int version, cuuint64_t flags,
                                 CUdriverProcAddressQueryResult* status) {
  using Fn = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
  const auto real = reinterpret_cast<Fn>(real_get_proc());
  if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  const CUresult r = real(symbol, pfn, version, flags, status);
  if (r == CUDA_SUCCESS && pfn != nullptr) *pfn = answer_lookup(symbol, *pfn, version, flags);
  return r;
}

CUresult pinbench_accel_get_proc_v1(const char* symbol, void** pfn, int version, cuuint64_t flags) {
  using Fn = CUresult (*)(const char*, void**, int, cuuint64_t);
  const auto real = reinterpret_cast<Fn>(real_get_proc_v1());
  if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  const CUresult r = real(symbol, pfn, version, flags);
  if (r == CUDA_SUCCESS && pfn != nullptr) *pfn = answer_lookup(symbol, *pfn, version, flags);
  return r;
}

// accel's answer to dlsym(handle, name): the driver's lookup and copy functions, by their
// exported names, looked up in a handle (libcuda's, or RTLD_DEFAULT); null for every other name,
// and for RTLD_NEXT, whose answer depends on the caller.
void* pinbench_accel_dlsym_answer(void* handle, const char* name) {
  if (!c_library_dlsym_found()) return nullptr;
  if (name == nullptr || name[0] != 'c' || name[1] != 'u' || handle == RTLD_NEXT) return nullptr;
  const bool lookup_v2 = std::strcmp(name, "cuGetProcAddress_v2") == 0;
  const bool lookup_v1 = std::strcmp(name, "cuGetProcAddress") == 0;
  int family = -1, per_thread = 0;
  if (!lookup_v2 && !lookup_v1) {
    for (int f = 0; f < kFamilies && family < 0; ++f) {
      if (std::strcmp(name, kNames[f].legacy) == 0) family = f;
      if (std::strcmp(name, kNames[f].per_thread) == 0) family = f, per_thread = 1;
    }
    if (family < 0) return nullptr;
  }
  void* real = real_dlsym(handle, name);
  if (real == nullptr) return nullptr;
  fill_slots();
  if (lookup_v2 || lookup_v1) return hand_out_lookup(lookup_v2, real);
  return hand_out(family, per_thread, real);
}

// The program's dlsym: accel's answer when it has one, else a jump (not a call) to the C
// library's, so its caller is the program's code, as RTLD_NEXT needs.
#if defined(__x86_64__)
asm(R"(
  .text
  .globl dlsym
  .type dlsym, @function
dlsym:
  .cfi_startproc
  push %rdi
  .cfi_adjust_cfa_offset 8
  push %rsi
  .cfi_adjust_cfa_offset 8
  sub $8, %rsp
  .cfi_adjust_cfa_offset 8
  call pinbench_accel_dlsym_answer
  add $8, %rsp
  .cfi_adjust_cfa_offset -8
  pop %rsi
  .cfi_adjust_cfa_offset -8
  pop %rdi
  .cfi_adjust_cfa_offset -8
  test %rax, %rax
  jnz 1f
  jmp *pinbench_accel_real_dlsym(%rip)
1:
  ret
  .cfi_endproc
  .size dlsym, .-dlsym
)");
#elif defined(__aarch64__)
asm(R"(
  .text
  .globl dlsym
  .type dlsym, %function
dlsym:
  stp x29, x30, [sp, #-32]!
  mov x29, sp
  stp x0, x1, [sp, #16]
  bl pinbench_accel_dlsym_answer
  mov x2, x0
  ldp x0, x1, [sp, #16]
  ldp x29, x30, [sp], #32
  cbnz x2, 1f
  adrp x16, pinbench_accel_real_dlsym
  ldr x16, [x16, #:lo12:pinbench_accel_real_dlsym]
  br x16
1:
  mov x0, x2
  ret
  .size dlsym, .-dlsym
)");
#endif
