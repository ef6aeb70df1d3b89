// Benchmark, not a test: how fast the nsys CSV reader goes and how much memory it holds, on an
// export as large as a long capture writes. Generate one with scripts/bench/gen-nsys-trace.py, then
//   /usr/bin/time -v build/tests/bench_nsys gpu DIR/bench_cuda_gpu_trace.csv
//   /usr/bin/time -v build/tests/bench_nsys api DIR/bench_cuda_api_trace.csv
// One report per run, so the peak resident size (printed, and /usr/bin/time's "Maximum resident
// set size") belongs to that file alone. docs/methodology.md quotes the figures.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "experiments/lesson/nsys_stats.hpp"
#include "framework/csv_reader.hpp"
#include "framework/errors.hpp"

int main(int argc, char** argv) {
  using namespace pinbench;
  using namespace pinbench::experiments::lesson;
  if (argc != 3 || (std::strcmp(argv[1], "gpu") != 0 && std::strcmp(argv[1], "api") != 0)) {
    std::fprintf(stderr, "usage: bench_nsys gpu|api FILE\n");
    return 2;
  }
  try {
    const auto start = std::chrono::steady_clock::now();
    std::size_t rows = 0;
    std::size_t file_bytes = 0;
    {
      const std::string text = read_text_file(argv[2]);
      file_bytes = text.size();
      if (std::strcmp(argv[1], "gpu") == 0) {
        std::vector<Kernel> kernels;
        rows = parse_gpu_trace(text, argv[2], &kernels).size();
        rows += kernels.size();
      } else {
        rows = parse_api_trace(text, argv[2]).size();
      }
    }
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    const double mib = static_cast<double>(file_bytes) / (1 << 20);
    const double peak_mib = static_cast<double>(ru.ru_maxrss) / 1024.0;
    std::printf(
        "%s: %zu rows, %.1f MiB in %.2f s: %.0f rows/s, %.1f MiB/s; peak RSS %.1f MiB = %.2fx "
        "the file\n",
        argv[1], rows, mib, s, static_cast<double>(rows) / s, mib / s, peak_mib, peak_mib / mib);
  } catch (const InputError& e) {
    std::fprintf(stderr, "bench_nsys: error: %s\n", e.what());
    return 2;
  }
  return 0;
}
