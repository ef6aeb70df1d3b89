// `pinbench pin`'s measurement on a real GPU, small: every way of pinning gets page-locked memory
// whose copies deliver every byte, the arena's copies included (split where its chunks meet); the
// neighbour's steps are counted around each pin; a size past the host's limits is refused,
// named, and never attempted.
#include <algorithm>
#include <cstdint>
#include <string>

#include "experiments/pin/measure.hpp"
#include "framework/units.hpp"
#include "gpu_test.hpp"

namespace pinbench {
using namespace experiments::pin;
namespace {

PinConfig small_pin() {
  PinConfig c;
  c.sizes = {256 * kMiB, 96 * kMiB + 4096 * 3};  // the second is no multiple of a chunk
  c.methods = {kPinHostAlloc, kPinRegister, kPinRegisterThp, kPinArena};
  c.arena_chunks = {32 * kMiB};
  c.arena_threads = {4};
  c.copy_bytes = 80 * kMiB;  // crosses two of the arena's chunk boundaries
  c.neighbour_interval_us = 2000;
  c.neighbour_program = test::beside_this_binary("pinbench_neighbour", PINBENCH_NEIGHBOUR_FALLBACK);
  return c;
}

TEST(GpuPin, EveryWayPinsAndItsCopiesDeliverEveryByte) {
  PINBENCH_REQUIRE_GPU();
  const RunRecord r = run_pin(small_pin());
  for (const Gate& g : r.gates) EXPECT_TRUE(g.passed) << g.name << ": " << g.detail;
  for (const char* method : {kPinHostAlloc, kPinRegister, kPinRegisterThp, kPinArena}) {
    std::size_t pins = 0, copies = 0;
    for (const Case& c : r.cases) {
      if (c.method != method) continue;
      if (c.part == "pin") {
        ++pins;
        ASSERT_EQ(c.samples_ms.size(), 1u) << c.gate;
        EXPECT_GT(c.samples_ms[0], 0.0) << c.gate;
        EXPECT_LE(c.extra.at("first_gib_ms").get<double>(), c.samples_ms[0] + 1e-9) << c.gate;
        EXPECT_GE(c.extra.at("nb_calls").get<double>(), 1.0) << c.gate;
        EXPECT_GE(c.extra.at("nb_max_ms").get<double>(), c.extra.at("nb_p50_ms").get<double>());
      } else {
        EXPECT_EQ(c.part, "copy");
        EXPECT_EQ(c.bytes, 80 * kMiB);
        EXPECT_TRUE(c.verified) << c.gate;
        ++copies;
      }
    }
    EXPECT_EQ(pins, 2u) << method;
    EXPECT_EQ(copies, 2u) << method;  // both directions, at the larger size only
  }
  const nlohmann::json& s = r.sections.at("pin");
  EXPECT_GE(s.at("neighbour_idle").at("calls").get<int>(), 100);
  EXPECT_TRUE(s.at("refused").empty());
}

TEST(GpuPin, ASizePastTheHostsMemoryIsRefusedAndNeverAttempted) {
  PINBENCH_REQUIRE_GPU();
  PinConfig c = small_pin();
  c.sizes = {std::uint64_t{1} << 50};
  c.neighbour_interval_us = 0;
  const RunRecord r = run_pin(c);
  EXPECT_TRUE(r.cases.empty());
  const nlohmann::json& refused = r.sections.at("pin").at("refused");
  ASSERT_EQ(refused.size(), 4u);
  for (const auto& line : refused) {
    EXPECT_NE(line.at("why").get<std::string>().find("MemAvailable"), std::string::npos)
        << line.dump();
  }
}

}  // namespace
}  // namespace pinbench
