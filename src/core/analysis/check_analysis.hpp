// The health check's verdicts (`pinbench check`), as a pure function of its record: every GPU's
// link under load, pinned and pageable rates against floors, the 4 KiB round trip against a
// ceiling, and each GPU against its peers on the host. The floors, their defaults and the file
// that sets them are here too, so a record is judged by the floors it carries and a fleet of
// records by the same code (docs/fleet.md gives the rules and why the defaults are what they are).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/record/record.hpp"

namespace pinbench {

// What a GPU must reach. A rate floor is absolute (GB/s) when set, else a share of the link's
// rate for its maximum generation and width (host_info.hpp pcie_link_gb_per_s).
struct CheckFloors {
  double pinned_share = 0.75;    // gen 5 x16: 47.3 GB/s (an H200 moves about 55)
  double pageable_share = 0.05;  // gen 5 x16: 3.15 GB/s (an H200 moves 8 to 15)
  std::optional<double> pinned_h2d_gb_per_s, pinned_d2h_gb_per_s;
  std::optional<double> pageable_h2d_gb_per_s, pageable_d2h_gb_per_s;
  double round_trip_p50_us = 50.0;  // 4 KiB pinned, there and back (an H200: about 20)
  double round_trip_p99_us = 250.0;
  double peer_margin = 0.10;  // each GPU's pinned rates within 10% of the host's median
};

nlohmann::json to_json(const CheckFloors& f);
// From a check record's config.floors; InputError naming the field when one is out of range.
CheckFloors floors_from_json(const nlohmann::json& j);

// Sets floors from the text of a floors file: one `key = value` per line, '#' starts a comment.
// Keys are the JSON names (pinned_share, pinned_h2d_gb_per_s, ..., round_trip_p99_us,
// peer_margin). InputError "floors file 'NAME' line N: ..." for an unknown key, a value that is
// not a number, a share outside (0, 1], a rate or time that is not positive, or a key twice.
void apply_floors_text(CheckFloors& floors, const std::string& text, const std::string& name);

// Sets one floor by its key, refused as the file's lines are ("WHERE: ..."): for flags.
void apply_floor(CheckFloors& floors, const std::string& key, double value,
                 const std::string& where);

// One check of one GPU.
struct CheckItem {
  std::string check;   // "link", "pinned h2d", "pageable d2h", "4 KiB round trip p99", "peers"
  bool judged = true;  // false: nothing to judge it by (one GPU has no peers; unknown link)
  bool passed = true;  // meaningful when judged
  std::optional<double> value;
  std::string value_text;  // "55.10 GB/s", "gen 5 x16"
  std::string limit_text;  // "at least 47.25 GB/s (75% of gen 5 x16)"
};

struct GpuCheck {
  GpuInfo gpu;
  std::optional<double> pinned_h2d, pinned_d2h, pageable_h2d, pageable_d2h;  // GB/s, medians
  std::optional<double> round_trip_p50_us, round_trip_p99_us;
  std::vector<CheckItem> items;
  bool passed() const;
  std::vector<std::string> failures() const;  // "pinned h2d 40.10 GB/s, not at least 47.25 ..."
};

struct CheckAnalysis {
  std::string hostname;
  std::string no_gpu;  // why the host had no GPU to check (an MPI rank without one), else ""
  CheckFloors floors;
  std::vector<GpuCheck> gpus;
  bool passed() const;  // every judged item of every GPU passed, and there was a GPU
  // "host h GPU 0 (GPU-...): pinned h2d ...": every failure, each naming its GPU.
  std::vector<std::string> failures() const;
};

// p in [0, 1], nearest rank: the smallest sample with at least p of the samples at or below it.
double percentile(std::vector<double> xs, double p);

// InputError when `record` is not a check record.
CheckAnalysis analyse_check(const RunRecord& record);

}  // namespace pinbench
