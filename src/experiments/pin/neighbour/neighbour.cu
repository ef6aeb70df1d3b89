// pinbench_neighbour: what a serving rank does every few milliseconds, timed, in a process of its
// own, so that `pinbench pin` can show what each way of pinning costs everyone else on the host.
// A step is a 4 KiB cudaMemcpyAsync from page-locked memory, a one-block kernel, a stream
// synchronisation and cudaMemGetInfo; each step's start and length go to FILE as two 64-bit
// nanosecond counts (CLOCK_MONOTONIC, which the parent shares), one write per step. The program
// runs until its standard input closes (the parent ends it that way, or by dying).
//
//   pinbench_neighbour --device N --interval-us U --out FILE
//
// Exit status: 0 when standard input closed, 2 for bad arguments, 3 when CUDA failed (one line on
// stderr).
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>

#include <cuda_runtime.h>

namespace {

__global__ void touch(int* p) {
  if (threadIdx.x == 0) p[0] += 1;
}

std::int64_t now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec;
}

[[noreturn]] void die(int code, const std::string& why) {
  std::fprintf(stderr, "pinbench_neighbour: error: %s\n", why.c_str());
  std::exit(code);
}

void cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) die(3, std::string(what) + ": " + cudaGetErrorName(e));
}

long number(const char* text, long most) {
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v < 0 || v > most) {
    die(2, std::string("not a number from 0 to ") + std::to_string(most) + ": '" + text + "'");
  }
  return v;
}

bool input_closed() {
  pollfd p{STDIN_FILENO, POLLIN, 0};
  if (poll(&p, 1, 0) <= 0) return false;
  if ((p.revents & (POLLHUP | POLLERR | POLLNVAL)) != 0) return true;
  char c = 0;
  return read(STDIN_FILENO, &c, 1) <= 0;
}

}  // namespace

int main(int argc, char** argv) {
  int device = 0;
  long interval_us = 2000;
  const char* out = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) die(2, "'" + a + "' needs a value");
    if (a == "--device") {
      device = static_cast<int>(number(argv[++i], 1023));
    } else if (a == "--interval-us") {
      interval_us = number(argv[++i], 1000000);
    } else if (a == "--out") {
      out = argv[++i];
    } else {
      die(2, "unknown argument '" + a + "'");
    }
  }
  if (out == nullptr) die(2, "--out FILE is needed");
  const int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) die(2, std::string("cannot write ") + out + ": " + std::strerror(errno));

  cuda(cudaSetDevice(device), "cudaSetDevice");
  int* d = nullptr;
  void* h = nullptr;
  cudaStream_t s = nullptr;
  cuda(cudaMalloc(&d, 4096), "cudaMalloc");
  cuda(cudaMallocHost(&h, 4096), "cudaMallocHost");
  std::memset(h, 0, 4096);
  cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  while (!input_closed()) {
    const std::int64_t t0 = now_ns();
    cuda(cudaMemcpyAsync(d, h, 4096, cudaMemcpyHostToDevice, s), "cudaMemcpyAsync");
    touch<<<1, 32, 0, s>>>(d);
    cuda(cudaGetLastError(), "kernel launch");
    cuda(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    std::size_t free_bytes = 0, total = 0;
    cuda(cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo");
    const std::int64_t t1 = now_ns();
    const std::int64_t step[2] = {t0, t1 - t0};
    if (write(fd, step, sizeof step) != static_cast<ssize_t>(sizeof step)) {
      die(3, std::string("cannot write ") + out + ": " + std::strerror(errno));
    }
    const std::int64_t until = t0 + interval_us * 1000;
    for (std::int64_t left; (left = until - now_ns()) > 0;) {
      timespec nap{0, static_cast<long>(left < 200000 ? left : 200000)};
      nanosleep(&nap, nullptr);
    }
  }
  close(fd);
  return 0;
}
