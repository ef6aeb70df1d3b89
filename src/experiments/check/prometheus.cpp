#include "experiments/check/prometheus.hpp"

#include <algorithm>
#include <functional>
#include <set>

#include <fmt/format.h>

#include "framework/printable.hpp"

namespace pinbench::experiments::check {
namespace {

struct Metric {
  const char* name;
  const char* help;
  // Each series of one GPU: the labels beyond the GPU's own, and the value.
  std::function<void(const MetricsGpu&, std::vector<std::pair<std::string, double>>&)> series;
};

void rate(std::vector<std::pair<std::string, double>>& out, const char* memory,
          const char* direction, const std::optional<double>& gb_per_s) {
  if (gb_per_s)
    out.emplace_back(fmt::format(",memory=\"{}\",direction=\"{}\"", memory, direction), *gb_per_s);
}

const std::vector<Metric>& metrics() {
  static const std::vector<Metric> all = {
      {"pinbench_check_rate_gigabytes_per_second",
       "Median copy rate of the check, in GB/s (10^9 bytes per second), by host memory kind and "
       "direction.",
       [](const MetricsGpu& g, auto& out) {
         rate(out, "pinned", "h2d", g.check->pinned_h2d);
         rate(out, "pinned", "d2h", g.check->pinned_d2h);
         rate(out, "pageable", "h2d", g.check->pageable_h2d);
         rate(out, "pageable", "d2h", g.check->pageable_d2h);
       }},
      {"pinbench_check_pin_gigabytes_per_second",
       "How fast one cudaHostAlloc page-locked the check's pin size, in GB/s (10^9 bytes per "
       "second), from the call to its return.",
       [](const MetricsGpu& g, auto& out) {
         if (g.check->pin_gb_per_s) out.emplace_back("", *g.check->pin_gb_per_s);
       }},
      {"pinbench_check_round_trip_seconds",
       "The 4 KiB pinned round trip (host to device and back), in seconds, at a quantile.",
       [](const MetricsGpu& g, auto& out) {
         if (g.check->round_trip_p50_us)
           out.emplace_back(",quantile=\"0.5\"", *g.check->round_trip_p50_us * 1e-6);
         if (g.check->round_trip_p99_us)
           out.emplace_back(",quantile=\"0.99\"", *g.check->round_trip_p99_us * 1e-6);
       }},
      {"pinbench_check_link_generation",
       "The GPU's PCIe generation: its maximum, and what it ran at under load.",
       [](const MetricsGpu& g, auto& out) {
         if (g.check->gpu.pcie.max_gen > 0)
           out.emplace_back(",state=\"max\"", g.check->gpu.pcie.max_gen);
         if (g.check->gpu.loaded_read)
           out.emplace_back(",state=\"loaded\"", g.check->gpu.pcie_loaded.current_gen);
       }},
      {"pinbench_check_link_width",
       "The GPU's PCIe link width in lanes: its maximum, and what it ran at under load.",
       [](const MetricsGpu& g, auto& out) {
         if (g.check->gpu.pcie.max_width > 0)
           out.emplace_back(",state=\"max\"", g.check->gpu.pcie.max_width);
         if (g.check->gpu.loaded_read)
           out.emplace_back(",state=\"loaded\"", g.check->gpu.pcie_loaded.current_width);
       }},
      {"pinbench_check_passed",
       "1 when the check passed, 0 when it failed; checks with nothing to judge them by are left "
       "out.",
       [](const MetricsGpu& g, auto& out) {
         for (const CheckItem& item : g.check->items) {
           if (item.judged)
             out.emplace_back(fmt::format(",check=\"{}\"", metric_label(item.check)),
                              item.passed ? 1 : 0);
         }
       }},
      {"pinbench_check_gpu_passed", "1 when every judged check of the GPU passed, else 0.",
       [](const MetricsGpu& g, auto& out) { out.emplace_back("", g.check->passed() ? 1 : 0); }},
      {"pinbench_fleet_gpu_flagged",
       "1 when the fleet flagged the GPU (an outlier in its group, a link below its max, a "
       "failed check), else 0.",
       [](const MetricsGpu& g, auto& out) {
         if (g.flagged) out.emplace_back("", *g.flagged ? 1 : 0);
       }},
  };
  return all;
}

std::string gpu_labels(const MetricsGpu& g) {
  const GpuInfo& gpu = g.check->gpu;
  return fmt::format("host=\"{}\",gpu=\"{}\",uuid=\"{}\",bus_id=\"{}\",model=\"{}\"",
                     metric_label(g.host), gpu.index, metric_label(gpu.uuid),
                     metric_label(gpu.pci_bus_id), metric_label(gpu.name));
}

}  // namespace

std::string metric_label(const std::string& value) {
  // The value's text, one to one: between its backslashes and line feeds (ASCII, so never inside
  // a UTF-8 sequence), printable()'s escapes; each backslash doubled, each line feed kept.
  std::string text;
  text.reserve(value.size());
  std::size_t at = 0;
  for (;;) {
    const std::size_t stop = value.find_first_of("\\\n", at);
    text += printable(std::string_view(value).substr(
        at, stop == std::string::npos ? std::string::npos : stop - at));
    if (stop == std::string::npos) break;
    text += value[stop] == '\\' ? "\\\\" : "\n";
    at = stop + 1;
  }
  // The exposition format's escapes.
  std::string out;
  out.reserve(text.size() + 8);
  for (char c : text) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string check_record_metrics(const RunRecord& check) {
  const CheckAnalysis a = analyse_check(check);
  std::vector<MetricsGpu> gpus;
  for (const GpuCheck& g : a.gpus) {
    gpus.push_back({a.hostname, &g, rfc3339_seconds(check.created_utc), std::nullopt,
                    a.pin_limits_read ? &a.pin_warnings : nullptr});
  }
  return check_metrics(gpus);
}

std::string check_metrics(const std::vector<MetricsGpu>& gpus) {
  std::string out;
  for (const Metric& m : metrics()) {
    std::string samples;
    for (const MetricsGpu& g : gpus) {
      std::vector<std::pair<std::string, double>> series;
      m.series(g, series);
      const std::string labels = gpu_labels(g);
      for (const auto& [extra, value] : series) {
        samples += fmt::format("{}{{{}{}}} {}\n", m.name, labels, extra, value);
      }
    }
    if (samples.empty()) continue;  // a metric with no series is left out whole
    out += fmt::format("# HELP {} {}\n# TYPE {} gauge\n{}", m.name, m.help, m.name, samples);
  }
  std::string hosts;
  std::set<std::string> seen;
  for (const MetricsGpu& g : gpus) {
    if (!g.recorded || !seen.insert(g.host).second) continue;
    hosts += fmt::format("pinbench_check_timestamp_seconds{{host=\"{}\"}} {}\n",
                         metric_label(g.host), *g.recorded);
  }
  if (!hosts.empty()) {
    out +=
        "# HELP pinbench_check_timestamp_seconds When the check ran, in seconds since 1970.\n"
        "# TYPE pinbench_check_timestamp_seconds gauge\n" +
        hosts;
  }
  // Each host once, every limit with its 0 or 1, so an alert sees a warning come and go.
  std::string warnings;
  seen.clear();
  for (const MetricsGpu& g : gpus) {
    if (g.pin_warnings == nullptr || !seen.insert(g.host).second) continue;
    for (const char* limit : kPinLimitIds) {
      const bool stands = std::any_of(g.pin_warnings->begin(), g.pin_warnings->end(),
                                      [&](const PinWarning& w) { return w.limit == limit; });
      warnings += fmt::format("pinbench_check_pin_limit_warning{{host=\"{}\",limit=\"{}\"}} {}\n",
                              metric_label(g.host), limit, stands ? 1 : 0);
    }
  }
  if (!warnings.empty()) {
    out +=
        "# HELP pinbench_check_pin_limit_warning 1 when a limit on pinning bites on the host "
        "(the memory the process may use, RLIMIT_MEMLOCK, a per-call limit, vm.max_map_count), "
        "else 0.\n"
        "# TYPE pinbench_check_pin_limit_warning gauge\n" +
        warnings;
  }
  return out;
}

}  // namespace pinbench::experiments::check
