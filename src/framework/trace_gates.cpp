#include "framework/trace_gates.hpp"

#include <algorithm>
#include <optional>
#include <sstream>

#include <fmt/format.h>

namespace pinbench {

using nlohmann::json;

namespace {

// The gate's part that the first of `claims` claiming the range names, or none. `words` is the
// range's name split at spaces, its direction and memory kind left off.
std::optional<std::string> gate_part(const std::vector<std::string>& words,
                                     const std::vector<RangeGate>& claims) {
  for (const RangeGate& g : claims) {
    std::istringstream in(g.range);
    std::size_t at = 0;
    std::string any;  // the word "{}" stood for
    bool matches = true;
    for (std::string w; matches && in >> w; ++at) {
      matches = at < words.size() && (w == words[at] || w == "{}");
      if (matches && w == "{}") any = words[at];
    }
    if (!matches || at != words.size()) continue;
    std::string part = g.part;
    if (const std::size_t hole = part.find("{}"); hole != std::string::npos) {
      part.replace(hole, 2, any);
    }
    return part;
  }
  return std::nullopt;
}

}  // namespace

std::vector<Gate> check_memory_kinds(const Trace& trace, const std::vector<RangeGate>& claims) {
  struct Check {
    std::string range;
    CopyDirection direction;
    DriverMemoryKind expected;
    std::size_t copies = 0, mismatches = 0;
    std::string first_mismatch;
  };
  std::vector<std::pair<std::string, Check>> checks;  // by gate name, in first-seen order
  const auto index = copies_by_correlation(trace);
  for (const NvtxRange& r : trace.ranges) {
    std::vector<std::string> words;
    std::istringstream in(r.name);
    for (std::string w; in >> w;) words.push_back(w);
    if (words.size() < 3) continue;
    const std::string& dir = words[words.size() - 2];
    const std::string& mem = words.back();
    if ((dir != "h2d" && dir != "d2h") || (mem != "pageable" && mem != "pinned")) continue;
    const std::optional<std::string> part =
        gate_part(std::vector<std::string>(words.begin(), words.end() - 2), claims);
    if (!part) continue;  // a range no experiment claims: not a memory-kind check
    const std::string gate = fmt::format("trace/kind/{}/{}/{}", *part, dir, mem);
    auto it =
        std::find_if(checks.begin(), checks.end(), [&](const auto& p) { return p.first == gate; });
    if (it == checks.end()) {
      checks.push_back(
          {gate, Check{r.name, dir == "h2d" ? CopyDirection::kH2D : CopyDirection::kD2H,
                       mem == "pageable" ? DriverMemoryKind::kPageable : DriverMemoryKind::kPinned,
                       0, 0, ""}});
      it = checks.end() - 1;
    }
    Check& c = it->second;
    for (const ApiCall& call : trace.api_calls) {
      if (!inside(call, r)) continue;
      const Copy* copy = find_copy(index, call);
      if (copy == nullptr || copy->direction != c.direction) continue;
      ++c.copies;
      const DriverMemoryKind seen = host_side(copy->direction, copy->src_kind, copy->dst_kind);
      if (seen != c.expected) {
        if (c.mismatches == 0) {
          c.first_mismatch = fmt::format("{} (correlation {}) saw {}", call.name, call.correlation,
                                         to_string(seen));
        }
        ++c.mismatches;
      }
    }
  }
  std::vector<Gate> gates;
  for (const auto& [name, c] : checks) {
    const char* dir_text = c.direction == CopyDirection::kH2D ? "host-to-device" : "device-to-host";
    const char* side = c.direction == CopyDirection::kH2D ? "source" : "destination";
    Gate g;
    g.name = name;
    g.passed = c.copies > 0 && c.mismatches == 0;
    if (c.copies == 0) {
      g.detail = fmt::format("no {} copy was traced inside NVTX range '{}' (records lost?)",
                             dir_text, c.range);
    } else if (c.mismatches == 0) {
      g.detail = fmt::format("the driver saw the {} of all {} {} copies in '{}' as {}", side,
                             c.copies, dir_text, c.range, to_string(c.expected));
    } else {
      g.detail = fmt::format(
          "the driver saw the {} of {} of {} {} copies in '{}' as not {}; first: {}", side,
          c.mismatches, c.copies, dir_text, c.range, to_string(c.expected), c.first_mismatch);
    }
    gates.push_back(g);
  }
  return gates;
}

void attach_trace_summary(RunRecord& record, const Trace& trace,
                          const std::vector<RangeGate>& claims, const std::string& perfetto_file) {
  for (Gate& g : check_memory_kinds(trace, claims)) record.gates.push_back(std::move(g));
  json notes = trace.notes;
  record.trace = json{{"source", trace.source},
                      {"file", perfetto_file},
                      {"api_calls", trace.api_calls.size()},
                      {"copies", trace.copies.size()},
                      {"kernels", trace.kernels.size()},
                      {"nvtx_ranges", trace.ranges.size()},
                      {"dropped_records", trace.dropped_records},
                      {"notes", notes}};
}

}  // namespace pinbench
