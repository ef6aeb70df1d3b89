// `pinbench host`'s figures, from its record: every GPU alone and all together, per direction
// and memory kind, each GPU's together/alone ratio, the aggregate over the union of the GPUs'
// intervals against the sum of their alone rates, and the peer-to-peer matrix where there were
// two or more GPUs. CUDA-free, so a recorded host replays anywhere.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "framework/config_schema.hpp"
#include "framework/record.hpp"
#include "framework/report_model.hpp"
#include "framework/report_tables.hpp"

namespace pinbench::experiments::host {

// What `pinbench host` was asked for (measure.hpp), as the record's config holds it.
struct HostConfig {
  std::vector<int> devices;            // empty: every device
  std::uint64_t bytes = 256ull << 20;  // per copy
  int copies_per_round = 2;            // per GPU and direction in one round
  int rounds = 5;                      // samples per case
  bool place_on_gpu_node = true;

  // The record's config: each key written (put_fields, the devices filled in) and validated
  // (config_fields) from here.
  static constexpr auto fields() {
    return std::make_tuple(
        field("bytes", &HostConfig::bytes, FieldKind::kSize),
        field("devices", &HostConfig::devices, FieldKind::kCounts),
        field("rounds", &HostConfig::rounds, FieldKind::kCount),
        field("copies_per_round", &HostConfig::copies_per_round, FieldKind::kCount),
        field("place_on_gpu_node", &HostConfig::place_on_gpu_node, FieldKind::kFlag));
  }
};

struct HostRow {
  std::string direction, memory;
  int gpu = -1;                          // -1: the aggregate of every GPU
  std::optional<double> alone_gb_per_s;  // the aggregate: the sum of the GPUs' alone rates
  std::optional<double> together_gb_per_s;
  std::optional<double> ratio() const;  // together / alone
};

struct PeerCell {
  int from = 0, to = 0;
  bool peer_access = false;
  std::optional<double> gb_per_s;
};

struct HostAnalysis {
  std::vector<HostRow> rows;  // per direction and memory: each GPU, then the aggregate
  std::vector<PeerCell> peers;
  int gpus = 0;
};

// InputError when `record` is not a host record.
HostAnalysis analyse_host(const RunRecord& record);

// The tables every printer shows for a host record.
std::vector<ReportTable> host_tables(const HostAnalysis& a);

// Each GPU's rate alone beside its rate with every GPU copying at once, by direction and memory
// kind, as bars (the aggregate's too where there are two GPUs or more).
ChartSpec host_chart(const HostAnalysis& a);

}  // namespace pinbench::experiments::host
