// A library that opens another by name alone, found through its own run path ($ORIGIN/sub), as
// Python extensions and CUDA libraries do. The dlopen that doctor's and accel's libraries define
// (cuda/driver_watch.hpp) must keep this working: the C library searches the run paths of the
// object that called dlopen, so that dlopen must jump to the C library's, never call it.
#include <dlfcn.h>

#include <cstdio>

extern "C" __attribute__((visibility("default"))) int pinbench_load_by_run_path() {
  void* lib = dlopen("libpinbench_runpath_target.so", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    std::printf("dlopen: %s\n", dlerror());
    return -1;
  }
  const auto answer = reinterpret_cast<int (*)()>(dlsym(lib, "pinbench_runpath_answer"));
  return answer != nullptr ? answer() : -1;
}
