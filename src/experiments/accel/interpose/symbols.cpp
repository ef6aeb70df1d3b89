// Finding the program's CUDA runtime (symbols.hpp).
#include "experiments/accel/interpose/symbols.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstring>
#include <mutex>

extern "C" {
// The C library's dlsym, found once: accel's dlsym (driver_entry.cpp) jumps to it.
__attribute__((visibility("hidden")))
pinbench::experiments::accel::DlsymFn pinbench_accel_real_dlsym = nullptr;
}

namespace pinbench::experiments::accel {
namespace {

DlsymFn c_library_dlsym() {
  DlsymFn f = __atomic_load_n(&pinbench_accel_real_dlsym, __ATOMIC_ACQUIRE);
  if (f != nullptr) return f;
  // The C library's own versions of dlsym, newest first (2.34 moved it into libc; 2.17 is
  // AArch64's first).
  for (const char* version : {"GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17"}) {
    f = reinterpret_cast<DlsymFn>(dlvsym(RTLD_NEXT, "dlsym", version));
    if (f != nullptr) break;
  }
  __atomic_store_n(&pinbench_accel_real_dlsym, f, __ATOMIC_RELEASE);
  return f;
}

struct Search {
  const char* part;
  bool found = false;
  char path[4096] = {};
};

int find_object(dl_phdr_info* info, std::size_t, void* data) {
  auto* s = static_cast<Search*>(data);
  const char* name = info->dlpi_name;
  if (name == nullptr || *name == '\0') return 0;
  if (std::strstr(name, s->part) == nullptr) return 0;
  std::strncpy(s->path, name, sizeof s->path - 1);
  s->found = true;
  return 1;
}

void* g_runtime = nullptr;
std::once_flag g_runtime_once;

void* runtime_handle() {
  std::call_once(g_runtime_once, [] {
    Search s{"libcudart.so"};
    dl_iterate_phdr(find_object, &s);
    // RTLD_NOLOAD: a handle on the copy already loaded, never a second one.
    if (s.found) g_runtime = dlopen(s.path, RTLD_NOW | RTLD_NOLOAD);
  });
  return g_runtime;
}

}  // namespace

void* runtime_symbol(const char* name) {
  void* handle = runtime_handle();
  if (handle != nullptr) {
    if (void* fn = real_dlsym(handle, name)) return fn;
  }
  return real_dlsym(RTLD_NEXT, name);
}

void* real_dlsym(void* handle, const char* name) {
  const DlsymFn f = c_library_dlsym();
  return f == nullptr ? nullptr : f(handle, name);
}

bool c_library_dlsym_found() {
  return c_library_dlsym() != nullptr;
}

bool shared_runtime_loaded() {
  return runtime_handle() != nullptr;
}

void* next_symbol(const char* name) {
  if (void* fn = real_dlsym(RTLD_NEXT, name)) return fn;
  return runtime_symbol(name);
}

bool loaded(const char* part) {
  Search s{part};
  dl_iterate_phdr(find_object, &s);
  return s.found;
}

}  // namespace pinbench::experiments::accel
