#include "experiments/check/analysis.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include <fmt/format.h>

#include "framework/case_figures.hpp"
#include "framework/errors.hpp"
#include "framework/host_info.hpp"
#include "framework/printable.hpp"
#include "framework/stats.hpp"

namespace pinbench::experiments::check {
namespace {

using nlohmann::json;

std::string link_text(const PcieLink& l) {
  if (l.current_gen <= 0 || l.current_width <= 0) return "unknown";
  return fmt::format("gen {} x{}", l.current_gen, l.current_width);
}

// A check case's GPU (its extra's "gpu"), or -1.
int gpu_from(const Case& c) {
  const auto it = c.extra.find("gpu");
  return it != c.extra.end() && it->is_number_integer() ? it->get<int>() : -1;
}

// The check's cases by GPU, direction and memory, the first of each: one pass over the record,
// so a record of many GPUs is read in the time of its length.
class CheckCases {
 public:
  explicit CheckCases(const RunRecord& r) {
    for (const Case& c : r.cases) {
      if (c.part == "check") cases_.emplace(Key{gpu_from(c), c.direction, c.memory}, &c);
      if (c.part == kPinPart) pins_.emplace(PinKey{gpu_from(c), c.method}, &c);
    }
  }
  const Case* find(int gpu, const std::string& direction, const std::string& memory) const {
    const auto it = cases_.find(Key{gpu, direction, memory});
    return it == cases_.end() ? nullptr : it->second;
  }
  // A GPU's pin case of `method` (kPinMethod, kUnpinMethod).
  const Case* pin(int gpu, const std::string& method) const {
    const auto it = pins_.find(PinKey{gpu, method});
    return it == pins_.end() ? nullptr : it->second;
  }

 private:
  using Key = std::tuple<int, std::string, std::string>;
  using PinKey = std::pair<int, std::string>;
  std::map<Key, const Case*> cases_;
  std::map<PinKey, const Case*> pins_;
};

std::optional<double> rate_of(const Case* c) {
  if (c == nullptr) return std::nullopt;
  return figures_of(*c).gb_per_s;
}

// A rate against its floor: absolute when set, else `share` of the link's rate at its max.
CheckItem rate_item(const std::string& name, const std::optional<double>& rate,
                    const std::optional<double>& absolute, double share, const GpuInfo& g) {
  CheckItem item;
  item.check = name;
  item.value = rate;
  item.value_text = rate ? fmt::format("{:.2f} GB/s", *rate) : "no figure (gate failed)";
  double floor = 0.0;
  if (absolute) {
    floor = *absolute;
    item.limit_text = fmt::format("at least {:.2f} GB/s (set)", floor);
  } else {
    const double link = pcie_link_gb_per_s(g.pcie.max_gen, g.pcie.max_width);
    if (link <= 0.0) {
      item.judged = false;
      item.limit_text = "no floor: the link's generation and width are unknown (set one)";
      return item;
    }
    floor = share * link;
    item.limit_text = fmt::format("at least {:.2f} GB/s ({:.0f}% of gen {} x{}, {:.2f})", floor,
                                  100 * share, g.pcie.max_gen, g.pcie.max_width, link);
  }
  item.passed = rate && *rate >= floor;
  return item;
}

CheckItem ceiling_item(const std::string& name, const std::optional<double>& us, double ceiling) {
  CheckItem item;
  item.check = name;
  item.value = us;
  item.value_text = us ? fmt::format("{:.1f} µs", *us) : "no figure (gate failed)";
  item.limit_text = fmt::format("at most {:.1f} µs", ceiling);
  item.passed = us && *us <= ceiling;
  return item;
}

// The pin rate against its floor, where the check was asked to pin.
CheckItem pin_item(const GpuCheck& c, const CheckAnalysis& a) {
  CheckItem item;
  item.check = "pin rate";
  item.value = c.pin_gb_per_s;
  if (*a.pin_asked == 0) {
    item.judged = false;
    item.value_text = "not measured";
    item.limit_text = "the check was asked to pin nothing (--pin-bytes 0)";
    return item;
  }
  if (!a.pin_refused.empty()) {
    item.judged = false;
    item.value_text = "not attempted";
    item.limit_text = a.pin_refused;
    return item;
  }
  item.value_text =
      c.pin_gb_per_s ? fmt::format("{:.2f} GB/s", *c.pin_gb_per_s) : "no figure (gate failed)";
  item.limit_text = fmt::format("at least {:.2f} GB/s", a.floors.pin_gb_per_s);
  item.passed = c.pin_gb_per_s && *c.pin_gb_per_s >= a.floors.pin_gb_per_s;
  return item;
}

CheckItem link_item(const GpuInfo& g) {
  CheckItem item;
  item.check = "link";
  const PcieLink& l = g.loaded_read ? g.pcie_loaded : g.pcie;
  item.value_text = link_text(l) + (g.loaded_read ? " under load" : " (idle: not read under load)");
  if (g.pcie.max_gen <= 0 || g.pcie.max_width <= 0 || l.current_gen <= 0) {
    item.judged = false;
    item.limit_text = "sysfs does not give this GPU's link";
    return item;
  }
  item.limit_text = fmt::format("its max, gen {} x{}", g.pcie.max_gen, g.pcie.max_width);
  item.passed =
      g.loaded_read && l.current_gen >= g.pcie.max_gen && l.current_width >= g.pcie.max_width;
  return item;
}

}  // namespace

bool GpuCheck::passed() const {
  return std::all_of(items.begin(), items.end(),
                     [](const CheckItem& i) { return !i.judged || i.passed; });
}

std::vector<std::string> GpuCheck::failures() const {
  std::vector<std::string> out;
  for (const CheckItem& i : items) {
    if (i.judged && !i.passed) {
      out.push_back(fmt::format("{} {}, not {}", i.check, i.value_text, i.limit_text));
    }
  }
  return out;
}

bool CheckAnalysis::passed() const {
  return !gpus.empty() &&
         std::all_of(gpus.begin(), gpus.end(), [](const GpuCheck& g) { return g.passed(); });
}

std::vector<std::string> CheckAnalysis::failures() const {
  std::vector<std::string> out;
  const std::string host = hostname.empty() ? "unnamed host" : "host " + hostname;
  if (gpus.empty()) {
    out.push_back(fmt::format("{}: no GPU checked ({})", host,
                              no_gpu.empty() ? "the record holds none" : no_gpu));
  }
  for (const GpuCheck& g : gpus) {
    for (const std::string& f : g.failures()) {
      out.push_back(fmt::format("{} GPU {} ({}): {}", host, g.gpu.index, g.gpu.uuid, f));
    }
  }
  return out;
}

namespace {

// `line` cut to kVerdictBytes at a character's end, "..." in place of what was cut.
std::string fit_verdict(std::string line) {
  line = printable(line);
  if (line.size() <= kVerdictBytes) return line;
  std::size_t end = kVerdictBytes - 3;
  while (end > 0 && (static_cast<unsigned char>(line[end]) & 0xC0) == 0x80) --end;
  return line.substr(0, end) + "...";
}

}  // namespace

std::string check_verdict(const CheckAnalysis& a) {
  if (a.gpus.empty()) {
    return fit_verdict("pinbench: no GPU checked: " +
                       (a.no_gpu.empty() ? std::string("the record holds none") : a.no_gpu));
  }
  std::size_t failed = 0;
  std::string first;
  for (const GpuCheck& g : a.gpus) {
    for (const CheckItem& i : g.items) {
      if (!i.judged || i.passed) continue;
      if (failed++ > 0) continue;
      // The limit without its reasons: "at least 47.26 GB/s (75% of gen 5 x16, 63.02)" reads
      // "at least 47.26 GB/s".
      const std::string limit = i.limit_text.substr(0, i.limit_text.find(" ("));
      first = fmt::format("GPU {} {} {}, not {} ({})", g.gpu.index, i.check, i.value_text, limit,
                          g.gpu.uuid);
    }
  }
  if (failed == 0) {
    std::string line =
        fmt::format("pinbench: {} GPU{} passed", a.gpus.size(), a.gpus.size() == 1 ? "" : "s");
    if (!a.pin_warnings.empty()) {
      line += "; limits on pinning that bite:";
      for (const PinWarning& w : a.pin_warnings) line += " " + w.limit;
    }
    return fit_verdict(line);
  }
  return fit_verdict(fmt::format("pinbench: {}{}", first,
                                 failed == 1 ? "" : fmt::format("; {} more failed", failed - 1)));
}

std::string check_verdict_error(const std::string& why) {
  return fit_verdict("pinbench: check could not run: " + why);
}

CheckRecordConfig check_config_from(const nlohmann::json& config) {
  CheckRecordConfig c;
  if (config.contains("floors")) c.floors = floors_from_json(config["floors"]);
  get_fields(config, c);
  if (config.contains("pin_bytes")) c.pin_bytes = config["pin_bytes"].get<std::uint64_t>();
  if (config.contains("pin_warnings")) {
    c.pin_warnings = pin_warnings_from_json(config["pin_warnings"], "config.pin_warnings");
  }
  return c;
}

CheckAnalysis check_figures(const RunRecord& r) {
  if (r.experiment != "check") {
    throw InputError(fmt::format("a record of experiment '{}' is not a check", r.experiment));
  }
  CheckAnalysis a;
  a.hostname = r.machine.hostname;
  const CheckRecordConfig config = check_config_from(r.config);
  a.floors = config.floors;
  a.no_gpu = config.no_gpu;
  a.pin_asked = config.pin_bytes;
  a.pin_refused = config.pin_refused.value_or("");
  a.pin_limits_read = config.pin_warnings.has_value();
  if (config.pin_warnings) a.pin_warnings = *config.pin_warnings;
  const CheckCases cases(r);
  for (const GpuInfo& g : r.machine.gpus) {
    GpuCheck c;
    c.gpu = g;
    c.pinned_h2d = rate_of(cases.find(g.index, "h2d", "pinned"));
    c.pinned_d2h = rate_of(cases.find(g.index, "d2h", "pinned"));
    c.pageable_h2d = rate_of(cases.find(g.index, "h2d", "pageable"));
    c.pageable_d2h = rate_of(cases.find(g.index, "d2h", "pageable"));
    if (const Case* rt = cases.find(g.index, "round_trip", "pinned");
        rt != nullptr && figures_of(*rt).samples) {
      c.round_trip_p50_us = 1000.0 * percentile(rt->samples_ms, 0.50);
      c.round_trip_p99_us = 1000.0 * percentile(rt->samples_ms, 0.99);
    }
    if (const Case* pin = cases.pin(g.index, kPinMethod)) {
      c.pin_gb_per_s = figures_of(*pin).gb_per_s;
      c.pin_bytes = pin->bytes;
    }
    if (const Case* unpin = cases.pin(g.index, kUnpinMethod)) {
      c.unpin_ms = verified_median(*unpin);
    }
    a.gpus.push_back(std::move(c));
  }
  return a;
}

void judge_check(CheckAnalysis& a) {
  for (GpuCheck& c : a.gpus) {
    const GpuInfo& g = c.gpu;
    const CheckFloors& f = a.floors;
    c.items.clear();
    c.items.push_back(link_item(g));
    c.items.push_back(
        rate_item("pinned h2d", c.pinned_h2d, f.pinned_h2d_gb_per_s, f.pinned_share, g));
    c.items.push_back(
        rate_item("pinned d2h", c.pinned_d2h, f.pinned_d2h_gb_per_s, f.pinned_share, g));
    c.items.push_back(
        rate_item("pageable h2d", c.pageable_h2d, f.pageable_h2d_gb_per_s, f.pageable_share, g));
    c.items.push_back(
        rate_item("pageable d2h", c.pageable_d2h, f.pageable_d2h_gb_per_s, f.pageable_share, g));
    c.items.push_back(
        ceiling_item("4 KiB round trip p50", c.round_trip_p50_us, f.round_trip_p50_us));
    c.items.push_back(
        ceiling_item("4 KiB round trip p99", c.round_trip_p99_us, f.round_trip_p99_us));
    if (a.pin_asked) c.items.push_back(pin_item(c, a));
  }
  // Peers: each GPU's pinned rates against the host's median, which one bad GPU cannot move far.
  std::vector<double> h2d, d2h;
  for (const GpuCheck& c : a.gpus) {
    if (c.pinned_h2d) h2d.push_back(*c.pinned_h2d);
    if (c.pinned_d2h) d2h.push_back(*c.pinned_d2h);
  }
  // Once for the host: a host of many GPUs takes two medians, not two per GPU.
  const double mh = h2d.empty() ? 0.0 : median(h2d);
  const double md = d2h.empty() ? 0.0 : median(d2h);
  for (GpuCheck& c : a.gpus) {
    CheckItem item;
    item.check = "peers";
    if (a.gpus.size() < 2) {
      item.judged = false;
      item.value_text = "one GPU";
      item.limit_text = "no peer on this host to compare with";
    } else {
      const double keep = 1.0 - a.floors.peer_margin;
      item.value_text = fmt::format("pinned {} / {} GB/s",
                                    c.pinned_h2d ? fmt::format("{:.2f}", *c.pinned_h2d) : "—",
                                    c.pinned_d2h ? fmt::format("{:.2f}", *c.pinned_d2h) : "—");
      item.limit_text = fmt::format("within {:.0f}% of the host's medians {:.2f} / {:.2f} GB/s",
                                    100 * a.floors.peer_margin, mh, md);
      item.passed =
          c.pinned_h2d && c.pinned_d2h && *c.pinned_h2d >= keep * mh && *c.pinned_d2h >= keep * md;
    }
    c.items.push_back(std::move(item));
  }
}

CheckAnalysis analyse_check(const RunRecord& r) {
  CheckAnalysis a = check_figures(r);
  judge_check(a);
  return a;
}

}  // namespace pinbench::experiments::check
