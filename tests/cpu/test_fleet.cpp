// check, host and fleet analysis on hand-made records and, where one is committed, the H200's:
// floors (defaults, the file, flags), the round trip's percentiles, the outlier rule, links below
// their max, duplicates, bad records, the MPI gathering, and the CLI's exit codes.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/pin_limits.hpp"
#include "experiments/check/analysis.hpp"
#include "experiments/check/fleet/analysis.hpp"
#include "experiments/check/pin_check.hpp"
#include "experiments/check/prometheus.hpp"
#include "experiments/host/analysis.hpp"
#include "fixtures.hpp"
#include "framework/by_experiment.hpp"
#include "framework/errors.hpp"
#include "framework/host_info.hpp"
#include "framework/host_pin_facts.hpp"
#include "framework/input_limits.hpp"
#include "framework/printable.hpp"
#include "framework/render/csv.hpp"
#include "framework/render/html.hpp"
#include "framework/render/markdown.hpp"
#include "framework/render/text.hpp"
#include "framework/report_model.hpp"
#include "framework/run_library.hpp"
#include "framework/units.hpp"

namespace pinbench {
using namespace experiments::check;
using namespace experiments::host;
namespace {

const std::string kBin = std::string(PINBENCH_BINARY) + " ";

PcieLink link(int gen, int width) {
  PcieLink l;
  l.current_gen = l.max_gen = gen;
  l.current_width = l.max_width = width;
  l.current_speed = l.max_speed = "32.0 GT/s PCIe";
  return l;
}

// `ms` for 64 MiB: 1.2 ms is 55.9 GB/s.
Case rate_case(int gpu, const char* dir, const char* mem, double ms, const std::string& gate) {
  Case c;
  c.part = "check";
  c.direction = dir;
  c.memory = mem;
  c.method = "cudaMemcpyAsync";
  c.timing = "cuda_events";
  c.bytes = 64ull << 20;
  c.samples_ms = {ms, ms, ms};
  c.gate = gate;
  c.verified = true;
  c.stop = StopReason::kSpread;
  c.extra["gpu"] = gpu;
  return c;
}

// One host's check: `pinned_ms` per GPU (1.2 ms: about 56 GB/s), pageable 8 ms (8.4 GB/s),
// round trips of 20 us with one of 100 us.
RunRecord check_record(const std::string& host, const std::vector<double>& pinned_ms,
                       const std::string& uuid_prefix = "GPU-aaaa") {
  RunRecord r;
  r.experiment = "check";
  r.pinbench_version = "test";
  r.created_utc = "2026-12-01T10:00:00Z";
  r.machine.hostname = host;
  r.machine.device_name = "NVIDIA H200";
  r.config["floors"] = to_json(CheckFloors{});
  for (std::size_t i = 0; i < pinned_ms.size(); ++i) {
    GpuInfo g;
    g.index = static_cast<int>(i);
    g.name = "NVIDIA H200";
    g.uuid = fmt::format("{}-{}", uuid_prefix, i);
    g.pci_bus_id = fmt::format("0000:{:02x}:00.0", i);
    g.pcie = g.pcie_loaded = link(5, 16);
    g.loaded_read = true;
    r.machine.gpus.push_back(g);
    const std::string gate = fmt::format("check/gpu{}/pinned", i);
    r.gates.push_back({gate, true, "ok"});
    r.gates.push_back({gate + "/pageable", true, "ok"});
    r.gates.push_back({gate + "/rt", true, "ok"});
    r.cases.push_back(rate_case(g.index, "h2d", "pinned", pinned_ms[i], gate));
    r.cases.push_back(rate_case(g.index, "d2h", "pinned", pinned_ms[i], gate));
    r.cases.push_back(rate_case(g.index, "h2d", "pageable", 8.0, gate + "/pageable"));
    r.cases.push_back(rate_case(g.index, "d2h", "pageable", 8.0, gate + "/pageable"));
    Case rt = rate_case(g.index, "round_trip", "pinned", 0.02, gate + "/rt");
    rt.bytes = 4096;
    rt.timing = "host_clock";
    rt.samples_ms.assign(99, 0.02);
    rt.samples_ms.push_back(0.1);
    r.cases.push_back(rt);
  }
  return r;
}

TEST(CheckFloors, DefaultsAreSharesOfTheLink) {
  EXPECT_NEAR(pcie_link_gb_per_s(5, 16), 63.015, 1e-3);
  EXPECT_NEAR(pcie_link_gb_per_s(4, 16), 31.508, 1e-3);
  EXPECT_NEAR(pcie_link_gb_per_s(1, 1), 0.25, 1e-9);
  EXPECT_NEAR(pcie_link_gb_per_s(6, 16), 121.0, 1e-9);
  EXPECT_EQ(pcie_link_gb_per_s(0, 16), 0.0);
  EXPECT_EQ(pcie_link_gb_per_s(7, 16), 0.0);
  const CheckAnalysis a = analyse_check(check_record("h", {1.2}));
  ASSERT_EQ(a.gpus.size(), 1u);
  const CheckItem& pinned = a.gpus[0].items[1];
  EXPECT_EQ(pinned.check, "pinned h2d");
  EXPECT_NE(pinned.limit_text.find("47.26 GB/s (75% of gen 5 x16"), std::string::npos)
      << pinned.limit_text;
  EXPECT_TRUE(a.passed()) << a.failures().front();
  // One GPU has no peers: not judged, and not a failure.
  EXPECT_FALSE(a.gpus[0].items.back().judged);
}

// The floors in words, as the check's report prints them: no JSON.
TEST(CheckFloors, AreSaidInWords) {
  CheckFloors f;
  EXPECT_EQ(floors_words(f),
            "pinned at least 75% and pageable at least 5% of the link's rate at its maximum "
            "generation and width; 4 KiB round trip p50 at most 50 µs, p99 at most 250 µs; each "
            "GPU's pinned rates within 10% of its host's medians; pinning at least 0.5 GB/s");
  f.pinned_h2d_gb_per_s = 40.0;
  f.pageable_share = 0.07;
  EXPECT_EQ(floors_words(f).rfind(
                "pinned h2d at least 40 GB/s, pinned d2h at least 75% of the link's rate, "
                "pageable at least 7% of the link's rate (the link's rate at its maximum "
                "generation and width); 4 KiB round trip p50 at most 50 µs,",
                0),
            0u)
      << floors_words(f);
  const ReportModel m = analyse(check_record("n1", {1.2}, "GPU-1"));
  bool said = false;
  for (const std::string& n : m.notes) {
    if (n.rfind("Floors (docs/fleet.md): ", 0) != 0) continue;
    said = true;
    EXPECT_EQ(n.find('{'), std::string::npos) << n;
    EXPECT_NE(n.find("pinned at least 75%"), std::string::npos) << n;
  }
  EXPECT_TRUE(said);
}

TEST(CheckFloors, FileAndFlags) {
  CheckFloors f;
  apply_floors_text(f,
                    "# our fleet\n"
                    "pinned_h2d_gb_per_s = 50   # Azure warns below 50.4\n"
                    "\n"
                    "  round_trip_p99_us=300\n"
                    "peer_margin = 0.05\n",
                    "floors.txt");
  EXPECT_EQ(f.pinned_h2d_gb_per_s, 50.0);
  EXPECT_EQ(f.round_trip_p99_us, 300.0);
  EXPECT_EQ(f.peer_margin, 0.05);
  EXPECT_FALSE(f.pinned_d2h_gb_per_s.has_value());
  const auto refused = [](const std::string& text, const std::string& says) {
    CheckFloors g;
    try {
      apply_floors_text(g, text, "f");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  refused("pinned_share = 1.5\n", "floors file 'f' line 1: 'pinned_share' = 1.5: is a share");
  refused("\nmin_rate = 3\n", "line 2: unknown key 'min_rate'");
  refused("pinned_share\n", "is not KEY = VALUE");
  refused("round_trip_p50_us = fast\n", "'fast' is not a number");
  refused("round_trip_p50_us = 10us\n", "'10us' is not a number");
  refused("pageable_h2d_gb_per_s = 0\n", "must be positive");
  refused("peer_margin = 0.1\npeer_margin = 0.2\n", "line 2: 'peer_margin' is set twice");
  refused("pin_gb_per_s = 0\n", "must be positive");
  CheckFloors pin;
  apply_floors_text(pin, "pin_gb_per_s = 1.5\n", "f");
  EXPECT_EQ(pin.pin_gb_per_s, 1.5);
  EXPECT_EQ(floors_from_json(to_json(pin)).pin_gb_per_s, 1.5);
  CheckFloors g;
  apply_floor(g, "pageable_share", 0.1, "--pageable-share");
  EXPECT_EQ(g.pageable_share, 0.1);
  EXPECT_THROW(apply_floor(g, "pageable_share", -1, "--pageable-share"), InputError);
  // Floors round-trip through the record's config.
  const CheckFloors back = floors_from_json(to_json(f));
  EXPECT_EQ(back.pinned_h2d_gb_per_s, 50.0);
  EXPECT_EQ(back.peer_margin, 0.05);
  EXPECT_THROW(floors_from_json({{"pinned_share", 2.0}}), InputError);
  EXPECT_THROW(floors_from_json({{"what", 2.0}}), InputError);
}

TEST(CheckAnalysis, PercentilesAreNearestRank) {
  EXPECT_EQ(percentile({5, 1, 4, 2, 3}, 0.5), 3);
  EXPECT_EQ(percentile({1, 2, 3, 4}, 0.5), 2);
  std::vector<double> hundred;
  for (int i = 1; i <= 100; ++i) hundred.push_back(i);
  EXPECT_EQ(percentile(hundred, 0.99), 99);
  EXPECT_EQ(percentile(hundred, 1.0), 100);
  EXPECT_EQ(percentile({7}, 0.99), 7);
}

TEST(CheckAnalysis, FailuresNameTheGpuAndTheCheck) {
  // GPU 1 at half the rate: below the floor, and below its peers.
  RunRecord r = check_record("node7", {1.2, 2.4, 1.2});
  r.machine.gpus[2].pcie_loaded.current_gen = 3;  // its link trained down under load
  const CheckAnalysis a = analyse_check(r);
  EXPECT_FALSE(a.passed());
  const std::vector<std::string> f = a.failures();
  // GPU 1: both pinned rates and its peers; GPU 2: its link.
  ASSERT_EQ(f.size(), 4u);
  EXPECT_NE(f[0].find("host node7 GPU 1 (GPU-aaaa-1): pinned h2d 27.96 GB/s, not at least 47.26"),
            std::string::npos)
      << f[0];
  EXPECT_NE(f[2].find("GPU 1 (GPU-aaaa-1): peers"), std::string::npos) << f[2];
  EXPECT_NE(f[3].find("GPU 2 (GPU-aaaa-2): link gen 3 x16 under load, not its max, gen 5 x16"),
            std::string::npos)
      << f[3];
  // The round trip: p50 20 us, p99 20 us (99 of 100 at 20), under the ceilings.
  EXPECT_NEAR(*a.gpus[0].round_trip_p50_us, 20.0, 1e-9);
  EXPECT_NEAR(*a.gpus[0].round_trip_p99_us, 20.0, 1e-9);
  // And the report model lists every failure, so the exit code is 1.
  const ReportModel m = analyse(r);
  EXPECT_EQ(m.check_failures.size(), 4u);
  EXPECT_NE(render_text(analyse(r)).find("FAILED: host node7 GPU 1"), std::string::npos);
}

TEST(CheckAnalysis, RecordRoundTripKeepsGpusAndLoadedLinks) {
  const RunRecord r = check_record("node7", {1.2, 1.25});
  const RunRecord back = record_from_json(to_json(r));
  ASSERT_EQ(back.machine.gpus.size(), 2u);
  EXPECT_EQ(back.machine.gpus[1].uuid, "GPU-aaaa-1");
  EXPECT_TRUE(back.machine.gpus[1].loaded_read);
  EXPECT_EQ(back.machine.hostname, "node7");
  EXPECT_TRUE(analyse_check(back).passed());
  // Two entries for one GPU are refused, naming the field.
  nlohmann::json j = to_json(r);
  j["machine"]["gpus"][1]["index"] = 0;
  try {
    record_from_json(j);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'machine.gpus[1].index' is 0, as gpus[0] is"),
              std::string::npos)
        << e.what();
  }
  j = to_json(r);
  j["config"]["floors"]["pinned_share"] = -1;
  EXPECT_THROW(record_from_json(j), InputError);
  // An unknown floor is refused when the record is read, not later by the analysis (the record
  // fuzzer found one inside a fleet record's member, which reached the report).
  j = to_json(r);
  j["config"]["floors"]["pinned_sahre"] = 0.5;
  try {
    record_from_json(j);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "run record: 'config.floors.pinned_sahre' is not a known floor");
  }
}

TEST(Fleet, OutlierRuleIsRobust) {
  // 55 ± a little, and one at 40: 3 scaled MADs is tiny here, so the 10% rule decides.
  const std::vector<double> g = {55.0, 55.2, 54.9, 55.1, 40.0};
  const auto t = outlier_test(40.0, g, false);
  ASSERT_TRUE(t);
  EXPECT_DOUBLE_EQ(t->median, 55.0);
  EXPECT_NEAR(t->scaled_mad, kMadScale * 0.1, 1e-12);
  EXPECT_DOUBLE_EQ(t->bound, 55.0 - 5.5);
  EXPECT_TRUE(t->outlier);
  EXPECT_FALSE(outlier_test(55.2, g, false)->outlier);
  // 5% low is inside 10%.
  EXPECT_FALSE(outlier_test(52.3, {55, 55, 55, 52.3}, false)->outlier);
  // A wide group: 3 scaled MADs is the bound, wider than 10%.
  const std::vector<double> wide = {40, 50, 60, 70, 80};
  const auto w = outlier_test(40, wide, false);
  EXPECT_DOUBLE_EQ(w->bound, 60 - 3 * kMadScale * 10);
  EXPECT_FALSE(w->outlier);
  // The round trip: higher is worse, 25%.
  EXPECT_TRUE(outlier_test(30, {20, 20, 21, 30}, true)->outlier);
  EXPECT_FALSE(outlier_test(24, {20, 20, 21, 24}, true)->outlier);
  // Fewer than 3: not judged.
  EXPECT_FALSE(outlier_test(1, {1, 100}, false).has_value());
}

TEST(Fleet, FlagsOutliersLinksFailuresAndDuplicates) {
  // Three hosts of 2 GPUs; node2's GPU 1 is slow (1.6 ms: 42 GB/s, below the floor too).
  std::vector<RunRecord> recs = {check_record("node1", {1.2, 1.21}, "GPU-1"),
                                 check_record("node2", {1.22, 1.6}, "GPU-2"),
                                 check_record("node3", {1.2, 1.2}, "GPU-3")};
  recs[2].machine.gpus[0].pcie_loaded.current_width = 8;
  // node1 sent twice, the second newer.
  RunRecord again = check_record("node1", {1.2, 1.21}, "GPU-1");
  again.created_utc = "2026-12-01T11:00:00Z";
  recs.push_back(again);
  const FleetAnalysis a = analyse_fleet(recs, {"a.json", "b.json", "c.json", "d.json"});
  ASSERT_EQ(a.gpus.size(), 6u);
  ASSERT_EQ(a.duplicates.size(), 2u);
  EXPECT_NE(a.duplicates[0].find("host node1 GPU 0 (GPU-1-0) is in a.json and d.json: counted "
                                 "once, from d.json"),
            std::string::npos)
      << a.duplicates[0];
  EXPECT_EQ(a.gpus[0].source, "d.json");
  const std::vector<std::string> flagged = a.flagged();
  const auto has = [&](const std::string& s) {
    for (const std::string& f : flagged) {
      if (f.find(s) != std::string::npos) return true;
    }
    return false;
  };
  EXPECT_TRUE(has("host node2 GPU 1 (GPU-2-1): outlier: pinned h2d 41.94 GB/s, below"));
  EXPECT_TRUE(has("host node2 GPU 1 (GPU-2-1): check failed: pinned h2d"));
  EXPECT_TRUE(has("host node3 GPU 0 (GPU-3-0): link gen 5 x8 under load, below its max gen 5 x16"));
  EXPECT_FALSE(has("node1"));
  // The model: a table row per GPU, every flag a failure (exit 1).
  const RunRecord fleet =
      make_fleet_record(fleet_members(recs, {"a.json", "b.json", "c.json", "d.json"}), "me");
  const RunRecord back = record_from_json(to_json(fleet));
  EXPECT_TRUE(back.section("members").is_null());
  ASSERT_EQ(back.config["hosts"].size(), 4u);
  const ReportModel m = analyse(back);
  EXPECT_EQ(m.check_failures, flagged);
  EXPECT_EQ(m.tables.front().rows.size(), 6u);
  EXPECT_EQ(m.tables.front().rows[3][1], "1 *");
  // The same fleet held as its members whole (a fleet record of pinbench 0.1) prints the same.
  RunRecord whole = back;
  whole.config = {{"sources", {"a.json", "b.json", "c.json", "d.json"}}};
  nlohmann::json members = nlohmann::json::array();
  for (const RunRecord& rec : recs) members.push_back(to_json(rec));
  whole.sections["members"] = members;
  EXPECT_EQ(render_text(analyse(record_from_json(to_json(whole)))), render_text(analyse(back)));
}

// A fleet record keeps what the fleet analysis needs of each GPU, not its check record whole:
// a few hundred bytes a GPU, so 80,000 GPUs stay well inside what pinbench reads back.
TEST(Fleet, ARecordKeepsAFewHundredBytesAGpu) {
  std::vector<RunRecord> recs;
  std::vector<std::string> sources;
  for (int h = 0; h < 20; ++h) {
    RunRecord r = check_record(fmt::format("node{:05d}", h), std::vector<double>(8, 1.2),
                               fmt::format("GPU-{:08x}", h));
    recs.push_back(r);
    sources.push_back(fmt::format("checks/node{:05d}.json", h));
  }
  const std::string text = to_json(make_fleet_record(fleet_members(recs, sources), "me")).dump(1);
  EXPECT_LT(text.size() / 160, 400u) << text.size() << " bytes for 160 GPUs";
  EXPECT_LT(80000 * (text.size() / 160), kMaxRecordBytes);
  // A bad row is refused at load, naming it.
  nlohmann::json j = nlohmann::json::parse(text);
  j["config"]["hosts"][3]["gpus"][2][11] = "fast";
  try {
    record_from_json(j);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "run record: 'config.hosts[3].gpus[2][11]' (pinned_h2d) is not a figure");
  }
}

TEST(Fleet, SmallGroupsAreNotJudgedAndSaySo) {
  const FleetAnalysis a = analyse_fleet({check_record("n", {1.2, 1.9})}, {"x"});
  ASSERT_EQ(a.notes.size(), 1u);
  EXPECT_NE(a.notes[0].find("NVIDIA H200, gen 5 x16: 2 GPUs, too few to judge outliers"),
            std::string::npos);
  for (const FleetGpu& g : a.gpus) {
    for (const std::string& f : g.flags) EXPECT_EQ(f.find("outlier"), std::string::npos) << f;
  }
}

TEST(Fleet, RefusesRecordsThatAreNotChecks) {
  RunRecord other = check_record("n", {1.2});
  other.experiment = "sweep";
  try {
    analyse_fleet({check_record("n", {1.2}), other}, {"a.json", "b.json"});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'b.json' is a record of experiment 'sweep', not a check"),
              std::string::npos);
  }
  // A fleet inside a fleet is refused by the same rule.
  RunRecord f = make_fleet_record(fleet_members({check_record("n", {1.2})}, {"a"}), "me");
  EXPECT_THROW(analyse_fleet({f}, {"f.json"}), InputError);
}

TEST(Fleet, GatheringSplitsRanksAndRefusesWhatDoesNotAddUp) {
  EXPECT_EQ(split_gathered("abcdef", {1, 0, 5}), (std::vector<std::string>{"a", "", "bcdef"}));
  EXPECT_THROW(split_gathered("abc", {1, 1}), InputError);
  EXPECT_THROW(split_gathered("abc", {2, 2}), InputError);
  const std::string one = to_json(check_record("n1", {1.2})).dump();
  const std::string two = to_json(check_record("n2", {1.2})).dump();
  const RunRecord f =
      fleet_from_rank_texts(split_gathered(one + two, {one.size(), two.size()}), "n1");
  ASSERT_EQ(f.config["hosts"].size(), 2u);
  EXPECT_EQ(f.config["hosts"][1]["host"], "n2");
  EXPECT_EQ(f.config["sources"][1], "rank 1");
  try {
    fleet_from_rank_texts({one, "{\"schema\": 1}"}, "n1");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("rank 1 sent a record pinbench cannot use", 0), 0u)
        << e.what();
  }
  // A rank without a GPU still sends a check, and the fleet says so.
  RunRecord none = check_record("gpuless", {});
  none.config["no_gpu"] = "no CUDA driver on this machine";
  const FleetAnalysis a = analyse_fleet({none}, {"rank 0"});
  ASSERT_EQ(a.flagged().size(), 1u);
  EXPECT_EQ(a.flagged()[0], "host gpuless: no GPU checked (no CUDA driver on this machine)");
}

TEST(HostAnalysis, RatiosAndTheAggregate) {
  RunRecord r;
  r.experiment = "host";
  r.pinbench_version = "t";
  r.created_utc = "2026-12-01T10:00:00Z";
  r.gates.push_back({"g", true, ""});
  for (int i = 0; i < 2; ++i) {
    GpuInfo g;
    g.index = i;
    r.machine.gpus.push_back(g);
  }
  const auto add = [&](const char* part, int gpu, double ms, std::uint64_t bytes) {
    Case c = rate_case(gpu, "h2d", "pinned", ms, "g");
    c.part = part;
    c.bytes = bytes;
    if (gpu < 0) c.extra.erase("gpu");
    r.cases.push_back(c);
  };
  add("alone", 0, 1.0, 50'000'000);     // 50 GB/s
  add("alone", 1, 1.0, 50'000'000);     // 50
  add("together", 0, 2.0, 50'000'000);  // 25
  add("together", 1, 2.0, 50'000'000);  // 25
  add("aggregate", -1, 2.0, 100'000'000);
  const HostAnalysis a = analyse_host(record_from_json(to_json(r)));
  ASSERT_EQ(a.rows.size(), 3u);
  EXPECT_DOUBLE_EQ(*a.rows[0].ratio(), 0.5);
  EXPECT_EQ(a.rows[2].gpu, -1);
  EXPECT_DOUBLE_EQ(*a.rows[2].alone_gb_per_s, 100.0);
  EXPECT_DOUBLE_EQ(*a.rows[2].together_gb_per_s, 50.0);
  EXPECT_NE(render_text(analyse(r)).find("all (aggregate)"), std::string::npos);
  EXPECT_TRUE(a.peers.empty());
  // The chart: each GPU alone beside together, and the aggregate's pair.
  const ChartSpec chart = host_chart(a);
  EXPECT_EQ(chart.kind, ChartKind::kBars);
  ASSERT_EQ(chart.bars.size(), 6u);
  EXPECT_EQ(chart.bars[0].label, "GPU 0 pinned h2d alone");
  EXPECT_DOUBLE_EQ(*chart.bars[0].value, 50.0);
  EXPECT_EQ(chart.bars[1].label, "GPU 0 pinned h2d together");
  EXPECT_DOUBLE_EQ(*chart.bars[1].value, 25.0);
  EXPECT_EQ(chart.bars[4].label, "all GPUs pinned h2d alone (sum)");
  const ReportModel m = analyse(r);
  ASSERT_EQ(m.charts.size(), 1u);
  EXPECT_NE(render_html(r, m, {}).find("<figure id=\"host-alone-together\""), std::string::npos);

  // With two GPUs, the peer matrix: a row per ordered pair, without and with peer access.
  for (int access = 0; access < 2; ++access) {
    for (int from = 0; from < 2; ++from) {
      Case c = rate_case(from, "d2d", "device", access ? 1.0 : 4.0, "g");
      c.part = "peer";
      c.bytes = 50'000'000;
      c.extra["peer"] = 1 - from;
      c.extra["peer_access"] = access == 1;
      r.cases.push_back(c);
    }
  }
  const HostAnalysis p = analyse_host(record_from_json(to_json(r)));
  ASSERT_EQ(p.peers.size(), 4u);
  const std::vector<ReportTable> t = host_tables(p);
  ASSERT_EQ(t.size(), 2u);
  ASSERT_EQ(t[1].rows.size(), 2u);
  EXPECT_EQ(t[1].rows[0], (std::vector<std::string>{"0", "1", "12.50", "50.00"}));
  EXPECT_EQ(t[1].rows[1], (std::vector<std::string>{"1", "0", "12.50", "50.00"}));
}

// The committed H200 records, where there are: they replay, and a fleet of them is judged.
TEST(Fleet, CommittedH200Records) {
  const std::optional<std::string> check = newest_record(PINBENCH_DATA_DIR "/runs", "check");
  if (!check) GTEST_SKIP() << "no committed check record";
  const RunRecord r = load_record(*check);
  const CheckAnalysis a = analyse_check(r);
  ASSERT_FALSE(a.gpus.empty());
  EXPECT_TRUE(a.gpus[0].gpu.loaded_read);
  EXPECT_TRUE(a.gpus[0].pinned_h2d.has_value());
  const test::Result replay = test::run(kBin + "check --replay " + *check);
  EXPECT_EQ(replay.exit_code, a.passed() ? 0 : 1) << replay.err;
  EXPECT_NE(replay.out.find("pinbench check: "), std::string::npos);
  // The same file twice is one file; a copy of it elsewhere is one GPU, named as a duplicate.
  const test::Result once = test::run(kBin + "fleet " + *check + " " + *check);
  EXPECT_EQ(once.out.find("counted once"), std::string::npos) << once.out;
  const std::string copy = test::temp_dir() + "/copy.json";
  test::write_file(copy, test::read_file(*check));
  const test::Result fleet = test::run(kBin + "fleet " + *check + " " + copy);
  EXPECT_NE(fleet.out.find("counted once"), std::string::npos) << fleet.out;
}

// The generic text printer aligns a text column's header with its cells: the committed fleet
// record's UUID header starts where its UUIDs do, not 36 columns right of them.
TEST(Fleet, TextHeadersStandOverTheirData) {
  const std::optional<std::string> fleet = newest_record(PINBENCH_DATA_DIR "/runs", "fleet");
  if (!fleet) GTEST_SKIP() << "no committed fleet record";
  const std::string text = render_text(analyse(load_record(*fleet)));
  const std::size_t header = text.find("\n  host  GPU");
  ASSERT_NE(header, std::string::npos) << text;
  const std::size_t row = text.find('\n', text.find('\n', header + 1) + 1);  // past the rule
  const std::string head = text.substr(header + 1, text.find('\n', header + 1) - header - 1);
  const std::string data = text.substr(row + 1, text.find('\n', row + 1) - row - 1);
  EXPECT_EQ(head.find("UUID"), data.find("GPU-")) << head << "\n" << data;
  EXPECT_EQ(head.find("group"), data.find("NVIDIA")) << head << "\n" << data;
}

// Records from strangers: a folder's entries that are not files are named and never read; a
// host name's control characters reach neither the terminal nor the markdown raw, and a name a
// spreadsheet would run reaches the CSV as text.
TEST(FleetCli, RecordsFromStrangers) {
  const std::string dir = test::temp_dir();
  test::write_file(dir + "/a.json", to_json(check_record("n1", {1.2}, "GPU-1")).dump(1));
  test::write_file(
      dir + "/b.json",
      to_json(check_record("\x1b]0;owned\x07=HYPERLINK(\"http://evil/\")\r\x1b[2K", {1.2}, "GPU-2"))
          .dump(1));
  ASSERT_EQ(::mkfifo((dir + "/fifo.json").c_str(), 0644), 0);
  ASSERT_EQ(::symlink("/dev/zero", (dir + "/zero.json").c_str()), 0);
  const test::Result r =
      test::run("timeout 20 " + kBin + "fleet " + dir + " --json " + dir + "/fleet.out");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err,
            "pinbench fleet: skipped in '" + dir + "', not regular files: fifo.json, zero.json\n");
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('\r'), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\\x1B]0;owned\\x07"), std::string::npos) << r.out;
  const test::Result md = test::run(kBin + "report " + dir + "/fleet.out --markdown -");
  EXPECT_EQ(md.exit_code, 0) << md.err;
  EXPECT_EQ(md.out.find('\x1b'), std::string::npos);
  const test::Result csv = test::run(kBin + "report " + dir + "/fleet.out --csv -");
  EXPECT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.out.find(",=HYPERLINK"), std::string::npos);
  EXPECT_EQ(csv.out.find(",\"=HYPERLINK"), std::string::npos);
  // A closed pipe ends quietly, however much is still to print.
  const test::Result head = test::run("bash -c 'set -o pipefail; " + kBin + "fleet " + dir +
                                      " 2>/dev/null | head -c 1 >/dev/null'");
  EXPECT_EQ(head.exit_code, 0) << head.err;
  const test::Result full = test::run(kBin + "fleet " + dir + "/a.json > /dev/full");
  EXPECT_EQ(full.exit_code, 2);
  EXPECT_EQ(full.err,
            "pinbench: error: cannot write to standard output: No space left on device\n");
}

// A reader of Prometheus's text exposition format, strict where the textfile collector is: each
// sample's family declared by HELP and TYPE before it, its samples together, names and labels
// well formed, values numbers, no series twice. Returns "" or what is wrong, and the samples.
std::string parse_exposition(const std::string& text, std::map<std::string, double>* samples) {
  const std::regex name("[a-zA-Z_:][a-zA-Z0-9_:]*");
  const std::regex sample(
      R"(([a-zA-Z_:][a-zA-Z0-9_:]*)(\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*",?)*)\})? ([^ ]+))");
  std::set<std::string> helped, typed, finished;
  std::string current;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    std::smatch m;
    if (line.rfind("# HELP ", 0) == 0 || line.rfind("# TYPE ", 0) == 0) {
      const std::string rest = line.substr(7);
      const std::string family = rest.substr(0, rest.find(' '));
      if (!std::regex_match(family, name)) return fmt::format("line {}: bad name", n);
      (line[2] == 'H' ? helped : typed).insert(family);
      if (line[2] == 'T' && rest.substr(family.size()) != " gauge")
        return fmt::format("line {}: not a gauge", n);
      continue;
    }
    if (!std::regex_match(line, m, sample))
      return fmt::format("line {}: not a sample: {}", n, line);
    const std::string family = m[1];
    if (helped.count(family) == 0 || typed.count(family) == 0)
      return fmt::format("line {}: undeclared", n);
    if (family != current) {
      if (finished.count(family) != 0) return fmt::format("line {}: family split", n);
      if (!current.empty()) finished.insert(current);
      current = family;
    }
    char* end = nullptr;
    const std::string value = m[4];
    const double v = std::strtod(value.c_str(), &end);
    if (end != value.c_str() + value.size()) return fmt::format("line {}: value {}", n, value);
    if (!samples->emplace(family + "{" + std::string(m[3]) + "}", v).second) {
      return fmt::format("line {}: a series twice", n);
    }
  }
  return "";
}

TEST(Prometheus, ACheckIsMetricsTheTextfileCollectorReads) {
  RunRecord r = check_record("node-7", {1.2, 2.4}, "GPU-9");
  std::map<std::string, double> s;
  const std::string text = check_record_metrics(r);
  ASSERT_EQ(parse_exposition(text, &s), "") << text;
  const std::string gpu0 =
      "host=\"node-7\",gpu=\"0\",uuid=\"GPU-9-0\",bus_id=\"0000:00:00.0\",model=\"NVIDIA H200\"";
  EXPECT_NEAR(s.at("pinbench_check_rate_gigabytes_per_second{" + gpu0 +
                   ",memory=\"pinned\",direction=\"h2d\"}"),
              64.0 * (1 << 20) / 1.2e-3 / 1e9, 1e-6);
  EXPECT_EQ(s.at("pinbench_check_gpu_passed{" + gpu0 + "}"), 1.0);
  const std::string gpu1 =
      "host=\"node-7\",gpu=\"1\",uuid=\"GPU-9-1\",bus_id=\"0000:01:00.0\",model=\"NVIDIA H200\"";
  EXPECT_EQ(s.at("pinbench_check_gpu_passed{" + gpu1 + "}"), 0.0) << "half the pinned rate";
  EXPECT_EQ(s.at("pinbench_check_link_generation{" + gpu0 + ",state=\"max\"}"), 5.0);
  EXPECT_EQ(s.at("pinbench_check_timestamp_seconds{host=\"node-7\"}"), 1796119200.0);
  EXPECT_EQ(text.find("pinbench_fleet_gpu_flagged"), std::string::npos) << "a check is no fleet";
  // A stranger's host name stays one label value.
  r.machine.hostname = "evil\"} 1\n\x1b[2Kpinbench_check_gpu_passed{host=\"x";
  s.clear();
  const std::string evil = check_record_metrics(r);
  ASSERT_EQ(parse_exposition(evil, &s), "") << evil;
  EXPECT_EQ(evil.find('\x1b'), std::string::npos);
  // The line feed is the format's own \n (issue 33: "\x0A" made two hosts one series).
  EXPECT_NE(evil.find(R"(host="evil\"} 1\n\\x1B[2Kpinbench_check_gpu_passed{host=\"x")"),
            std::string::npos)
      << evil;
}

TEST(FleetCli, PrometheusFileForEveryHost) {
  const std::string dir = test::temp_dir();
  for (int i = 0; i < 4; ++i) {
    test::write_file(
        fmt::format("{}/h{}.json", dir, i),
        to_json(check_record(fmt::format("n{}", i), {i == 3 ? 2.4 : 1.2}, fmt::format("GPU-{}", i)))
            .dump(1));
  }
  const test::Result r = test::run(kBin + "fleet " + dir + " --prometheus " + dir + "/fleet.prom");
  EXPECT_EQ(r.exit_code, 1) << r.err;  // n3 is flagged
  EXPECT_NE(r.out.find("Prometheus metrics written to " + dir + "/fleet.prom"), std::string::npos);
  std::map<std::string, double> s;
  ASSERT_EQ(parse_exposition(test::read_file(dir + "/fleet.prom"), &s), "");
  int flagged = 0, gpus = 0;
  for (const auto& [series, value] : s) {
    if (series.rfind("pinbench_fleet_gpu_flagged{", 0) == 0) {
      ++gpus;
      flagged += value > 0 ? 1 : 0;
    }
  }
  EXPECT_EQ(gpus, 4);
  EXPECT_EQ(flagged, 1);
  const test::Result same =
      test::run(kBin + "fleet " + dir + " --html " + dir + "/x --prometheus " + dir + "/x");
  EXPECT_EQ(same.exit_code, 2);
}

TEST(FleetCli, ExitCodesAndOutputs) {
  const std::string dir = test::temp_dir();
  const auto write = [&](const std::string& name, const RunRecord& r) {
    test::write_file(dir + "/" + name, to_json(r).dump(1));
    return dir + "/" + name;
  };
  const std::string good1 = write("a.json", check_record("n1", {1.2}, "GPU-1"));
  const std::string good2 = write("b.json", check_record("n2", {1.2}, "GPU-2"));
  test::Result r = test::run(kBin + "fleet " + good1 + " " + good2 + " --json " + dir +
                             "/fleet.out --html " + dir + "/fleet.html");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("Nothing flagged: 2 GPUs"), std::string::npos) << r.out;
  EXPECT_NE(test::read_file(dir + "/fleet.html").find("fleet-gpus"), std::string::npos);
  r = test::run(kBin + "fleet --replay " + dir + "/fleet.out");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string bad = write("c.json", check_record("n3", {2.4}, "GPU-3"));
  r = test::run(kBin + "fleet " + dir);  // the folder: a, b, c (fleet.out is not .json)
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("FAILED: host n3 GPU 0"), std::string::npos) << r.out;
  RunRecord sweep = check_record("n", {1.2});
  sweep.experiment = "sweep";
  const std::string other = write("d.json", sweep);
  r = test::run(kBin + "fleet " + good1 + " " + other);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is a record of experiment 'sweep', not a check"), std::string::npos);
  test::write_file(dir + "/e.json", "{\"schema\": \"something.else\"}");
  r = test::run(kBin + "fleet " + dir + "/e.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("not a pinbench run record"), std::string::npos) << r.err;
  r = test::run(kBin + "fleet");
  EXPECT_EQ(r.exit_code, 2);
  r = test::run(kBin + "fleet " + good1 + " --json " + good1);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("would overwrite"), std::string::npos) << r.err;
}

TEST(CheckCli, BadFloorsAndDevicesAreExitTwoWithOrWithoutAGpu) {
  const std::string dir = test::temp_dir();
  test::write_file(dir + "/floors", "pinned_share = 3\n");
  test::Result r = test::run(kBin + "check --floors " + dir + "/floors");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("line 1: 'pinned_share' = 3: is a share"), std::string::npos) << r.err;
  r = test::run(kBin + "check --pinned-share 0");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  r = test::run(kBin + "check --device -2");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--device: '-2' is below 0"), std::string::npos) << r.err;
  r = test::run(kBin + "bandwidthtest --device 4096 --require-gpu");
  // Without a GPU: 3; with one, no machine has 4097 GPUs: 2, naming the count.
  if (r.exit_code == 2) {
    EXPECT_NE(r.err.find("this machine has"), std::string::npos) << r.err;
  } else {
    EXPECT_EQ(r.exit_code, 3) << r.err;
  }
  r = test::run(kBin + "check --html x.html");
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

TEST(CheckCli, NoGpuIsExitThreeNotAReplay) {
  const test::Result probe = test::run(kBin + "info");
  if (probe.exit_code != 3) GTEST_SKIP() << "a GPU is here";
  const test::Result r = test::run(kBin + "check");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(r.out.empty()) << r.out;
}

// A fleet record names the columns of its GPU rows: they are read by those names, wherever they
// stand, and a record that lacks one is refused, not read by position.
TEST(Fleet, RowsAreReadByTheColumnsTheRecordNames) {
  const std::vector<RunRecord> recs = {check_record("n1", {1.2, 1.2, 1.6}, "GPU-1")};
  const nlohmann::json j = to_json(make_fleet_record(fleet_members(recs, {"a.json"}), "me"));
  nlohmann::json turned = j;
  std::reverse(turned["config"]["gpu_columns"].begin(), turned["config"]["gpu_columns"].end());
  for (nlohmann::json& row : turned["config"]["hosts"][0]["gpus"]) {
    std::reverse(row.begin(), row.end());
  }
  const RunRecord straight = record_from_json(j), reversed = record_from_json(turned);
  EXPECT_EQ(render_text(analyse(reversed)), render_text(analyse(straight)));
  EXPECT_EQ(section<FleetAnalysis>(analyse(reversed)).gpus[2].check.gpu.uuid, "GPU-1-2");

  nlohmann::json missing = j;
  missing["config"]["gpu_columns"][11] = "pinned_h2d_gbps";
  try {
    record_from_json(missing);
    FAIL() << "a record without a pinned_h2d column was read";
  } catch (const InputError& e) {
    EXPECT_NE(
        std::string(e.what()).find("run record: 'config.gpu_columns' has no column 'pinned_h2d'"),
        std::string::npos)
        << e.what();
  }
  nlohmann::json twice = j;
  twice["config"]["gpu_columns"][1] = "index";
  EXPECT_THROW(record_from_json(twice), InputError);
}

// A GPU index or a link no machine has, and a fleet of no host, are refused where they are read.
TEST(Fleet, ImpossibleRowsAndAnEmptyFleetAreRefused) {
  const std::vector<RunRecord> recs = {check_record("n1", {1.2}, "GPU-1")};
  const nlohmann::json j = to_json(make_fleet_record(fleet_members(recs, {"a.json"}), "me"));
  const auto error_of = [&](std::size_t column, const nlohmann::json& value) {
    nlohmann::json bad = j;
    bad["config"]["hosts"][0]["gpus"][0][column] = value;
    try {
      record_from_json(bad);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(read)");
  };
  EXPECT_EQ(error_of(0, 0), "(read)");
  EXPECT_EQ(error_of(0, -1),
            "run record: 'config.hosts[0].gpus[0][0]' (index) is -1, not a count from 0 to 65536");
  EXPECT_EQ(error_of(4, 99),
            "run record: 'config.hosts[0].gpus[0][4]' (max_gen) is 99, not a count from 0 to 64");
  EXPECT_EQ(error_of(9, 99),
            "run record: 'config.hosts[0].gpus[0][9]' (loaded_gen) is 99, not a "
            "count from 0 to 64");
  nlohmann::json none = j;
  none["config"]["hosts"] = nlohmann::json::array();
  none["config"]["sources"] = nlohmann::json::array();
  try {
    record_from_json(none);
    FAIL() << "a fleet of no host was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("holds no host"), std::string::npos) << e.what();
  }
}

// One GPU sits in one host: the same UUID in two hosts' records is flagged on both, and the fleet
// exits 1.
TEST(Fleet, OneUuidClaimedByTwoHostsIsFlagged) {
  const std::vector<RunRecord> recs = {check_record("n1", {1.2, 1.2}, "GPU-1"),
                                       check_record("n2", {1.2, 1.2}, "GPU-1"),
                                       check_record("n3", {1.2, 1.2}, "GPU-3")};
  const FleetAnalysis a = analyse_fleet(recs, {"a.json", "b.json", "c.json"});
  const std::vector<std::string> flagged = a.flagged();
  ASSERT_EQ(flagged.size(), 4u) << fmt::format("{}", fmt::join(flagged, "\n"));
  EXPECT_NE(flagged[0].find("host n1 GPU 0 (GPU-1-0): UUID also claimed by host n2"),
            std::string::npos)
      << flagged[0];
  EXPECT_NE(flagged[2].find("host n2 GPU 0 (GPU-1-0): UUID also claimed by host n1"),
            std::string::npos)
      << flagged[2];
  const ReportModel m = analyse(make_fleet_record(fleet_members(recs, {"a", "b", "c"}), "me"));
  EXPECT_EQ(exit_code(m), 1);
}

// A UUID copied into every host's record flags each GPU with at most five other hosts named and
// how many more: a line of its own length, not one as long as the fleet (which made the report of
// such a fleet grow as the square of its hosts).
TEST(Fleet, AUuidInManyHostsNamesFiveOfThem) {
  std::vector<RunRecord> recs;
  std::vector<std::string> sources;
  for (int i = 0; i < 9; ++i) {
    recs.push_back(check_record("n" + std::to_string(i), {1.2}, "GPU-1"));
    sources.push_back("r" + std::to_string(i) + ".json");
  }
  const FleetAnalysis a = analyse_fleet(recs, sources);
  const std::vector<std::string> flagged = a.flagged();
  ASSERT_FALSE(flagged.empty());
  EXPECT_NE(flagged[0].find("UUID also claimed by host n1, n2, n3, n4, n5 and 3 more: one GPU "
                            "cannot sit in two hosts"),
            std::string::npos)
      << flagged[0];
}

// --- the pin rate and the limits on pinning
// -------------------------------------------------------

// A host's limits as a test crafts them: 100 GiB usable, RLIMIT_MEMLOCK unlimited, a kernel and
// a driver past no per-call limit, vm.max_map_count far from used.
PinLimits healthy_limits() {
  PinLimits l;
  l.available_bytes = 100 * kGiB;
  l.max_map_count = 65530;
  l.map_count = 200;
  l.thp_mode = "madvise";
  l.kernel_release = "6.8.0-45-generic";
  l.driver_release = "570.86.15";
  return l;
}

bool warns(const std::vector<PinWarning>& w, const std::string& limit, const std::string& says) {
  return std::any_of(w.begin(), w.end(), [&](const PinWarning& x) {
    return x.limit == limit && x.warning.find(says) != std::string::npos;
  });
}

TEST(CheckPin, LimitsBecomeWarningsWhereTheyBite) {
  const PinLimits ok = healthy_limits();
  EXPECT_TRUE(pin_warnings(ok, kCheckPinBytes).empty());
  // Less memory free than the pin size.
  PinLimits l = ok;
  l.available_bytes = kGiB;
  std::vector<PinWarning> w = pin_warnings(l, kCheckPinBytes);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].warning,
            "the memory this process may use (MemAvailable) is 1 GiB, below the pin size of 2 GiB: "
            "pinning that much here takes memory the host does not have free");
  // The cgroup leaves less than MemAvailable.
  l = ok;
  l.cgroup_memory_bytes = 3 * kGiB;
  l.cgroup_memory_used = 2 * kGiB;
  EXPECT_TRUE(warns(pin_warnings(l, kCheckPinBytes), kPinLimitMemory,
                    "(MemAvailable, less what its cgroup's memory limit leaves) is 1 GiB"));
  // RLIMIT_MEMLOCK: set and below the pin size warns; set and above it, or 0 pinned, does not.
  l = ok;
  l.memlock_bytes = 64 * 1024;
  EXPECT_TRUE(warns(pin_warnings(l, kCheckPinBytes), kPinLimitMemlock,
                    "RLIMIT_MEMLOCK is 64 KiB, below the pin size of 2 GiB"));
  EXPECT_TRUE(pin_warnings(l, 0).empty());
  l.memlock_bytes = 4 * kGiB;
  EXPECT_TRUE(pin_warnings(l, kCheckPinBytes).empty());
  // Linux 6.12: 2 GB in one call; the pin size and the memory usable both reach it.
  l = ok;
  l.kernel_release = "6.12.8-arch1";
  w = pin_warnings(l, kCheckPinBytes);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].limit, kPinLimitPerCall);
  EXPECT_NE(w[0].warning.find("the kernel's per-call pin limit applies: at most 1.86 GiB"),
            std::string::npos)
      << w[0].warning;
  EXPECT_NE(w[0].warning.find("the pin size of 2 GiB crosses it"), std::string::npos);
  // Driver 580: only where 512 GiB could be pinned at all.
  l = ok;
  l.driver_release = "580.95.05";
  EXPECT_TRUE(pin_warnings(l, kCheckPinBytes).empty());
  l.available_bytes = 1024 * kGiB;
  EXPECT_TRUE(warns(pin_warnings(l, kCheckPinBytes), kPinLimitPerCall,
                    "the NVIDIA driver's per-call limit applies: below 512 GiB"));
  // vm.max_map_count with under 10% left.
  l = ok;
  l.map_count = 60000;
  EXPECT_TRUE(warns(pin_warnings(l, 0), kPinLimitMapCount,
                    "vm.max_map_count is 65530 and this process held 60000 mappings, 5530 left"));
  l.map_count = 58000;  // 11% left
  EXPECT_TRUE(pin_warnings(l, 0).empty());
}

TEST(CheckPin, ThePlanStaysWithinEveryLimit) {
  const PinLimits ok = healthy_limits();
  EXPECT_EQ(check_pin_plan(ok, kCheckPinBytes).bytes, kCheckPinBytes);
  EXPECT_EQ(check_pin_plan(ok, 0).bytes, 0u);
  EXPECT_TRUE(check_pin_plan(ok, 0).refused.empty());
  // Linux 6.12: one call stays below 2 GB, in whole MiB.
  PinLimits l = ok;
  l.kernel_release = "6.13.1";
  const CheckPinPlan capped = check_pin_plan(l, kCheckPinBytes);
  EXPECT_EQ(capped.bytes, 2'000'000'000ull / kMiB * kMiB);
  EXPECT_TRUE(capped.refused.empty());
  EXPECT_TRUE(pin_refusal(l, capped.bytes, capped.bytes, 1) == std::nullopt);
  // Less memory than the size: nothing, and the refusal names the limit.
  l = ok;
  l.available_bytes = kGiB;
  const CheckPinPlan none = check_pin_plan(l, kCheckPinBytes);
  EXPECT_EQ(none.bytes, 0u);
  EXPECT_NE(none.refused.find("crosses the memory this process may use (1 GiB"), std::string::npos)
      << none.refused;
  // No mapping left.
  l = ok;
  l.map_count = 65530;
  EXPECT_NE(check_pin_plan(l, kCheckPinBytes).refused.find("vm.max_map_count"), std::string::npos);
}

// A check of `host` whose GPUs pinned 2 GiB in `pin_ms` each (1074 ms: 2.0 GB/s), with the
// limits' `warnings`; a record as today's check writes one.
RunRecord pin_check_record(const std::string& host, const std::vector<double>& pin_ms,
                           const std::vector<PinWarning>& warnings = {},
                           const std::string& uuid_prefix = "GPU-aaaa") {
  RunRecord r = check_record(host, std::vector<double>(pin_ms.size(), 1.2), uuid_prefix);
  r.config["pin_bytes"] = kCheckPinBytes;
  PinLimits l = healthy_limits();
  put_fields(r.config["pin_limits"], host_pin_facts(l));
  r.config["pin_warnings"] = to_json(warnings);
  for (std::size_t i = 0; i < pin_ms.size(); ++i) {
    const std::string gate = fmt::format("check/gpu{}/pin", i);
    r.gates.push_back({gate, true, "ok"});
    for (const auto& [method, ms] :
         {std::pair{kPinMethod, pin_ms[i]}, std::pair{kUnpinMethod, 300.0}}) {
      Case c = rate_case(static_cast<int>(i), "host", "pinned", ms, gate);
      c.part = kPinPart;
      c.method = method;
      c.timing = "host_clock";
      c.bytes = kCheckPinBytes;
      c.samples_ms = {ms};
      c.stop = StopReason::kCount;
      r.cases.push_back(c);
    }
  }
  return r;
}

TEST(CheckPin, ARateAgainstItsFloorInEveryPrinterAndTheLimitsAsWarnings) {
  // GPU 1 pinned at 0.25 GB/s: below the 0.5 floor.
  const std::vector<PinWarning> w = {{kPinLimitMemlock, "RLIMIT_MEMLOCK is 64 KiB, below ..."}};
  const RunRecord r = record_from_json(to_json(pin_check_record("n1", {1074.0, 8590.0}, w)));
  const CheckAnalysis a = analyse_check(r);
  ASSERT_EQ(a.gpus.size(), 2u);
  ASSERT_TRUE(a.gpus[0].pin_gb_per_s);
  EXPECT_NEAR(*a.gpus[0].pin_gb_per_s, 2.0, 0.01);
  EXPECT_EQ(a.gpus[0].pin_bytes, kCheckPinBytes);
  EXPECT_EQ(a.gpus[0].unpin_ms, std::optional<double>(300.0));
  const auto item = [](const GpuCheck& g) {
    for (const CheckItem& i : g.items) {
      if (i.check == "pin rate") return i;
    }
    return CheckItem{};
  };
  EXPECT_TRUE(item(a.gpus[0]).passed);
  EXPECT_EQ(item(a.gpus[0]).limit_text, "at least 0.50 GB/s");
  EXPECT_FALSE(item(a.gpus[1]).passed);
  EXPECT_FALSE(a.passed());
  EXPECT_NE(a.failures().back().find("pin rate 0.25 GB/s, not at least 0.50 GB/s"),
            std::string::npos)
      << a.failures().back();
  ASSERT_EQ(a.pin_warnings.size(), 1u);
  // Every printer: the pin column, the pin rate's item, the warning, the note on the method; the
  // CSV, a list of cases, the pin's two.
  const ReportModel m = analyse(r);
  EXPECT_EQ(exit_code(m), 1);
  const std::string text = render_text(m);
  const std::string md = render_markdown(m);
  const std::string html = render_html(r, m, {});
  for (const std::string* out : {&text, &md, &html}) {
    EXPECT_NE(out->find("RLIMIT_MEMLOCK is 64 KiB"), std::string::npos) << *out;
    EXPECT_NE(out->find("pin rate"), std::string::npos);
    EXPECT_NE(out->find("Pin rate: one cudaHostAlloc of 2 GiB per GPU"), std::string::npos);
  }
  const std::string csv = render_csv(m);
  EXPECT_NE(csv.find("check,pin,cudaHostAlloc,host,pinned,host_clock,2147483648,2 GiB,1,1074."),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("check,pin,cudaFreeHost,host,pinned,host_clock,2147483648,2 GiB,1,300."),
            std::string::npos);
  EXPECT_NE(text.find("GPU 0 300 ms, GPU 1 300 ms"), std::string::npos) << text;
  // A bad warning is refused when the record is read, naming it.
  nlohmann::json j = to_json(r);
  j["config"]["pin_warnings"][0]["limit"] = "swap";
  try {
    record_from_json(j);
    FAIL() << "a warning of no known limit was read";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("run record: 'config.pin_warnings[0].limit' is 'swap', "
                                          "not one of memory, memlock, per_call, max_map_count",
                                          0),
              0u)
        << e.what();
  }
  j = to_json(r);
  j["config"]["pin_limits"]["usable_bytes"] = -1;
  EXPECT_THROW(record_from_json(j), InputError);
  j = to_json(r);
  j["config"]["pin_warnings"] = "none";
  EXPECT_THROW(record_from_json(j), InputError);
  // No warning: a note says so; --pin-bytes 0: not judged.
  RunRecord quiet = pin_check_record("n2", {1074.0});
  EXPECT_NE(render_text(analyse(quiet))
                .find("Limits on pinning (read before anything was pinned): none "
                      "bites here"),
            std::string::npos);
  quiet.config["pin_bytes"] = 0;
  quiet.cases.erase(std::remove_if(quiet.cases.begin(), quiet.cases.end(),
                                   [](const Case& c) { return c.part == kPinPart; }),
                    quiet.cases.end());
  const CheckAnalysis skipped = analyse_check(quiet);
  EXPECT_FALSE(item(skipped.gpus[0]).judged);
  EXPECT_TRUE(skipped.passed());
  // A pin refused by a limit: not judged, the refusal in its words.
  RunRecord refused = quiet;
  refused.config["pin_bytes"] = kCheckPinBytes;
  refused.config["pin_refused"] = "2 GiB crosses the memory this process may use (1 GiB; ...)";
  EXPECT_EQ(item(analyse_check(refused).gpus[0]).limit_text, refused.config["pin_refused"]);
}

// Check records made before the check pinned still read, judge and print as they did: no pin
// item, no column figure, no warning, no limit series.
TEST(CheckPin, RecordsWithoutThePinStillRead) {
  const RunRecord old = record_from_json(to_json(check_record("n1", {1.2})));
  const CheckAnalysis a = analyse_check(old);
  EXPECT_FALSE(a.pin_asked);
  EXPECT_FALSE(a.pin_limits_read);
  for (const CheckItem& i : a.gpus[0].items) EXPECT_NE(i.check, "pin rate");
  EXPECT_TRUE(a.passed());
  const std::string text = render_text(analyse(old));
  EXPECT_EQ(text.find("Limits on pinning"), std::string::npos);
  EXPECT_EQ(check_record_metrics(old).find("_pin_"), std::string::npos);
  const std::optional<std::string> committed = newest_record(PINBENCH_DATA_DIR "/runs", "check");
  if (committed) {
    const CheckAnalysis c = analyse_check(load_record(*committed));
    EXPECT_FALSE(c.pin_asked);
    EXPECT_TRUE(c.passed());
  }
  // A fleet record written before the pin column: its rows read, with no pin figure.
  nlohmann::json fleet =
      to_json(make_fleet_record(fleet_members({check_record("n1", {1.2})}, {"a"}), "me"));
  fleet["config"]["gpu_columns"].erase(17);
  for (nlohmann::json& host : fleet["config"]["hosts"]) {
    host.erase("pin_warnings");
    host.erase("pin_bytes");
    host["floors"].erase("pin_gb_per_s");
    for (nlohmann::json& row : host["gpus"]) row.erase(17);
  }
  const RunRecord back = record_from_json(fleet);
  const FleetAnalysis f = section<FleetAnalysis>(analyse(back));
  ASSERT_EQ(f.gpus.size(), 1u);
  EXPECT_FALSE(f.gpus[0].check.pin_gb_per_s);
  EXPECT_TRUE(f.flagged().empty());
  const std::optional<std::string> mpi = newest_record(PINBENCH_DATA_DIR "/runs", "fleet");
  if (mpi) {
    EXPECT_NO_THROW(analyse(load_record(*mpi)));
  }
}

TEST(FleetPin, ThePinRateIsJudgedForOutliersAndTheLimitsReachTheTableAndTheMetrics) {
  // Four hosts of one GPU; n3 pins at a quarter of its peers' rate (above the floor).
  std::vector<RunRecord> recs;
  std::vector<std::string> sources;
  for (int i = 0; i < 4; ++i) {
    std::vector<PinWarning> w;
    if (i == 1) w.push_back({kPinLimitPerCall, "the kernel's per-call pin limit applies: ..."});
    recs.push_back(pin_check_record(fmt::format("n{}", i), {i == 3 ? 3000.0 : 1074.0}, w,
                                    fmt::format("GPU-{}", i)));
    sources.push_back(fmt::format("h{}.json", i));
  }
  const FleetAnalysis a = analyse_fleet(recs, sources);
  const std::vector<std::string> flagged = a.flagged();
  ASSERT_EQ(flagged.size(), 1u) << fmt::format("{}", fmt::join(flagged, "\n"));
  EXPECT_NE(flagged[0].find("host n3 GPU 0 (GPU-3-0): outlier: pin rate 0.72 GB/s, below"),
            std::string::npos)
      << flagged[0];
  // The fleet record keeps the pin and the warnings, and prints as the records do.
  const RunRecord fleet =
      record_from_json(to_json(make_fleet_record(fleet_members(recs, sources), "me")));
  EXPECT_EQ(fleet.config["gpu_columns"][17], "pin_gb_per_s");
  const ReportModel m = analyse(fleet);
  EXPECT_EQ(m.check_failures, flagged);
  const ReportTable& gpus = m.tables.front();
  EXPECT_EQ(gpus.header[9], "pin");
  EXPECT_EQ(gpus.rows[0][9], "2.00");
  const ReportTable& hosts = m.tables.back();
  EXPECT_EQ(hosts.header.back(), "limits on pinning that bite");
  EXPECT_EQ(hosts.rows[0].back(), "none");
  EXPECT_EQ(hosts.rows[1].back(), "per_call");
  ASSERT_EQ(hosts.notes.size(), 1u);
  EXPECT_EQ(hosts.notes[0],
            "Limit on pinning 'per_call' bites on 1 host record (a warning, not a flag); host n1: "
            "the kernel's per-call pin limit applies: ....");
  RunRecord whole = fleet;
  whole.config = {{"sources", sources}};
  nlohmann::json members = nlohmann::json::array();
  for (const RunRecord& rec : recs) members.push_back(to_json(rec));
  whole.sections["members"] = members;
  EXPECT_EQ(render_text(analyse(record_from_json(to_json(whole)))), render_text(analyse(fleet)));
  // The metrics: the pin rate of each GPU, and each host's limits with 0 or 1.
  std::map<std::string, double> s;
  std::vector<MetricsGpu> metrics;
  for (const FleetGpu& g : a.gpus) {
    metrics.push_back({g.host, &g.check, rfc3339_seconds(g.created_utc), !g.flags.empty(),
                       g.pin_limits_read ? &g.pin_warnings : nullptr});
  }
  const std::string text = check_metrics(metrics);
  ASSERT_EQ(parse_exposition(text, &s), "") << text;
  EXPECT_NEAR(s.at("pinbench_check_pin_gigabytes_per_second{host=\"n0\",gpu=\"0\",uuid=\"GPU-0-0\","
                   "bus_id=\"0000:00:00.0\",model=\"NVIDIA H200\"}"),
              2.0, 0.01);
  EXPECT_EQ(s.at("pinbench_check_pin_limit_warning{host=\"n1\",limit=\"per_call\"}"), 1.0);
  EXPECT_EQ(s.at("pinbench_check_pin_limit_warning{host=\"n1\",limit=\"memlock\"}"), 0.0);
  EXPECT_EQ(s.at("pinbench_check_pin_limit_warning{host=\"n0\",limit=\"per_call\"}"), 0.0);
  EXPECT_EQ(
      s.at("pinbench_check_passed{host=\"n3\",gpu=\"0\",uuid=\"GPU-3-0\",bus_id=\"0000:00:00.0\","
           "model=\"NVIDIA H200\",check=\"pin rate\"}"),
      1.0);  // above the floor: an outlier, not a failure
  // And one check's own file says the same of its host.
  s.clear();
  ASSERT_EQ(parse_exposition(check_record_metrics(recs[1]), &s), "");
  EXPECT_EQ(s.at("pinbench_check_pin_limit_warning{host=\"n1\",limit=\"per_call\"}"), 1.0);
}

TEST(CheckCli, PinBytesAndItsFloorAreRefusedWhenBad) {
  test::Result r = test::run(kBin + "check --pin-bytes fast");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err.rfind("pinbench: error: --pin-bytes", 0), 0u) << r.err;
  r = test::run(kBin + "check --min-pin 0");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  const std::string help = test::run(kBin + "check --help").out;
  EXPECT_NE(help.find("--pin-bytes"), std::string::npos);
  EXPECT_NE(help.find("--min-pin"), std::string::npos);
}

// The one-line verdict (check --verdict): what a Slurm drain reason and node-problem-detector's
// message show. It names the first failed GPU and check with its figure and the GPU's UUID, counts
// the rest, and never runs past kVerdictBytes, whatever a record holds.
TEST(CheckVerdict, NamesTheFirstFailedGpuAndCheckAndCountsTheRest) {
  EXPECT_EQ(check_verdict(analyse_check(check_record("h", {1.2, 1.2}))), "pinbench: 2 GPUs passed");
  EXPECT_EQ(check_verdict(analyse_check(check_record("h", {1.2}))), "pinbench: 1 GPU passed");
  // GPU 1 at 1.6 ms (41.9 GB/s) is under the 47.26 GB/s floor both ways and off its peers.
  const CheckAnalysis failed = analyse_check(check_record("h", {1.2, 1.6, 1.2}));
  ASSERT_EQ(failed.failures().size(), 3u);  // pinned h2d, pinned d2h, peers
  const std::string line = check_verdict(failed);
  EXPECT_EQ(
      line.rfind("pinbench: GPU 1 pinned h2d 41.94 GB/s, not at least 47.26 GB/s (GPU-aaaa-1)", 0),
      0u)
      << line;
  EXPECT_EQ(line.substr(line.size() - 15), "; 2 more failed") << line;

  CheckAnalysis none;
  none.no_gpu = "no CUDA driver";
  EXPECT_EQ(check_verdict(none), "pinbench: no GPU checked: no CUDA driver");
  EXPECT_EQ(check_verdict_error("no usable GPU: no CUDA driver on this machine"),
            "pinbench: check could not run: no usable GPU: no CUDA driver on this machine");
}

TEST(CheckVerdict, FitsItsBytesWithNoControlByteAndWholeCharacters) {
  // A stranger's UUID: long, with an escape sequence, and two-byte characters where it is cut.
  const std::string uuid = "GPU-\x1b]0;owned\x07" + std::string(3000, 'a') + "\xc3\xa9\xc3\xa9";
  RunRecord r = check_record("h", {1.6});
  r.machine.gpus[0].uuid = "\x1b[2J" + uuid;
  for (const std::string& line :
       {check_verdict(analyse_check(r)), check_verdict_error(std::string(5000, '\xe9'))}) {
    EXPECT_LE(line.size(), kVerdictBytes) << line;
    EXPECT_EQ(line.substr(line.size() - 3), "...");
    EXPECT_EQ(first_non_utf8(line), std::string::npos) << line;
    for (const char c : line) EXPECT_GE(static_cast<unsigned char>(c), 0x20) << line;
  }
  for (std::size_t n = 0; n < 400; n += 7) {  // every cut lands on a character's end
    const std::string line = check_verdict_error(std::string(n, 'x') + std::string(200, '\xc3'));
    EXPECT_LE(line.size(), kVerdictBytes);
    EXPECT_EQ(first_non_utf8(line), std::string::npos) << n;
  }
}

// On the command line: one line on stdout and the check's exit code, replayed, and where the
// check cannot run (no GPU here: exit 3, the reason on the line); stdout is the verdict's, so
// no output may take it.
TEST(CheckCli, TheVerdictIsOneLineWithTheChecksExitCode) {
  const std::string dir = test::temp_dir();
  RunRecord failing = check_record("h", {1.2, 1.6, 1.2});
  save_record(failing, dir + "/failing.json");
  save_record(check_record("h", {1.2}), dir + "/passing.json");
  test::Result r = test::run(kBin + "check --verdict --replay " + dir + "/failing.json");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.out.rfind("pinbench: GPU 1 pinned h2d", 0), 0u) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  r = test::run(kBin + "check --replay " + dir + "/passing.json --verdict");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "pinbench: 1 GPU passed\n");
  r = test::run(kBin + "check --verdict --json -");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("the verdict"), std::string::npos) << r.err;
  r = test::run(kBin + "check --verdict --mpi");
  EXPECT_EQ(r.exit_code, 2);
  const test::Result probe = test::run(kBin + "info");
  if (probe.exit_code != 3) return;  // a GPU is here: the live check is the GPU tests'
  r = test::run(kBin + "check --verdict --json " + dir + "/x.json");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out.rfind("pinbench: check could not run: no usable GPU", 0), 0u) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  EXPECT_NE(r.err.find("pinbench: error:"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/x.json"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pinbench
