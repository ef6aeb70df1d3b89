// Where accel's library finds the CUDA runtime the program uses. PyTorch loads libcudart with
// RTLD_LOCAL, out of the global scope, so dlsym(RTLD_NEXT) alone does not find it: the runtime is
// the first libcudart.so the process has loaded (dl_iterate_phdr), opened again with RTLD_NOLOAD.
// No CUDA here.
#pragma once

namespace pinbench::experiments::accel {

// `name` from the program's libcudart: for the engine's and the router's own calls, which must
// reach the runtime itself. nullptr when no libcudart is loaded or it lacks the name.
void* runtime_symbol(const char* name);

// The next definition of `name` after accel's library: another LD_PRELOAD library that wraps
// it, else the runtime's own (runtime_symbol). For the program's calls that accel passes on, so
// a wrapper loaded after accel still sees them.
void* next_symbol(const char* name);

// Whether any loaded object's file name contains `part` ("libcuda.so", "cupy").
bool loaded(const char* part);

// Whether the process has a shared CUDA runtime (a libcudart.so) loaded: the engine's runtime
// calls go to it; without one (a runtime linked statically, a program of the driver API) they go
// to the driver backend (driver_runtime.cpp).
bool shared_runtime_loaded();

// The C library's dlsym, never accel's (driver_entry.cpp defines the program's dlsym), and
// whether it was found (it is kept in pinbench_accel_real_dlsym for accel's dlsym to jump to).
using DlsymFn = void* (*)(void*, const char*);
void* real_dlsym(void* handle, const char* name);
bool c_library_dlsym_found();

}  // namespace pinbench::experiments::accel
