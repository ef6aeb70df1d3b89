// libFuzzer target: a trace built from any bytes (any names, times, ids and kinds) must become
// Chrome trace JSON that parses back with every event, and its prediction 4 evidence must
// survive the run record's JSON. Anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include <nlohmann/json.hpp>

#include "experiments/lesson/prediction4.hpp"
#include "framework/by_experiment.hpp"
#include "framework/render/perfetto.hpp"
#include "framework/trace_gates.hpp"
#include "framework/trace_model.hpp"

namespace {

// Reads typed values off the front of the input; zeros once it runs out.
class Bytes {
 public:
  Bytes(const std::uint8_t* data, std::size_t size) : p_(data), n_(size) {}

  template <typename T>
  T take() {
    T v{};
    const std::size_t k = n_ < sizeof(T) ? n_ : sizeof(T);
    std::memcpy(&v, p_, k);
    p_ += k;
    n_ -= k;
    return v;
  }
  std::string text() {
    const std::size_t len = take<std::uint8_t>() % 24;
    const std::size_t k = n_ < len ? n_ : len;
    std::string s(reinterpret_cast<const char*>(p_), k);
    p_ += k;
    n_ -= k;
    return s;
  }
  // Names the lesson uses, or anything at all.
  std::string name() {
    static const char* kKnown[] = {"cudaMemcpyAsync",          "cudaMemcpy",
                                   "part2 async h2d pageable", "part2 async h2d pinned",
                                   "part1 d2h pinned",         "part2 async d2h pageable"};
    const std::uint8_t pick = take<std::uint8_t>();
    return pick < 6 * 32 ? kKnown[pick % 6] : text();
  }
  // Small times most of the time, so ranges contain calls; sometimes the extremes.
  std::int64_t time() {
    const std::uint8_t mode = take<std::uint8_t>();
    const auto raw = take<std::int64_t>();
    return mode < 224 ? static_cast<std::int64_t>(static_cast<std::uint64_t>(raw) % 100000) : raw;
  }
  std::uint32_t small_id() { return take<std::uint8_t>() % 16; }
  bool empty() const { return n_ == 0; }

 private:
  const std::uint8_t* p_;
  std::size_t n_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pinbench;
  using namespace pinbench::experiments::lesson;
  Bytes in(data, size);
  Trace t;
  t.source = in.text();
  t.origin_ns = in.time();
  t.dropped_records = in.take<std::uint8_t>();
  while (!in.empty() && t.api_calls.size() + t.copies.size() + t.ranges.size() < 4000) {
    switch (in.take<std::uint8_t>() % 4) {
      case 0:
        t.api_calls.push_back({in.name(), in.time(), in.time(), in.small_id(), in.small_id()});
        break;
      case 1:
        t.copies.push_back({static_cast<CopyDirection>(in.take<std::uint8_t>() % 6),
                            in.take<std::uint32_t>(), in.time(), in.time(), in.small_id(),
                            static_cast<DriverMemoryKind>(in.take<std::uint8_t>() % 6),
                            static_cast<DriverMemoryKind>(in.take<std::uint8_t>() % 6),
                            in.small_id()});
        break;
      case 2:
        t.kernels.push_back({in.text(), in.time(), in.time(), in.small_id(), in.small_id()});
        break;
      default:
        t.ranges.push_back({in.name(), in.text(), in.time(), in.time(), in.small_id()});
        break;
    }
  }

  const std::string text = perfetto_text(t);
  const nlohmann::json doc = nlohmann::json::parse(text);  // throws, and so fails, if invalid
  std::size_t slices = 0;
  for (const nlohmann::json& e : doc.at("traceEvents")) slices += e.at("ph") == "X" ? 1 : 0;
  if (slices != t.api_calls.size() + t.copies.size() + t.kernels.size() + t.ranges.size()) {
    std::abort();
  }

  const Prediction4Evidence e = select_prediction4(t);
  const nlohmann::json j = to_json(e);
  const nlohmann::json back = to_json(prediction4_from_json(
      nlohmann::json::parse(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))));
  if (back["pageable"] != j["pageable"] || back["pinned"] != j["pinned"]) std::abort();
  judge_prediction4(e);
  check_memory_kinds(t, range_gates());
  return 0;
}
