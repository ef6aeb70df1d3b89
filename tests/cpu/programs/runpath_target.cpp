// The library runpath_loader.cpp opens by name alone: it lies only where the loader's run path
// ($ORIGIN/sub) says, so it is found only if dlopen searches that caller's run paths.
extern "C" __attribute__((visibility("default"))) int pinbench_runpath_answer() {
  return 42;
}
