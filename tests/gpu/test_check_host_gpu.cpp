// check, host and --device on a real GPU (every path with however many GPUs there are, one on the
// H200 machine): every gate passes, every GPU has its identity and a link read under load, the
// record survives JSON into the same analysis, and a device past the count is refused with it.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cuda/device.hpp"
#include "experiments/check/analysis.hpp"
#include "experiments/check/fleet/analysis.hpp"
#include "experiments/check/measure.hpp"
#include "experiments/host/analysis.hpp"
#include "experiments/host/measure.hpp"
#include "framework/by_experiment.hpp"
#include "framework/errors.hpp"
#include "framework/report_model.hpp"
#include "framework/units.hpp"
#include "gpu_test.hpp"

namespace pinbench {
using namespace experiments::check;
using namespace experiments::host;
namespace {

TEST(GpuDevice, OutOfRangeIsRefusedNamingTheCount) {
  PINBENCH_REQUIRE_GPU();
  const int n = cuda::device_count();
  try {
    cuda::select_device(n);
    FAIL() << "device " << n << " was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(fmt::format("this machine has {} CUDA device", n)),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(cuda::select_device(-1), InputError);
  cuda::select_device(n - 1);
  EXPECT_EQ(cuda::selected_device(), n - 1);
  cuda::select_device(0);
}

TEST(GpuDevice, MachineNamesHostAndDevice) {
  PINBENCH_REQUIRE_GPU();
  const MachineInfo m = cuda::query_machine(0);
  EXPECT_FALSE(m.hostname.empty());
  EXPECT_EQ(m.device_uuid.rfind("GPU-", 0), 0u) << m.device_uuid;
  EXPECT_EQ(m.device_uuid.size(), 40u) << m.device_uuid;
  const GpuInfo g = cuda::query_gpu(0);
  EXPECT_EQ(g.uuid, m.device_uuid);
  EXPECT_EQ(g.pci_bus_id, m.pci_bus_id);
}

TEST(GpuCheck, EveryGpuCheckedWithinTwentySeconds) {
  PINBENCH_REQUIRE_GPU();
  const RunRecord r = run_check(CheckConfig{});
  EXPECT_TRUE(r.all_gates_passed());
  EXPECT_LT(r.wall_ms, 20000.0);
  ASSERT_EQ(static_cast<int>(r.machine.gpus.size()), cuda::device_count());
  for (const GpuInfo& g : r.machine.gpus) {
    EXPECT_TRUE(g.loaded_read);
    EXPECT_FALSE(g.uuid.empty());
  }
  // 4 rate cases, the round trip, and the pin and its free per GPU (none where a limit on the
  // total refused the pin: the record says why).
  const RunRecord back = record_from_json(to_json(r));
  const CheckAnalysis a = analyse_check(back);
  ASSERT_TRUE(a.pin_asked);
  EXPECT_EQ(*a.pin_asked, kCheckPinBytes);
  EXPECT_TRUE(a.pin_limits_read);
  const bool pinned = a.pin_refused.empty();
  EXPECT_EQ(r.cases.size(), (pinned ? 7 : 5) * r.machine.gpus.size()) << a.pin_refused;
  ASSERT_EQ(a.gpus.size(), r.machine.gpus.size());
  for (const GpuCheck& g : a.gpus) {
    ASSERT_TRUE(g.pinned_h2d && g.pinned_d2h && g.pageable_h2d && g.pageable_d2h);
    EXPECT_GT(*g.pinned_h2d, *g.pageable_h2d * 0.5);
    ASSERT_TRUE(g.round_trip_p50_us && g.round_trip_p99_us);
    EXPECT_LE(*g.round_trip_p50_us, *g.round_trip_p99_us);
    if (!pinned) continue;
    ASSERT_TRUE(g.pin_gb_per_s) << "the pin's gate failed";
    EXPECT_GT(*g.pin_gb_per_s, 0.0);
    EXPECT_GT(g.pin_bytes, 0u);
    EXPECT_LE(g.pin_bytes, kCheckPinBytes);
    EXPECT_TRUE(g.unpin_ms);
  }
  // A floor no GPU reaches fails every GPU, each named.
  CheckConfig high;
  high.floors.pinned_h2d_gb_per_s = 1e6;
  const CheckAnalysis failed = analyse_check(run_check(high));
  EXPECT_FALSE(failed.passed());
  EXPECT_EQ(failed.failures().size(), failed.gpus.size());
  // The record a fleet reads.
  const FleetAnalysis f = analyse_fleet({back}, {"live"});
  EXPECT_EQ(f.gpus.size(), r.machine.gpus.size());
}

TEST(GpuCheck, OneDeviceOnly) {
  PINBENCH_REQUIRE_GPU();
  CheckConfig c;
  c.devices = {cuda::device_count() - 1};
  const RunRecord r = run_check(c);
  ASSERT_EQ(r.machine.gpus.size(), 1u);
  EXPECT_EQ(r.machine.gpus[0].index, cuda::device_count() - 1);
}

// --pin-bytes 0: no pin, its item not judged; a small pin: gated and judged by its floor.
TEST(GpuCheck, ThePinSizeIsTheCallersAndZeroSkipsIt) {
  PINBENCH_REQUIRE_GPU();
  CheckConfig c;
  c.devices = {0};
  c.pin_bytes = 0;
  const RunRecord none = run_check(c);
  EXPECT_EQ(none.cases.size(), 5u);
  const CheckAnalysis a = analyse_check(none);
  EXPECT_FALSE(a.gpus[0].pin_gb_per_s);
  c.pin_bytes = 256 * kMiB;
  const RunRecord small = run_check(c);
  EXPECT_TRUE(small.all_gates_passed());
  const CheckAnalysis b = analyse_check(small);
  ASSERT_TRUE(b.gpus[0].pin_gb_per_s);
  EXPECT_EQ(b.gpus[0].pin_bytes, 256 * kMiB);
}

// check --verdict live: one line on stdout, the exit code the line implies, and the record and
// the Prometheus file written as without it (what a Slurm health check and node-problem-detector
// read).
TEST(GpuCheck, TheVerdictOfALiveCheckIsOneLineAndTheFilesAreWritten) {
  PINBENCH_REQUIRE_GPU();
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / fmt::format("pinbench-verdict-{}", ::getpid());
  std::filesystem::create_directories(dir);
  const std::string bin = test::beside_this_binary("pinbench", PINBENCH_BINARY_FALLBACK);
  const std::string out = (dir / "out").string();
  const int status = std::system((bin + " check --verdict --pin-bytes 256MiB --json " +
                                  (dir / "check.json").string() + " --prometheus " +
                                  (dir / "check.prom").string() + " >" + out + " 2>" + out + ".err")
                                     .c_str());
  std::ifstream in(out);
  const std::string line((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_TRUE(WIFEXITED(status));
  const int code = WEXITSTATUS(status);
  EXPECT_EQ(std::count(line.begin(), line.end(), '\n'), 1) << line;
  EXPECT_LE(line.size(), kVerdictBytes + 1) << line;
  if (code == 0) {
    EXPECT_EQ(line.rfind("pinbench: ", 0), 0u) << line;
    EXPECT_NE(line.find(" passed"), std::string::npos) << line;
  } else {
    EXPECT_EQ(code, 1) << line;  // a GPU of this machine failed: the line names it
    EXPECT_EQ(line.rfind("pinbench: GPU ", 0), 0u) << line;
  }
  EXPECT_TRUE(std::filesystem::exists(dir / "check.json"));
  EXPECT_TRUE(std::filesystem::exists(dir / "check.prom"));
  std::filesystem::remove_all(dir);
}

TEST(GpuHost, AloneTogetherAndAggregate) {
  PINBENCH_REQUIRE_GPU();
  HostConfig c;
  c.bytes = 32 * kMiB;
  c.rounds = 3;
  const RunRecord r = run_host(c);
  EXPECT_TRUE(r.all_gates_passed());
  const std::size_t n = r.machine.gpus.size();
  const HostAnalysis a = analyse_host(record_from_json(to_json(r)));
  // 3 directions x 2 kinds x (n GPUs + the aggregate).
  EXPECT_EQ(a.rows.size(), 6 * (n + 1));
  for (const HostRow& row : a.rows) {
    EXPECT_TRUE(row.alone_gb_per_s && row.together_gb_per_s) << row.direction << row.memory;
    ASSERT_TRUE(row.ratio());
    // With one GPU together is alone again; with more, never far above it.
    EXPECT_GT(*row.ratio(), 0.3);
    EXPECT_LT(*row.ratio(), 1.5);
  }
  EXPECT_EQ(a.peers.empty(), n < 2);
  EXPECT_FALSE(analyse(r).tables.empty());
}

}  // namespace
}  // namespace pinbench
