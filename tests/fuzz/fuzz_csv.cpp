// libFuzzer target: any bytes, read as each nsys report and then judged as prediction 4. The
// only acceptable failure is InputError (one clear line, exit 2 in the CLI); anything else, a
// crash or a sanitizer report, is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "experiments/lesson/nsys_stats.hpp"
#include "experiments/lesson/prediction4.hpp"
#include "framework/by_experiment.hpp"
#include "framework/csv_reader.hpp"
#include "framework/errors.hpp"
#include "framework/trace_gates.hpp"

namespace {

template <typename F>
void tolerate_bad_input(F&& f) {
  try {
    f();
  } catch (const pinbench::InputError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pinbench;
  using namespace pinbench::experiments::lesson;
  const std::string text(reinterpret_cast<const char*>(data), size);
  tolerate_bad_input([&] { parse_csv(text, "fuzz.csv"); });
  Trace trace;
  tolerate_bad_input([&] { trace.api_calls = parse_api_trace(text, "fuzz.csv"); });
  tolerate_bad_input([&] { trace.copies = parse_gpu_trace(text, "fuzz.csv", &trace.kernels); });
  for (NsysReport r : {NsysReport::kApiSum, NsysReport::kMemTimeSum, NsysReport::kMemSizeSum,
                       NsysReport::kNvtxSum}) {
    tolerate_bad_input([&] { parse_summary(text, "fuzz.csv", r); });
  }
  // Whatever was read goes on through the judgement, as trace-check would take it.
  const Prediction4Evidence e = select_prediction4(trace);
  judge_prediction4(e);
  prediction4_claim(e);
  check_memory_kinds(trace, range_gates());
  return 0;
}
