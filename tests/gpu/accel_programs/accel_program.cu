// A program linked to the shared CUDA runtime that makes every copy call accel covers, for the
// GPU tests of `pinbench accel` (tests/gpu/test_accel_gpu.cpp). It is built twice: with the
// legacy default stream and with --default-stream per-thread. It checks every byte itself and
// prints a transcript: each call's return code and each check's result, one line each, so the
// test runs it with and without accel and requires the same transcript (the runtime's meaning
// kept, errors included). Exit 1 when a byte check fails.
//
//   accel_program [--quick]     --quick: sizes up to 64 MiB only
#include <cuda_runtime.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

std::atomic<int> g_failures{0};

void say(const std::string& what, cudaError_t e) {
  std::printf("%s: %s\n", what.c_str(), cudaGetErrorName(e));
}

#define MUST(call)                                                                              \
  do {                                                                                          \
    const cudaError_t e_ = (call);                                                              \
    if (e_ != cudaSuccess) {                                                                    \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_)); \
      std::exit(3);                                                                             \
    }                                                                                           \
  } while (0)

unsigned char pattern_byte(std::size_t i, unsigned seed) {
  return static_cast<unsigned char>((i * 131u + seed * 7u + (i >> 12)) & 0xFFu);
}

void fill(unsigned char* p, std::size_t n, unsigned seed) {
  for (std::size_t i = 0; i < n; ++i) p[i] = pattern_byte(i, seed);
}

// The first index whose byte is not the pattern's, or n.
std::size_t first_wrong(const unsigned char* p, std::size_t n, unsigned seed) {
  for (std::size_t i = 0; i < n; ++i) {
    if (p[i] != pattern_byte(i, seed)) return i;
  }
  return n;
}

void check(const std::string& what, const unsigned char* p, std::size_t n, unsigned seed) {
  const std::size_t at = first_wrong(p, n, seed);
  if (at == n) {
    std::printf("%s: bytes ok\n", what.c_str());
  } else {
    std::printf("%s: MISMATCH at byte %zu of %zu\n", what.c_str(), at, n);
    g_failures.fetch_add(1);
  }
}

__global__ void spin_then_fill(unsigned char* p, std::size_t n, unsigned char v, long long cycles) {
  if (threadIdx.x == 0) {
    const long long start = clock64();
    while (clock64() - start < cycles) {
    }
  }
  __syncthreads();
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    p[i] = v;
  }
}

__global__ void spin_then_pattern(unsigned char* p, std::size_t n, unsigned seed,
                                  long long cycles) {
  if (threadIdx.x == 0) {
    const long long start = clock64();
    while (clock64() - start < cycles) {
    }
  }
  __syncthreads();
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    p[i] = static_cast<unsigned char>((i * 131u + seed * 7u + (i >> 12)) & 0xFFu);
  }
}

__global__ void count_wrong(const unsigned char* p, std::size_t n, unsigned seed,
                            unsigned long long* wrong) {
  unsigned long long mine = 0;
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    if (p[i] != static_cast<unsigned char>((i * 131u + seed * 7u + (i >> 12)) & 0xFFu)) ++mine;
  }
  if (mine != 0) atomicAdd(wrong, mine);
}

constexpr long long kSpin = 200000000;  // about 0.1 s at the H200's clock

// Device bytes read back through page-locked memory (which accel passes on) and checked.
void check_device(const std::string& what, const unsigned char* dev, std::size_t n, unsigned seed) {
  unsigned char* pinned = nullptr;
  MUST(cudaMallocHost(&pinned, n));
  MUST(cudaMemcpy(pinned, dev, n, cudaMemcpyDeviceToHost));
  check(what, pinned, n, seed);
  MUST(cudaFreeHost(pinned));
}

void fill_device(unsigned char* dev, std::size_t n, unsigned seed) {
  unsigned char* pinned = nullptr;
  MUST(cudaMallocHost(&pinned, n));
  fill(pinned, n, seed);
  MUST(cudaMemcpy(dev, pinned, n, cudaMemcpyHostToDevice));
  MUST(cudaFreeHost(pinned));
}

// Every 1D call both ways at one size, from odd addresses (host + 3, device + 1).
void copies_at(std::size_t n, cudaStream_t stream, const char* stream_name) {
  std::vector<unsigned char> host_block(n + 64);
  unsigned char* host = host_block.data() + 3;
  unsigned char* dev_block = nullptr;
  MUST(cudaMalloc(&dev_block, n + 64));
  unsigned char* dev = dev_block + 1;
  const std::string at = std::to_string(n) + " B on " + stream_name;
  unsigned seed = static_cast<unsigned>(n % 97);

  fill(host, n, ++seed);
  say("cudaMemcpy h2d " + at, cudaMemcpy(dev, host, n, cudaMemcpyHostToDevice));
  check_device("  device after cudaMemcpy h2d", dev, n, seed);

  fill(host, n, ++seed);
  say("cudaMemcpyAsync h2d " + at, cudaMemcpyAsync(dev, host, n, cudaMemcpyHostToDevice, stream));
  std::memset(host, 0, n);  // the runtime let the caller reuse the source
  MUST(cudaStreamSynchronize(stream));
  check_device("  device after cudaMemcpyAsync h2d", dev, n, seed);

  fill_device(dev, n, ++seed);
  std::memset(host, 0, n);
  say("cudaMemcpy d2h " + at, cudaMemcpy(host, dev, n, cudaMemcpyDeviceToHost));
  check("  host after cudaMemcpy d2h", host, n, seed);

  fill_device(dev, n, ++seed);
  std::memset(host, 0, n);
  say("cudaMemcpyAsync d2h " + at, cudaMemcpyAsync(host, dev, n, cudaMemcpyDeviceToHost, stream));
  check("  host after cudaMemcpyAsync d2h, no sync", host, n, seed);

  fill(host, n, ++seed);
  say("cudaMemcpyAsync default-kind h2d " + at,
      cudaMemcpyAsync(dev, host, n, cudaMemcpyDefault, stream));
  MUST(cudaStreamSynchronize(stream));
  check_device("  device after default-kind h2d", dev, n, seed);

  MUST(cudaFree(dev_block));
}

// Earlier work on the stream runs before the copy, later work after it.
void ordering(cudaStream_t before_on, cudaStream_t copy_on, cudaStream_t after_on,
              const char* name) {
  const std::size_t n = std::size_t{48} << 20;
  std::vector<unsigned char> host(n);
  unsigned char* dev = nullptr;
  unsigned long long* wrong = nullptr;
  MUST(cudaMalloc(&dev, n));
  MUST(cudaMalloc(&wrong, sizeof *wrong));
  MUST(cudaMemset(wrong, 0, sizeof *wrong));
  MUST(cudaDeviceSynchronize());
  fill(host.data(), n, 11);
  spin_then_fill<<<264, 256, 0, before_on>>>(dev, n, 0xAA, kSpin);
  say(std::string("ordered h2d ") + name,
      cudaMemcpyAsync(dev, host.data(), n, cudaMemcpyHostToDevice, copy_on));
  count_wrong<<<264, 256, 0, after_on>>>(dev, n, 11, wrong);
  MUST(cudaDeviceSynchronize());
  unsigned long long w = 0;
  MUST(cudaMemcpy(&w, wrong, sizeof w, cudaMemcpyDeviceToHost));
  std::printf("  later kernel saw %s\n", w == 0 ? "every byte of the copy" : "WRONG bytes");
  if (w != 0) g_failures.fetch_add(1);

  spin_then_pattern<<<264, 256, 0, before_on>>>(dev, n, 12, kSpin);
  std::memset(host.data(), 0, n);
  say(std::string("ordered d2h ") + name,
      cudaMemcpyAsync(host.data(), dev, n, cudaMemcpyDeviceToHost, copy_on));
  check("  host after ordered d2h, no sync", host.data(), n, 12);
  MUST(cudaDeviceSynchronize());
  MUST(cudaFree(dev));
  MUST(cudaFree(wrong));
}

void two_d() {
  const std::size_t width = std::size_t{1} << 20, height = 8;
  std::vector<unsigned char> host(width * height + 4096 * height);
  unsigned char* dev = nullptr;
  MUST(cudaMalloc(&dev, width * height + 4096 * height));
  fill(host.data(), width * height, 21);
  say("cudaMemcpy2DAsync contiguous h2d",
      cudaMemcpy2DAsync(dev, width, host.data(), width, width, height, cudaMemcpyHostToDevice,
                        nullptr));
  MUST(cudaDeviceSynchronize());
  check_device("  device after contiguous 2D", dev, width * height, 21);
  std::memset(host.data(), 0, host.size());
  say("cudaMemcpy2D contiguous d2h",
      cudaMemcpy2D(host.data(), width, dev, width, width, height, cudaMemcpyDeviceToHost));
  check("  host after contiguous 2D", host.data(), width * height, 21);
  // Rows with gaps between them: passed on, and still right.
  const std::size_t pitch = width + 4096;
  for (std::size_t r = 0; r < height; ++r) fill(host.data() + r * pitch, width, 30 + r);
  say("cudaMemcpy2D strided h2d",
      cudaMemcpy2D(dev, width, host.data(), pitch, width, height, cudaMemcpyHostToDevice));
  for (std::size_t r = 0; r < height; ++r) {
    check_device("  strided row " + std::to_string(r), dev + r * width, width, 30 + r);
  }
  MUST(cudaFree(dev));
}

void other_memory() {
  const std::size_t n = std::size_t{8} << 20;
  unsigned char* dev = nullptr;
  MUST(cudaMalloc(&dev, n));
  unsigned char* pinned = nullptr;
  MUST(cudaMallocHost(&pinned, n));
  fill(pinned, n, 41);
  say("page-locked h2d", cudaMemcpyAsync(dev, pinned, n, cudaMemcpyHostToDevice, nullptr));
  MUST(cudaDeviceSynchronize());
  check_device("  device after page-locked h2d", dev, n, 41);
  unsigned char* managed = nullptr;
  MUST(cudaMallocManaged(&managed, n));
  std::vector<unsigned char> host(n);
  fill(host.data(), n, 42);
  say("pageable to managed", cudaMemcpy(managed, host.data(), n, cudaMemcpyHostToDevice));
  MUST(cudaDeviceSynchronize());
  check("  managed after copy", managed, n, 42);
  say("device to device", cudaMemcpy(dev, managed, n, cudaMemcpyDeviceToDevice));
  MUST(cudaFree(managed));
  MUST(cudaFreeHost(pinned));
  MUST(cudaFree(dev));
}

void errors() {
  const std::size_t n = std::size_t{1} << 20;
  unsigned char* dev = nullptr;
  MUST(cudaMalloc(&dev, n));
  std::vector<unsigned char> host(4 * n);
  say("h2d past the device allocation",
      cudaMemcpyAsync(dev, host.data(), 4 * n, cudaMemcpyHostToDevice, nullptr));
  say("  cudaGetLastError", cudaGetLastError());
  say("  cudaGetLastError again", cudaGetLastError());
  say("d2h past the device allocation",
      cudaMemcpy(host.data(), dev, 4 * n, cudaMemcpyDeviceToHost));
  say("  cudaPeekAtLastError", cudaPeekAtLastError());
  say("  cudaGetLastError", cudaGetLastError());
  say("h2d to a null device pointer", cudaMemcpy(nullptr, host.data(), n, cudaMemcpyHostToDevice));
  say("  cudaGetLastError", cudaGetLastError());
  // A pending error: the next big copy still works, and the error is still there after it.
  say("h2d past the device allocation",
      cudaMemcpy(dev, host.data(), 4 * n, cudaMemcpyHostToDevice));
  fill(host.data(), n, 51);
  say("h2d with an error pending", cudaMemcpy(dev, host.data(), n, cudaMemcpyHostToDevice));
  say("  cudaGetLastError", cudaGetLastError());
  check_device("  device after h2d with an error pending", dev, n, 51);
  MUST(cudaFree(dev));
}

void capture() {
  const std::size_t n = std::size_t{2} << 20;
  unsigned char* dev = nullptr;
  MUST(cudaMalloc(&dev, n));
  std::vector<unsigned char> host(n);
  cudaStream_t s = nullptr;
  MUST(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  say("begin capture", cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  say("pageable h2d while capturing",
      cudaMemcpyAsync(dev, host.data(), n, cudaMemcpyHostToDevice, s));
  cudaGraph_t g = nullptr;
  say("end capture", cudaStreamEndCapture(s, &g));
  if (g != nullptr) MUST(cudaGraphDestroy(g));
  say("  cudaGetLastError", cudaGetLastError());
  MUST(cudaStreamDestroy(s));
  MUST(cudaFree(dev));
}

// Four threads at once, each on a stream of its own and on its per-thread default stream.
void threads(bool quick) {
  std::vector<std::thread> team;
  std::vector<std::string> lines(4);
  for (int t = 0; t < 4; ++t) {
    team.emplace_back([t, quick, &lines] {
      cudaStream_t s = nullptr;
      MUST(cudaStreamCreate(&s));
      const std::size_t sizes[] = {(std::size_t{1} << 20) + 3, (std::size_t{8} << 20) + 1,
                                   (std::size_t{33} << 20) + 7};
      std::string out;
      for (std::size_t n : sizes) {
        if (quick && n > (std::size_t{8} << 20) + 1) continue;
        for (cudaStream_t on : {s, cudaStreamPerThread}) {
          std::vector<unsigned char> a(n + 5), b(n + 5);
          unsigned char* dev = nullptr;
          MUST(cudaMalloc(&dev, n + 2));
          const unsigned seed = static_cast<unsigned>(t * 10 + (on == s ? 1 : 2));
          fill(a.data() + 5, n, seed);
          const cudaError_t e1 =
              cudaMemcpyAsync(dev + 1, a.data() + 5, n, cudaMemcpyHostToDevice, on);
          const cudaError_t e2 =
              cudaMemcpyAsync(b.data() + 5, dev + 1, n, cudaMemcpyDeviceToHost, on);
          const bool ok = first_wrong(b.data() + 5, n, seed) == n;
          if (!ok) g_failures.fetch_add(1);
          out += "thread " + std::to_string(t) + " " + std::to_string(n) + " B " +
                 (on == s ? "own stream" : "per-thread stream") + ": " + cudaGetErrorName(e1) +
                 ", " + cudaGetErrorName(e2) + (ok ? ", bytes ok\n" : ", MISMATCH\n");
          MUST(cudaStreamSynchronize(on));
          MUST(cudaFree(dev));
        }
      }
      MUST(cudaStreamDestroy(s));
      lines[static_cast<std::size_t>(t)] = out;
    });
  }
  for (std::thread& t : team) t.join();
  for (const std::string& l : lines) std::fputs(l.c_str(), stdout);
}

// A forked child (no exec) copies with its parent's CUDA state: whatever the runtime makes of
// that, it must make it with accel too.
void forked_child() {
  const std::size_t n = std::size_t{4} << 20;
  std::vector<unsigned char> host(n);
  unsigned char* dev = nullptr;
  MUST(cudaMalloc(&dev, n));
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid == 0) {
    const cudaError_t e = cudaMemcpy(dev, host.data(), n, cudaMemcpyHostToDevice);
    std::printf("forked child's h2d: %s\n", cudaGetErrorName(e));
    std::fflush(stdout);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  std::printf("forked child ended: %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  MUST(cudaFree(dev));
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  MUST(cudaSetDevice(0));
#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
  std::printf("default stream: per-thread\n");
#else
  std::printf("default stream: legacy\n");
#endif
  cudaStream_t s = nullptr;
  MUST(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const std::size_t sizes[] = {1,
                               4096,
                               (std::size_t{256} << 10) - 1,
                               std::size_t{512} << 10,
                               (std::size_t{1} << 20) + 3,
                               (std::size_t{8} << 20) + 1,
                               (std::size_t{64} << 20) + 5,
                               std::size_t{256} << 20,
                               std::size_t{1} << 30};
  for (std::size_t n : sizes) {
    if (quick && n > (std::size_t{64} << 20) + 5) continue;
    copies_at(n, s, "a stream");
    if (n == ((std::size_t{8} << 20) + 1)) copies_at(n, nullptr, "the default stream");
  }
  cudaStream_t blocking = nullptr;
  MUST(cudaStreamCreate(&blocking));
  ordering(s, s, s, "on one stream");
  ordering(nullptr, nullptr, nullptr, "on the default stream");
  ordering(blocking, cudaStreamLegacy, blocking,
           "on the legacy stream between a blocking one's work");
  two_d();
  other_memory();
  errors();
  capture();
  threads(quick);
  forked_child();
  MUST(cudaStreamDestroy(blocking));
  MUST(cudaStreamDestroy(s));
  const int failures = g_failures.load();
  std::printf("accel_program: %s\n", failures == 0 ? "every byte right" : "BYTES WRONG");
  return failures == 0 ? 0 : 1;
}
