// `pinbench trace-check DIR`: prediction 4 judged from the CSV files that
// `nsys stats --format csv -o PREFIX` wrote, for anyone who captured the page's program (or
// pinbench) with Nsight Systems. Exit 0 when the prediction held, 1 when it died, 2 when the
// exports are missing, unreadable, or cannot answer.
#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "cli/command_help.hpp"
#include "cli/commands.hpp"
#include "cli/numbers.hpp"
#include "experiments/lesson/nsys_stats.hpp"
#include "experiments/lesson/prediction4.hpp"
#include "framework/errors.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::lesson {
namespace {

struct TraceCheckOptions {
  std::string dir;
  std::string prefix;
  int timed = 10;
};

std::string selection_text(const Prediction4Evidence& e, int timed) {
  switch (e.selection) {
    case Selection::kNvtxRanges:
      return "the cudaMemcpyAsync calls inside part 2's NVTX ranges; the first of each range is "
             "the warm-up";
    case Selection::kMemoryKinds:
      return fmt::format(
          "cuda_gpu_trace's memory kinds: the host-to-device cudaMemcpyAsync copies whose source "
          "the driver saw as pageable, and those it saw as pinned; in each, the first is the "
          "warm-up and the next {} are timed",
          timed);
    case Selection::kPageRule:
      return fmt::format(
          "the page's rule (the API trace alone): part 2's copies are the only {} cudaMemcpyAsync "
          "calls, {} per source, pageable first; the first of each is the warm-up",
          2 * (timed + 1), timed + 1);
  }
  return "";
}

std::string bytes_line(std::optional<std::uint64_t> bytes) {
  return bytes ? fmt::format("{} ({} B)", format_size(*bytes), *bytes) : std::string("unknown");
}

int run(const TraceCheckOptions& o) {
  if (o.timed < 1) throw InputError("--timed must be at least 1");
  const NsysExport x = load_nsys_export(o.dir, o.prefix);
  Prediction4Options options;
  options.timed = o.timed;
  const Prediction4Evidence e = select_prediction4(x.trace, options);
  const Prediction4Judgement j = judge_prediction4(e);
  if (!j.ratio) {
    throw InputError(
        fmt::format("the exports in '{}' cannot answer prediction 4: {}", o.dir, j.reason));
  }

  std::string reports;
  for (const auto& [report, path] : x.files) {
    reports += fmt::format("{}{}", reports.empty() ? "" : ", ", report_name(report));
  }
  std::printf("nsys exports '%s' in %s: %s.\n", x.prefix.c_str(), o.dir.c_str(), reports.c_str());
  std::printf("Calls chosen by %s.\n\n", selection_text(e, o.timed).c_str());

  std::puts(
      "Prediction 4: the timed pageable cudaMemcpyAsync calls of part 2 cost at least 5x the "
      "call time of the timed pinned ones, while both groups move the same bytes.");
  std::printf("  pageable  %zu calls  %10.3f ms of call time\n", j.pageable_calls, j.pageable_ms);
  std::printf("  pinned    %zu calls  %10.3f ms of call time\n", j.pinned_calls, j.pinned_ms);
  std::printf("  ratio     %.1fx (the prediction needs at least 5x)\n", *j.ratio);
  if (j.bytes_equal) {
    std::printf("  bytes     %s: pageable %s, pinned %s\n", *j.bytes_equal ? "equal" : "DIFFER",
                bytes_line(e.pageable.bytes).c_str(), bytes_line(e.pinned.bytes).c_str());
  } else {
    std::puts(
        "  bytes     not checked: the API trace has no copy sizes (export cuda_gpu_trace "
        "too to check them)");
  }
  for (const SummaryRow& s : x.mem_size_sum) {
    if (memcpy_direction(s.name) != CopyDirection::kH2D) continue;
    std::printf("            %s: %llu copies, %.3f MB in all (cuda_gpu_mem_size_sum)\n",
                s.name.c_str(), static_cast<unsigned long long>(s.count), s.total_bytes / 1e6);
  }
  for (const SummaryRow& s : x.mem_time_sum) {
    if (memcpy_direction(s.name) != CopyDirection::kH2D) continue;
    std::printf("            %s: %llu copies, %.3f ms on the GPU (cuda_gpu_mem_time_sum)\n",
                s.name.c_str(), static_cast<unsigned long long>(s.count), s.total_ns / 1e6);
  }
  if (!x.nvtx_sum.empty()) {
    std::string ranges;
    for (const SummaryRow& s : x.nvtx_sum) {
      ranges += fmt::format("{}'{}' x{}", ranges.empty() ? "" : ", ", s.name, s.count);
    }
    std::printf("  NVTX      %s (nvtx_sum)\n", ranges.c_str());
  }
  for (const std::string& n : e.notes) std::printf("  note      %s\n", n.c_str());
  std::printf("  verdict   %s\n", verdict_word(j.verdict, Judged::kPrediction));
  return j.verdict == Verdict::kHeld ? 0 : 1;
}

}  // namespace

Command add_trace_check(CLI::App& app) {
  auto opts = std::make_shared<TraceCheckOptions>();
  CLI::App* sub = add_command(app, "trace-check");
  sub->add_option("dir", opts->dir, "Folder holding the exports")->required()->type_name("DIR");
  sub->add_option("--prefix", opts->prefix,
                  "The exports' prefix, when DIR holds more than one capture")
      ->type_name("NAME");
  whole<int>(
      sub->add_option("--timed", opts->timed, "Timed calls per source after the one warm-up"), 1)
      ->capture_default_str()
      ->type_name("N");
  return {sub, [opts] { return run(*opts); }};
}

}  // namespace pinbench::experiments::lesson
