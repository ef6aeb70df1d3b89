#include "framework/report_tables.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "framework/case_figures.hpp"
#include "framework/units.hpp"

namespace pinbench {
namespace {

std::string num(const std::optional<double>& v, const char* spec = "{:.3f}") {
  return v ? fmt::format(fmt::runtime(spec), *v) : kDash;
}

std::string cuda_label(int v) {
  return v > 0 ? fmt::format("CUDA {}.{}", v / 1000, (v % 1000) / 10) : std::string("unknown");
}

std::string known(const std::string& s) {
  return s.empty() ? std::string("unknown") : s;
}

std::string pcie_words(const PcieLink& p) {
  if (p.current_gen <= 0 && p.current_width <= 0) return "unknown";
  return fmt::format("gen {} x{} (max gen {} x{})", p.current_gen, p.current_width, p.max_gen,
                     p.max_width);
}

std::string compute_capability(const MachineInfo& m) {
  return m.cc_major > 0 ? fmt::format("{}.{}", m.cc_major, m.cc_minor) : std::string("unknown");
}

std::string bytes_or_unknown(std::uint64_t b) {
  return b > 0 ? format_size(b) : std::string("unknown");
}

std::string count_or_unknown(int n) {
  return n > 0 ? std::to_string(n) : std::string("unknown");
}

std::string host_cpu_field(const MachineInfo& m) {
  return m.host_logical_cpus > 0
             ? fmt::format("{}, {} logical CPUs", known(m.host_cpu), m.host_logical_cpus)
             : known(m.host_cpu);
}

// Sizes in the order they first appear, then sorted: the union of every series' sizes.
std::vector<std::uint64_t> panel_sizes(const SizePanel& p) {
  std::vector<std::uint64_t> sizes;
  for (const SizeSeries& s : p.series) {
    for (const auto& point : s.gb_per_s) sizes.push_back(point.first);
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

std::string anchor(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (keep) {
      out += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

ReportTable generic_table(const SizePanel& p) {
  ReportTable t;
  t.id = anchor(p.part + "-" + p.method + "-" + p.direction);
  t.title = p.title() + ": median GB/s by size";
  t.header = {"size"};
  t.numeric = {false};
  for (const SizeSeries& s : p.series) {
    t.header.push_back(s.memory + " GB/s");
    t.numeric.push_back(true);
  }
  // A series' points are sorted by size (size_panels): each column is walked once, beside the
  // rows, so the table costs its cells.
  std::vector<std::size_t> next(p.series.size(), 0);
  for (std::uint64_t bytes : panel_sizes(p)) {
    std::vector<std::string> row{format_size(bytes)};
    for (std::size_t i = 0; i < p.series.size(); ++i) {
      const auto& points = p.series[i].gb_per_s;
      std::size_t& at = next[i];
      while (at < points.size() && points[at].first < bytes) ++at;
      std::optional<double> v;
      if (at < points.size() && points[at].first == bytes) v = points[at].second;
      row.push_back(num(v, "{:.2f}"));
    }
    t.rows.push_back(std::move(row));
  }
  for (const std::string& f : p.failed) t.notes.push_back("Gate failed, no figure: " + f + ".");
  return t;
}

}  // namespace

std::string still_running_words(const std::vector<std::string>& processes, const std::string& who) {
  if (processes.empty()) return "";
  return fmt::format("{} the program started {} still running when {} stopped waiting for {} ({})",
                     processes.size() == 1 ? std::string("1 process")
                                           : fmt::format("{} processes", processes.size()),
                     processes.size() == 1 ? "was" : "were", who,
                     processes.size() == 1 ? "it" : "them",
                     fmt::format("{}", fmt::join(processes, ", ")));
}

std::string direction_words(const std::string& d) {
  if (d == "h2d") return "host to device";
  if (d == "d2h") return "device to host";
  if (d == "d2d") return "device to device";
  if (d == "bidir") return "both directions at once";
  if (d == "bidir-h2d") return "both at once, the host-to-device half";
  if (d == "bidir-d2h") return "both at once, the device-to-host half";
  if (d == "bidir-total") return "both at once, total";
  return d;
}

std::string machine_line(const MachineInfo& m) {
  // Zero is how a record says "not known": it reads "unknown", never as a measured zero or a
  // silently missing part, the same as in the terminal text and the HTML's field list.
  const auto count = [](int n, const char* what) {
    return n > 0 ? fmt::format("{} {}", n, what) : fmt::format("{} unknown", what);
  };
  const std::string device = known(m.device_name);
  const std::vector<std::string> parts{
      "compute capability " + compute_capability(m), count(m.sm_count, "SMs"),
      count(m.copy_engines, "copy engines"),
      m.device_memory_bytes > 0 ? format_size(m.device_memory_bytes)
                                : std::string("device memory unknown")};
  std::string host = known(m.host_cpu);
  host += ", " + count(m.host_logical_cpus, "logical CPUs");
  host += ", " + (m.host_memory_bytes > 0 ? format_size(m.host_memory_bytes)
                                          : std::string("host memory unknown"));
  if (!m.os.empty() && m.os != "unknown") host += ", " + m.os;
  // A record made without a GPU (doctor of a program, on a host with none) describes none: one
  // phrase says so, and why, instead of eight "unknown"s.
  if (no_device_described(m)) return no_device_words(m) + "; host " + host;
  return fmt::format("{} ({}); PCIe {}; driver {} ({}), runtime {}; host {}", device,
                     fmt::join(parts, ", "), pcie_words(m.pcie), known(m.driver_release),
                     cuda_label(m.driver_version), cuda_label(m.runtime_version), host);
}

bool no_device_described(const MachineInfo& m) {
  return m.device_name.empty() && m.sm_count == 0 && m.driver_version == 0 &&
         m.runtime_version == 0 && m.device_memory_bytes == 0;
}

std::string no_device_words(const MachineInfo& m) {
  return m.no_device.empty() ? "no GPU described (the run had none to describe)"
                             : "no GPU described: " + m.no_device;
}

namespace {

// A machine that describes no GPU, field by field: that, and why, then the host's fields only.
std::vector<std::pair<std::string, std::string>> host_only_fields(const MachineInfo& m) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!m.hostname.empty()) out.emplace_back("Host", m.hostname);
  out.emplace_back("Device", no_device_words(m));
  out.emplace_back("Host CPU", host_cpu_field(m));
  out.emplace_back("Host memory", bytes_or_unknown(m.host_memory_bytes));
  out.emplace_back("OS", known(m.os));
  if (m.host_numa_nodes > 1) out.emplace_back("Host NUMA nodes", std::to_string(m.host_numa_nodes));
  return out;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> machine_fields(const MachineInfo& m) {
  if (no_device_described(m)) return host_only_fields(m);
  std::vector<std::pair<std::string, std::string>> out;
  // Records made before pinbench named the host and the device's UUID show what they always did.
  if (!m.hostname.empty()) out.emplace_back("Host", m.hostname);
  if (!m.device_uuid.empty()) {
    out.emplace_back("Device index and UUID", fmt::format("{}, {}", m.device_index, m.device_uuid));
  }
  if (!m.cpu_list.empty()) out.emplace_back("CPUs nearest the device", m.cpu_list);
  std::vector<std::pair<std::string, std::string>> rest = {
      {"Device", known(m.device_name)},
      {"Compute capability", compute_capability(m)},
      {"SMs", count_or_unknown(m.sm_count)},
      {"Copy engines", count_or_unknown(m.copy_engines)},
      {"Device memory", bytes_or_unknown(m.device_memory_bytes)},
      {"PCIe link", pcie_words(m.pcie)},
      {"PCI bus", known(m.pci_bus_id)},
      {"NUMA node", m.numa_node >= 0 ? std::to_string(m.numa_node) : std::string("unknown")},
      {"Driver", fmt::format("{} ({})", known(m.driver_release), cuda_label(m.driver_version))},
      {"Runtime", cuda_label(m.runtime_version)},
      {"Host CPU", host_cpu_field(m)},
      {"Host memory", bytes_or_unknown(m.host_memory_bytes)},
      {"OS", known(m.os)},
      {"Kernels read pageable memory", m.pageable_memory_access != 0 ? "yes" : "no"},
  };
  out.insert(out.end(), rest.begin(), rest.end());
  // Only where it changes what pageable memory means (records before it was read say nothing).
  if (reads_pageable_through_host_page_tables(m)) {
    out.emplace_back("Pageable memory", pageable_addressing(m));
  }
  if (m.host_numa_nodes > 1) out.emplace_back("Host NUMA nodes", std::to_string(m.host_numa_nodes));
  return out;
}

bool reads_pageable_through_host_page_tables(const MachineInfo& m) {
  return m.pageable_memory_access_uses_host_page_tables != 0;
}

std::string pageable_addressing(const MachineInfo& m) {
  if (reads_pageable_through_host_page_tables(m)) {
    return "read through the host's page tables (HMM/ATS, as on Grace Hopper): the GPU reaches "
           "pageable memory in place, and copies from it may run near the page-locked rate";
  }
  if (m.pageable_memory_access != 0) {
    return "reachable by kernels through HMM (the driver mirrors the host's page tables and "
           "migrates pages on fault); copies still go through the driver's staging buffers";
  }
  return "copied through the driver's staging buffers (kernels cannot read it)";
}

std::string gates_words(std::size_t passed, std::size_t gates) {
  if (gates == 0) return "no gates";
  return fmt::format("{} of {} gates passed", passed, gates);
}

std::string record_line(const RunRecord& r) {
  std::size_t passed = 0;
  for (const Gate& g : r.gates) passed += g.passed ? 1 : 0;
  return fmt::format(
      "{}, recorded {} by pinbench {}; {}; {}{}", r.experiment, r.created_utc, r.pinbench_version,
      r.source == "published" ? "published tables, one figure per case" : r.source,
      gates_words(passed, r.gates.size()),
      r.wall_ms > 0.0 ? fmt::format("; wall time {:.2f} s", r.wall_ms / 1000.0) : std::string());
}

std::vector<std::string> failed_gates(const RunRecord& r) {
  std::vector<std::string> out;
  for (const Gate& g : r.gates) {
    if (!g.passed) {
      out.push_back(fmt::format("gate {} failed{}", g.name,
                                g.detail.empty() ? std::string() : ": " + g.detail));
    }
  }
  return out;
}

std::string SizePanel::title() const {
  return fmt::format("{} · {} · {}", part, method, direction_words(direction));
}

bool SizePanel::is_sweep() const {
  for (const SizeSeries& s : series) {
    int with_rate = 0;
    for (const auto& point : s.gb_per_s) with_rate += point.second ? 1 : 0;
    if (with_rate >= 2) return true;
  }
  return false;
}

std::vector<SizePanel> size_panels(const RunRecord& r) {
  std::vector<SizePanel> panels;
  // Where each panel and series sits, and the sizes a series holds: looked up, not searched, so
  // a record of many cases is read in time proportional to them.
  std::map<std::tuple<std::string, std::string, std::string>, std::size_t> panel_at;
  std::map<std::pair<std::size_t, std::string>, std::size_t> series_at;
  std::set<std::tuple<std::size_t, std::size_t, std::uint64_t>> sizes;  // panel, series, bytes
  for (const Case& c : r.cases) {
    const auto [panel_it, new_panel] =
        panel_at.emplace(std::make_tuple(c.part, c.method, c.direction), panels.size());
    if (new_panel) panels.push_back({c.part, c.method, c.direction, {}, {}});
    const std::size_t pi = panel_it->second;
    SizePanel& panel = panels[pi];
    const auto [series_it, new_series] =
        series_at.emplace(std::make_pair(pi, c.memory), panel.series.size());
    if (new_series) panel.series.push_back({c.memory, {}});
    const std::size_t si = series_it->second;
    // The first case of a size counts, as everywhere else a record is read.
    if (!sizes.emplace(pi, si, c.bytes).second) continue;
    const CaseFigures f = figures_of(c);
    panel.series[si].gb_per_s.emplace_back(c.bytes, f.gb_per_s);
    if (!c.verified) {
      panel.failed.push_back(
          fmt::format("{} {} (gate {})", c.memory, format_size(c.bytes), c.gate));
    }
  }
  for (SizePanel& p : panels) {
    for (SizeSeries& s : p.series) {
      std::stable_sort(s.gb_per_s.begin(), s.gb_per_s.end(),
                       [](const auto& x, const auto& y) { return x.first < y.first; });
    }
  }
  return panels;
}

std::vector<ReportTable> report_tables(const RunRecord& r) {
  std::vector<ReportTable> out;
  for (const SizePanel& p : size_panels(r)) out.push_back(generic_table(p));
  return out;
}

}  // namespace pinbench
