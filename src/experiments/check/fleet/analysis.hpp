// The fleet view (`pinbench fleet`): many hosts' check records, made by any launcher (Slurm,
// pdsh, a Kubernetes job, `mpirun ... check --mpi`), as one table of GPUs with what is wrong
// with each flagged. CUDA-free: it runs wherever the records were collected.
//
// The rules (docs/fleet.md): a GPU is an outlier on a rate when it lies below the median of its
// group (same GPU model, same maximum link generation and width) by more than the larger of
// 3 scaled MADs (1.4826 x the median absolute deviation, a standard deviation for normal data
// that a few bad GPUs cannot inflate) and 10% of the median; on the 4 KiB round trip when it lies
// above by more than the larger of 3 scaled MADs and 25%. Groups of fewer than 3 GPUs are not
// judged for outliers (a median of two says nothing about which is off). A GPU whose link ran
// below its max under load, or whose check failed, is flagged too. The same host and GPU UUID
// seen in two records is counted once (the newest record's) and named.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "experiments/check/analysis.hpp"
#include "framework/config_schema.hpp"
#include "framework/record.hpp"

namespace pinbench::experiments::check {

// A fleet record's experiment.
inline constexpr const char* kFleetExperiment = "fleet";

constexpr double kOutlierMads = 3.0;
constexpr double kMadScale = 1.4826;
constexpr double kOutlierRateShare = 0.10;
constexpr double kOutlierLatencyShare = 0.25;

// What the outlier rule says of `value` against `group` (which holds it). `higher_is_worse`:
// the round trip. Nothing when the group has fewer than 3 values.
struct OutlierTest {
  double median = 0.0;
  double scaled_mad = 0.0;
  double bound = 0.0;  // below (or above) this is an outlier
  bool outlier = false;
};
std::optional<OutlierTest> outlier_test(double value, const std::vector<double>& group,
                                        bool higher_is_worse);
// The rule alone (median, scaled MAD, bound; `outlier` false), for testing many values of one
// group against it.
std::optional<OutlierTest> outlier_rule(const std::vector<double>& group, bool higher_is_worse);

struct FleetGpu {
  std::string host;
  std::string source;  // the record it came from
  GpuCheck check;
  std::string group;  // "NVIDIA H200, gen 5 x16"
  std::vector<std::string> flags;
  std::string created_utc;  // when its check ran
  // Its host's limits on pinning that bite, as its check read them; not read: a check record
  // made before the check read them.
  bool pin_limits_read = false;
  std::vector<PinWarning> pin_warnings;
};

// One host's check as a fleet holds it: where it came from, when it ran, and its figures and
// verdicts (the host name in check.hostname, "unnamed host" where the record has none).
struct FleetMember {
  std::string source;
  std::string created_utc;
  CheckAnalysis check;
};

// InputError naming `source` for a record that is not a check (another experiment, or a fleet
// record: give its sources instead).
FleetMember fleet_member(const RunRecord& record, const std::string& source);
std::vector<FleetMember> fleet_members(const std::vector<RunRecord>& records,
                                       const std::vector<std::string>& sources);

struct FleetHost {
  std::string host;
  std::string source;
  std::string no_gpu;  // a host that had no GPU to check, and why
  // The limits on pinning that bite there (not flags: a warning fails no check).
  bool pin_limits_read = false;
  std::vector<PinWarning> pin_warnings;
};

struct FleetAnalysis {
  std::vector<FleetGpu> gpus;  // by host, then GPU index
  std::vector<FleetHost> hosts;
  std::vector<std::string> duplicates;  // "host h GPU GPU-... in a.json and b.json: counted once"
  // The same, as the table's rows: host, GPU index, UUID, "a.json and b.json", the one counted.
  std::vector<std::vector<std::string>> duplicate_rows;
  std::vector<std::string> notes;            // groups too small to judge, and the like
  std::vector<std::string> flagged() const;  // every flag of every GPU and host, one line each
};

// `records[i]` was read from `sources[i]`. InputError naming the source for a record that is not
// a check (another experiment, or a fleet record: give its members instead).
FleetAnalysis analyse_fleet(const std::vector<RunRecord>& records,
                            const std::vector<std::string>& sources);
FleetAnalysis analyse_fleet(const std::vector<FleetMember>& members);

// A fleet record's config beside its hosts: where each host's record came from and the columns
// of each GPU's row, written (make_fleet_record) and validated (config_fields) from one list.
struct FleetRecordConfig {
  std::vector<std::string> sources;
  std::vector<std::string> gpu_columns;

  static constexpr auto fields() {
    return std::make_tuple(
        field("sources", &FleetRecordConfig::sources, FieldKind::kTexts),
        field("gpu_columns", &FleetRecordConfig::gpu_columns, FieldKind::kTexts));
  }
};

// What config.hosts[i] holds of a host's pin beside its rows, each optional (a fleet record made
// before the check pinned has none): the pin asked for, why none was made, and the limits' warnings
// (pin_check.hpp; its keys are PinWarningFields').
struct FleetHostPin {
  std::optional<std::uint64_t> pin_bytes;
  std::optional<std::string> pin_refused;

  static constexpr auto fields() {
    return std::make_tuple(field("pin_bytes", &FleetHostPin::pin_bytes, FieldKind::kSizeOrZero),
                           field("pin_refused", &FleetHostPin::pin_refused, FieldKind::kText));
  }
};

// A fleet record: experiment "fleet", the analysing host in machine, and in config what the
// fleet analysis needs of each host, not its check record whole (which is about 24 KB a GPU, most
// of it the round trip's samples): config.hosts holds each host's source, created_utc, host,
// no_gpu, floors, its pin (FleetHostPin) and limits' warnings, and one row per GPU in the
// columns config.gpu_columns names (link, medians, round-trip quantiles, pin rate), about 250
// bytes a GPU; replayed, each host is judged again from them.
RunRecord make_fleet_record(const std::vector<FleetMember>& members, const std::string& hostname);

// The hosts of a fleet record: from config.hosts, or, in a fleet record of pinbench 0.1, from the
// check records it holds whole (members). InputError naming the field for a bad row.
std::vector<FleetMember> fleet_members_from(const RunRecord& fleet);

// A fleet record of pinbench 0.1 holds its check records whole, in this section
// (RunRecord::sections), as to_json writes them.
inline constexpr const char* kMembersSection = "members";
// The section as a record read keeps it: each member read and validated as a record (InputError
// "run record: 'members[3]': ..."), then written as to_json writes it; null where it holds none.
nlohmann::json read_members(const nlohmann::json& members);

nlohmann::json fleet_members_to_json(const std::vector<FleetMember>& members);
// `hosts` as config.hosts holds them, each GPU row read by the column names of
// config.gpu_columns, and by nothing else: a config without them is refused (InputError), never
// read in pinbench's own order; a column added since pinbench first wrote fleet records (the pin
// rate) is read where the record names it, and is no figure where it does not. Each host's
// created_utc is an RFC 3339 date-time.
std::vector<FleetMember> fleet_members_from_json(const nlohmann::json& hosts,
                                                 const nlohmann::json& config);

// What `check --mpi` gathers at rank 0: every rank's record text, concatenated, and each
// rank's length. InputError when the lengths do not add up to the bytes.
std::vector<std::string> split_gathered(const std::string& bytes,
                                        const std::vector<std::uint64_t>& lengths);

// The fleet record of rank texts (rank i's record is "rank i"): each parsed and validated as
// any record; InputError "rank N sent ...: WHY" for one that is not a valid check record.
RunRecord fleet_from_rank_texts(const std::vector<std::string>& texts, const std::string& hostname);

}  // namespace pinbench::experiments::check
