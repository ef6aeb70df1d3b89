// Check results in Prometheus's text exposition format, as node_exporter's textfile collector
// reads them (`--collector.textfile.directory`): `pinbench check --prometheus FILE` for one host,
// `pinbench fleet --prometheus FILE` for every host of a fleet. Rates are in gigabytes (10^9
// bytes) per second, the round trip in seconds, a check's outcome 1 (passed) or 0; every GPU's
// series carries the labels host, gpu (the CUDA index), uuid, bus_id and model, and each host's
// (when its check ran, whether a limit on pinning bites) the label host. docs/fleet.md shows a
// node_exporter set-up.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "experiments/check/analysis.hpp"

namespace pinbench::experiments::check {

// One GPU's figures, with its host, when its check ran and, in a fleet, whether it was flagged.
struct MetricsGpu {
  std::string host;
  const GpuCheck* check = nullptr;
  std::optional<std::int64_t> recorded;  // seconds since 1970, from the record's created_utc
  std::optional<bool> flagged;           // fleet only
  // Its host's limits on pinning that bite (pin_check.hpp); nullptr where its check did not read
  // them (a record made before it did).
  const std::vector<PinWarning>* pin_warnings = nullptr;
};

// The exposition text: each metric's HELP and TYPE lines, then its series, and each host's
// pinbench_check_timestamp_seconds, so an alert can tell a stale file from a fresh one, and
// pinbench_check_pin_limit_warning, 1 or 0 for each limit (kPinLimitIds), where it was read.
std::string check_metrics(const std::vector<MetricsGpu>& gpus);

// check_metrics of one check record's GPUs.
std::string check_record_metrics(const RunRecord& check);

// A label value as the format writes it, one to one: no two values give one label, so no two
// hosts share a series. The value's own text keeps its bytes but for those no file should hold:
// every control character and byte that is not UTF-8 shown as printable() shows it (\x01,
// \u0085), and, so that such an escape cannot be mistaken for a host that names itself that way,
// every backslash of the value doubled first. A line feed stays one (the format's own \n). Then
// the format's escapes: backslash, double quote and line feed. A host named "c<0x01>d" is
// c\\x01d in the file, one named "c\x01d" (a backslash, then x01) c\\\\x01d.
std::string metric_label(const std::string& value);

}  // namespace pinbench::experiments::check
