#include "trace_fixtures.hpp"

#include <string>

namespace pinbench::test {
namespace {

class Builder {
 public:
  explicit Builder(bool ranges) : ranges_(ranges) { t_.source = "hand-made"; }

  void open(const std::string& name) {
    open_name_ = name;
    open_at_ = now_;
    now_ += 1000;
  }
  void close() {
    if (ranges_) t_.ranges.push_back({open_name_, "pinbench", open_at_, now_, kThread});
    now_ += 1000;
  }

  // A call that starts a copy; the copy runs on `stream` right after the call begins.
  void copy(const char* api, std::int64_t call_ns, CopyDirection d, DriverMemoryKind src,
            DriverMemoryKind dst, std::uint64_t bytes, std::uint32_t stream = 13) {
    const std::uint32_t corr = next_corr_++;
    t_.api_calls.push_back({api, now_, now_ + call_ns, kThread, corr});
    t_.copies.push_back({d, bytes, now_ + 2000, now_ + 2000 + 1'000'000, stream, src, dst, corr});
    now_ += call_ns + 1'010'000;
  }
  void call(const char* api, std::int64_t call_ns) {
    t_.api_calls.push_back({api, now_, now_ + call_ns, kThread, next_corr_++});
    now_ += call_ns + 500;
  }
  void kernel(const char* name) {
    const std::uint32_t corr = next_corr_++;
    t_.api_calls.push_back({"cudaLaunchKernel", now_, now_ + 4000, kThread, corr});
    t_.kernels.push_back({name, now_ + 5000, now_ + 55000, 14, corr});
    now_ += 60000;
  }

  Trace take() { return std::move(t_); }

 private:
  static constexpr std::uint32_t kThread = 777;
  bool ranges_;
  Trace t_;
  std::int64_t now_ = 1'000'000;
  std::uint32_t next_corr_ = 1;
  std::string open_name_;
  std::int64_t open_at_ = 0;
};

}  // namespace

Trace lesson_trace(const LessonTraceSpec& s) {
  using K = DriverMemoryKind;
  using D = CopyDirection;
  Builder b(s.ranges);
  const auto host_kind = [&](bool pinned) { return pinned ? s.pinned_seen_as : K::kPageable; };

  // Part 1, one size: gate, one warm-up, one timed copy; read-backs through the pinned check
  // buffer for host to device.
  for (const bool h2d : {true, false}) {
    for (const bool pinned : {false, true}) {
      b.open(std::string("part1 ") + (h2d ? "h2d " : "d2h ") + (pinned ? "pinned" : "pageable"));
      for (int i = 0; i < 3; ++i) {
        if (h2d) {
          b.copy("cudaMemcpy", 500'000, D::kH2D, host_kind(pinned), K::kDevice, s.bytes, 7);
        } else {
          b.copy("cudaMemcpy", 500'000, D::kD2H, K::kDevice, host_kind(pinned), s.bytes, 7);
        }
        if (h2d && i != 1)
          b.copy("cudaMemcpy", 400'000, D::kD2H, K::kDevice, K::kPinned, s.bytes, 7);
      }
      b.close();
    }
  }

  // Part 2.
  for (const bool h2d : {true, false}) {
    for (const bool pinned : {false, true}) {
      b.open(std::string("part2 async ") + (h2d ? "h2d " : "d2h ") +
             (pinned ? "pinned" : "pageable"));
      const std::uint64_t bytes = pinned ? s.pinned_bytes : s.bytes;
      if (!h2d) b.copy("cudaMemcpyAsync", 9'000'000, D::kH2D, K::kPageable, K::kDevice, bytes);
      const std::int64_t call_ns = pinned ? s.pinned_call_ns : s.pageable_call_ns;
      for (int i = 0; i < 1 + s.timed; ++i) {
        if (h2d) {
          b.copy("cudaMemcpyAsync", call_ns, D::kH2D, host_kind(pinned), K::kDevice, bytes);
        } else {
          b.copy("cudaMemcpyAsync", call_ns, D::kD2H, K::kDevice, host_kind(pinned), bytes);
        }
        b.call("cudaStreamSynchronize", 1'000'000);
        // The gate's read-back after the warm-up, through the pinned check buffer.
        if (h2d && i == 0) b.copy("cudaMemcpyAsync", 9'000, D::kD2H, K::kDevice, K::kPinned, bytes);
      }
      if (h2d) b.copy("cudaMemcpyAsync", 9'000, D::kD2H, K::kDevice, K::kPinned, bytes);
      b.close();
    }
  }

  // Part 3: the resident input's set-up copy from pageable memory, then kernels.
  b.copy("cudaMemcpyAsync", 9'000'000, D::kH2D, K::kPageable, K::kDevice, s.bytes);
  b.open("part3 kernel device-resident");
  for (int i = 0; i < 3; ++i) b.kernel("scale_copy(float const*, float*, unsigned long, float)");
  b.close();
  return b.take();
}

}  // namespace pinbench::test
