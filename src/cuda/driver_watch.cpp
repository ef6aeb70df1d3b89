// The dlopen of the libraries pinbench loads into a user's program, which notes a load of the
// CUDA driver and passes every call on unchanged (driver_watch.hpp). Compiled into each such
// library, never into pinbench itself.
#include "cuda/driver_watch.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstddef>
#include <cstring>
#include <initializer_list>

namespace pinbench::cuda {
namespace {

using DlopenFn = void* (*)(const char*, int);

int g_asked = 0;
void (*g_hook)() = nullptr;
DlopenFn g_real = nullptr;

// The driver's library by any path and version ("/usr/lib64/libcuda.so.1", "libcuda.so"), not the
// runtime's (libcudart.so) or anything else's.
bool names_driver(const char* file) {
  const char* slash = std::strrchr(file, '/');
  const char* base = slash != nullptr ? slash + 1 : file;
  return std::strncmp(base, "libcuda.so", 10) == 0;
}

int find_driver(dl_phdr_info* info, std::size_t, void* found) {
  if (info->dlpi_name == nullptr || !names_driver(info->dlpi_name)) return 0;
  *static_cast<int*>(found) = 1;
  return 1;
}

// The C library's dlopen, found once: newest version first (2.34 moved it into libc; 2.17 is
// AArch64's first).
DlopenFn real_dlopen() {
  DlopenFn f = __atomic_load_n(&g_real, __ATOMIC_ACQUIRE);
  if (f != nullptr) return f;
  for (const char* version : {"GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17"}) {
    f = reinterpret_cast<DlopenFn>(dlvsym(RTLD_NEXT, "dlopen", version));
    if (f != nullptr) break;
  }
  __atomic_store_n(&g_real, f, __ATOMIC_RELEASE);
  return f;
}

void asked() {
  if (__atomic_exchange_n(&g_asked, 1, __ATOMIC_ACQ_REL) != 0) return;
  void (*hook)() = __atomic_load_n(&g_hook, __ATOMIC_ACQUIRE);
  if (hook != nullptr) hook();
}

// A program linked to libcuda has it from its start, asked for or not.
__attribute__((constructor)) void at_start() {
  if (driver_loaded()) asked();
}

}  // namespace

bool driver_asked() {
  return __atomic_load_n(&g_asked, __ATOMIC_ACQUIRE) != 0;
}

bool driver_loaded() {
  int found = 0;
  dl_iterate_phdr(find_driver, &found);
  return found != 0;
}

void driver_watch_forked() {
  __atomic_store_n(&g_asked, 0, __ATOMIC_RELEASE);
}

void on_driver_asked(void (*fn)()) {
  __atomic_store_n(&g_hook, fn, __ATOMIC_RELEASE);
  if (fn != nullptr && driver_asked()) fn();
}

}  // namespace pinbench::cuda

// What the process's dlopen asks first: notes a load of the driver (a query with RTLD_NOLOAD
// loads nothing), and answers with the C library's dlopen, to jump to.
extern "C" __attribute__((visibility("hidden"))) void* pinbench_dlopen_seen(const char* file,
                                                                            int flags) {
  if (file != nullptr && (flags & RTLD_NOLOAD) == 0 && pinbench::cuda::names_driver(file)) {
    pinbench::cuda::asked();
  }
  return reinterpret_cast<void*>(pinbench::cuda::real_dlopen());
}

// The process's dlopen: a jump (not a call) to the C library's, so that the loader sees the
// caller's return address and searches the caller's run paths; null, as a failed dlopen, should
// the C library have none.
#if defined(__x86_64__)
asm(R"(
  .text
  .globl dlopen
  .type dlopen, @function
dlopen:
  .cfi_startproc
  push %rdi
  .cfi_adjust_cfa_offset 8
  push %rsi
  .cfi_adjust_cfa_offset 8
  sub $8, %rsp
  .cfi_adjust_cfa_offset 8
  call pinbench_dlopen_seen
  add $8, %rsp
  .cfi_adjust_cfa_offset -8
  pop %rsi
  .cfi_adjust_cfa_offset -8
  pop %rdi
  .cfi_adjust_cfa_offset -8
  test %rax, %rax
  jz 1f
  jmp *%rax
1:
  ret
  .cfi_endproc
  .size dlopen, .-dlopen
)");
#elif defined(__aarch64__)
asm(R"(
  .text
  .globl dlopen
  .type dlopen, %function
dlopen:
  stp x29, x30, [sp, #-32]!
  mov x29, sp
  stp x0, x1, [sp, #16]
  bl pinbench_dlopen_seen
  mov x16, x0
  ldp x0, x1, [sp, #16]
  ldp x29, x30, [sp], #32
  cbz x16, 1f
  br x16
1:
  mov x0, #0
  ret
  .size dlopen, .-dlopen
)");
#else
#error "driver_watch.cpp defines dlopen for x86-64 and AArch64 only"
#endif
