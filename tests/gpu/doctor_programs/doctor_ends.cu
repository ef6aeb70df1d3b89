// Processes that end each way doctor must survive, for tests/gpu/test_doctor_gpu.cpp: each makes
// pageable copies of 1 MiB to the device (cudaMemcpyAsync from malloc'd memory, the driver
// staging them) and then ends as its mode says. Usage: doctor_ends MODE.
//   exit        4 copies, then returns from main (exit handlers run)
//   _exit       4 copies, then _exit(0): no exit handler runs
//   exec        4 copies, then execv of itself as "after-exec", which makes 2 and returns
//   signal      4 copies, then raise(SIGTERM) with its default action
//   kill-child  a child (forked before anyone touches CUDA) makes 5 copies, says so on a pipe
//               and waits; the parent SIGKILLs it at once, then makes 3 copies of its own
#include <cuda_runtime.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "check.cuh"

namespace {

using doctor_programs::check;
using doctor_programs::kMiB;

// n pageable copies of 1 MiB to the device, each one done before the next.
void copies(int n) {
  char* host = static_cast<char*>(std::malloc(kMiB));
  std::memset(host, 7, kMiB);
  void* dev = nullptr;
  check(cudaMalloc(&dev, kMiB), "cudaMalloc");
  for (int i = 0; i < n; ++i) {
    check(cudaMemcpyAsync(dev, host, kMiB, cudaMemcpyHostToDevice, nullptr), "h2d");
    check(cudaStreamSynchronize(nullptr), "sync");
  }
}

int kill_child() {
  int ready[2];
  if (pipe(ready) != 0) return 4;
  const pid_t child = fork();
  if (child < 0) return 4;
  if (child == 0) {
    close(ready[0]);
    copies(5);
    const char done = 'y';
    if (write(ready[1], &done, 1) != 1) _exit(5);
    for (;;) pause();
  }
  close(ready[1]);
  char done = 0;
  const bool told = read(ready[0], &done, 1) == 1;
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  if (!told || !WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) return 6;
  copies(3);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "exit") {
    copies(4);
    return 0;
  }
  if (mode == "_exit") {
    copies(4);
    _exit(0);
  }
  if (mode == "exec") {
    copies(4);
    char self[] = "after-exec";
    char* const args[] = {argv[0], self, nullptr};
    execv("/proc/self/exe", args);
    std::perror("execv");
    return 8;
  }
  if (mode == "after-exec") {
    copies(2);
    return 0;
  }
  if (mode == "signal") {
    copies(4);
    raise(SIGTERM);
    return 9;
  }
  if (mode == "kill-child") return kill_child();
  std::fprintf(stderr, "usage: doctor_ends exit|_exit|exec|signal|kill-child\n");
  return 2;
}
