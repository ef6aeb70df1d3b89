// Prediction 4 from a trace. Selection, judgement and the record's `trace`
// object are separate steps, so a replayed record is judged by the same code as a live trace.
#include "experiments/lesson/prediction4.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <unordered_map>

#include <fmt/format.h>

#include "experiments/lesson/analysis.hpp"
#include "framework/by_experiment.hpp"
#include "framework/errors.hpp"
#include "framework/trace_gates.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::lesson {

using nlohmann::json;

namespace {

constexpr const char* kAsyncCall = "cudaMemcpyAsync";
constexpr const char* kPageableRange = "part2 async h2d pageable";
constexpr const char* kPinnedRange = "part2 async h2d pinned";
constexpr double kThreshold = 5.0;

std::vector<const ApiCall*> sorted_calls(const Trace& t, const std::string& name) {
  std::vector<const ApiCall*> calls;
  for (const ApiCall& c : t.api_calls) {
    if (c.name == name) calls.push_back(&c);
  }
  std::stable_sort(calls.begin(), calls.end(),
                   [](const ApiCall* a, const ApiCall* b) { return a->start_ns < b->start_ns; });
  return calls;
}

// Fills a group from `calls` (in call order, already known to be the group's), skipping the
// first as the warm-up and keeping at most `limit` (0: all).
CallGroup group_from(const std::vector<const ApiCall*>& calls, const CopyIndex& index,
                     std::size_t limit, bool with_bytes) {
  CallGroup g;
  g.warmups = calls.empty() ? 0 : 1;
  std::uint64_t bytes = 0;
  bool bytes_known = with_bytes;
  for (std::size_t i = 1; i < calls.size() && (limit == 0 || g.call_ns.size() < limit); ++i) {
    g.call_ns.push_back(static_cast<double>(calls[i]->duration_ns()));
    const Copy* copy = find_copy(index, *calls[i]);
    if (copy == nullptr || copy->bytes == 0) {
      bytes_known = false;
    } else {
      bytes += copy->bytes;
    }
  }
  if (bytes_known && !g.call_ns.empty()) g.bytes = bytes;
  return g;
}

Prediction4Evidence chosen_by(Selection s) {
  Prediction4Evidence e;
  e.selection = s;
  return e;
}

Prediction4Evidence by_ranges(const Trace& t, const CopyIndex& index, const Prediction4Options& o) {
  Prediction4Evidence e = chosen_by(Selection::kNvtxRanges);
  const std::vector<const ApiCall*> calls = sorted_calls(t, kAsyncCall);
  for (const bool pageable : {true, false}) {
    const char* range_name = pageable ? kPageableRange : kPinnedRange;
    const DriverMemoryKind kind =
        pageable ? DriverMemoryKind::kPageable : DriverMemoryKind::kPinned;
    std::vector<const ApiCall*> mine;
    std::size_t unjoined = 0, other_kind = 0;
    for (const NvtxRange& r : t.ranges) {
      if (r.name != range_name) continue;
      for (const ApiCall* c : calls) {
        if (!inside(*c, r)) continue;
        const Copy* copy = find_copy(index, *c);
        if (copy == nullptr) {
          ++unjoined;
        } else if (copy->direction != CopyDirection::kH2D) {
          continue;  // the gate's read-back through the check buffer
        } else if (copy->src_kind != kind) {
          ++other_kind;  // not the memory the range is about: no evidence for either group
        } else {
          mine.push_back(c);
        }
      }
    }
    CallGroup g = group_from(mine, index, 0, true);
    if (unjoined > 0) {
      e.notes.push_back(
          fmt::format("{} cudaMemcpyAsync call(s) in '{}' have no copy record and were left out",
                      unjoined, range_name));
    }
    if (other_kind > 0) {
      e.notes.push_back(fmt::format(
          "{} host-to-device copies in '{}' read memory the driver did not see as {} and were "
          "left out",
          other_kind, range_name, to_string(kind)));
    }
    if (o.timed > 0 && g.call_ns.size() != static_cast<std::size_t>(o.timed)) {
      e.notes.push_back(
          fmt::format("'{}' holds {} timed host-to-device calls, the run asked for {}", range_name,
                      g.call_ns.size(), o.timed));
    }
    (pageable ? e.pageable : e.pinned) = std::move(g);
  }
  return e;
}

Prediction4Evidence by_memory_kinds(const Trace& t, const CopyIndex& index,
                                    const Prediction4Options& o) {
  Prediction4Evidence e = chosen_by(Selection::kMemoryKinds);
  std::vector<const ApiCall*> pageable, pinned;
  for (const ApiCall* c : sorted_calls(t, kAsyncCall)) {
    const Copy* copy = find_copy(index, *c);
    if (copy == nullptr || copy->direction != CopyDirection::kH2D) continue;
    if (copy->src_kind == DriverMemoryKind::kPageable) pageable.push_back(c);
    if (copy->src_kind == DriverMemoryKind::kPinned) pinned.push_back(c);
  }
  const auto limit = static_cast<std::size_t>(std::max(o.timed, 1));
  for (const bool is_pageable : {true, false}) {
    const auto& calls = is_pageable ? pageable : pinned;
    const char* kind = is_pageable ? "pageable" : "pinned";
    if (calls.size() < limit + 1) {
      e.notes.push_back(fmt::format(
          "only {} host-to-device cudaMemcpyAsync copies from {} memory; expected 1 warm-up and "
          "{} timed",
          calls.size(), kind, limit));
    } else if (calls.size() > limit + 1) {
      e.notes.push_back(fmt::format(
          "{} later host-to-device cudaMemcpyAsync copies from {} memory are not part 2's timed "
          "calls and were left out",
          calls.size() - limit - 1, kind));
    }
    (is_pageable ? e.pageable : e.pinned) = group_from(calls, index, limit, true);
  }
  return e;
}

Prediction4Evidence by_page_rule(const Trace& t, const Prediction4Options& o) {
  Prediction4Evidence e;
  e.selection = Selection::kPageRule;
  const std::vector<const ApiCall*> calls = sorted_calls(t, kAsyncCall);
  const auto per_source = static_cast<std::size_t>(std::max(o.timed, 1)) + 1;
  if (calls.size() != 2 * per_source) {
    e.unusable = fmt::format(
        "the page's rule needs exactly {} cudaMemcpyAsync calls (1 warm-up and {} timed per "
        "source, pageable first) and the API trace holds {}; a program with other "
        "cudaMemcpyAsync calls needs the GPU trace (cuda_gpu_trace) so copies can be grouped by "
        "memory kind",
        2 * per_source, per_source - 1, calls.size());
    return e;
  }
  const CopyIndex none;
  const std::vector<const ApiCall*> first(calls.begin(),
                                          calls.begin() + static_cast<std::ptrdiff_t>(per_source));
  const std::vector<const ApiCall*> second(calls.begin() + static_cast<std::ptrdiff_t>(per_source),
                                           calls.end());
  e.pageable = group_from(first, none, 0, false);
  e.pinned = group_from(second, none, 0, false);
  return e;
}

double total_ms(const CallGroup& g) {
  double ns = 0.0;
  for (double x : g.call_ns) ns += x;
  return ns / 1e6;
}

std::string bytes_text(std::uint64_t bytes) {
  return fmt::format("{} ({} B)", format_size(bytes), bytes);
}

}  // namespace

Prediction4Evidence select_prediction4(const Trace& trace, const Prediction4Options& options) {
  const auto index = copies_by_correlation(trace);
  const bool has_ranges = std::any_of(
      trace.ranges.begin(), trace.ranges.end(),
      [](const NvtxRange& r) { return r.name == kPageableRange || r.name == kPinnedRange; });
  Prediction4Evidence e;
  if (has_ranges) {
    e = by_ranges(trace, index, options);
  } else if (!trace.copies.empty()) {
    e = by_memory_kinds(trace, index, options);
  } else {
    e = by_page_rule(trace, options);
  }
  e.source = trace.source;
  return e;
}

Prediction4Judgement judge_prediction4(const Prediction4Evidence& e) {
  Prediction4Judgement j;
  j.pageable_calls = e.pageable.call_ns.size();
  j.pinned_calls = e.pinned.call_ns.size();
  j.pageable_ms = total_ms(e.pageable);
  j.pinned_ms = total_ms(e.pinned);
  if (e.pageable.bytes && e.pinned.bytes) j.bytes_equal = *e.pageable.bytes == *e.pinned.bytes;
  if (!e.unusable.empty()) {
    j.reason = e.unusable;
  } else if (j.pageable_calls == 0 || j.pinned_calls == 0) {
    j.reason = fmt::format("the trace holds {} timed pageable and {} timed pinned calls",
                           j.pageable_calls, j.pinned_calls);
  } else if (j.pageable_calls != j.pinned_calls) {
    j.reason = fmt::format(
        "the groups differ in size ({} pageable, {} pinned calls), so their "
        "totals do not compare",
        j.pageable_calls, j.pinned_calls);
  } else if (j.pinned_ms <= 0.0) {
    j.reason = "the pinned calls took no measurable time";
  }
  if (!j.reason.empty()) return j;
  j.ratio = j.pageable_ms / j.pinned_ms;
  const bool bytes_ok = !j.bytes_equal.has_value() || *j.bytes_equal;
  // Bytes may only be unknown under the page's rule; a copy trace that lost a size is no proof.
  const bool bytes_required = e.selection != Selection::kPageRule;
  if (bytes_required && !j.bytes_equal) {
    j.reason = "the copies' sizes are not all in the trace, so the bytes cannot be compared";
    j.ratio.reset();
    return j;
  }
  j.verdict = (*j.ratio >= kThreshold && bytes_ok) ? Verdict::kHeld : Verdict::kDied;
  return j;
}

Claim prediction4_claim(const std::optional<Prediction4Evidence>& evidence) {
  Claim c{"pageable call time >= 5x pinned call time, same bytes", Verdict::kNotEvaluated, ""};
  if (!evidence) {
    c.evidence =
        "needs a trace of the driver's API calls and copies (run with --trace FILE, or use "
        "'pinbench trace-check' on nsys exports); part 2's host-clock call times above ask the "
        "same question without a profiler";
    return c;
  }
  const Prediction4Judgement j = judge_prediction4(*evidence);
  c.verdict = j.verdict;
  if (!j.ratio) {
    c.evidence = j.reason;
    return c;
  }
  c.evidence = fmt::format("{} pageable calls {:.3f} ms, {} pinned calls {:.3f} ms: {:.1f}x",
                           j.pageable_calls, j.pageable_ms, j.pinned_calls, j.pinned_ms, *j.ratio);
  if (j.bytes_equal) {
    c.evidence += *j.bytes_equal
                      ? fmt::format("; both moved {}", bytes_text(*evidence->pageable.bytes))
                      : fmt::format("; bytes differ: {} pageable, {} pinned",
                                    bytes_text(*evidence->pageable.bytes),
                                    bytes_text(*evidence->pinned.bytes));
  } else {
    c.evidence += "; bytes not checked";
  }
  c.evidence +=
      fmt::format(" ({}, {})", evidence->source,
                  evidence->selection == Selection::kNvtxRanges    ? "calls in part 2's NVTX ranges"
                  : evidence->selection == Selection::kMemoryKinds ? "calls grouped by memory kind"
                                                                   : "the page's rule");
  return c;
}

json to_json(const Prediction4Evidence& e) {
  auto group = [](const CallGroup& g) {
    json j{{"call_ns", g.call_ns}, {"warmups", g.warmups}};
    if (g.bytes) j["bytes"] = *g.bytes;
    return j;
  };
  json j{{"source", e.source},
         {"selection", to_string(e.selection)},
         {"pageable", group(e.pageable)},
         {"pinned", group(e.pinned)},
         {"notes", e.notes}};
  if (!e.unusable.empty()) j["unusable"] = e.unusable;
  return j;
}

Prediction4Evidence prediction4_from_json(const json& j) {
  const auto fail = [](const std::string& what) { refuse_field("trace.prediction4", what); };
  if (!j.is_object()) fail("is not an object");
  Prediction4Evidence e;
  try {
    e.source = j.value("source", std::string());
    const std::string sel = j.value("selection", std::string("nvtx_ranges"));
    const std::optional<Selection> selection = value_named(kSelectionNames, sel);
    if (!selection) fail(fmt::format("has an unknown selection '{}'", sel));
    e.selection = *selection;
    for (const char* key : {"pageable", "pinned"}) {
      if (!j.contains(key) || !j[key].is_object()) fail(fmt::format("has no '{}' object", key));
      const json& g = j[key];
      CallGroup out;
      for (const json& v : g.at("call_ns")) {
        const double x = v.get<double>();
        if (!(x >= 0.0)) fail(fmt::format("'{}.call_ns' holds a negative or NaN time", key));
        out.call_ns.push_back(x);
      }
      out.warmups = g.value("warmups", 0);
      if (g.contains("bytes")) out.bytes = g["bytes"].get<std::uint64_t>();
      (std::string(key) == "pageable" ? e.pageable : e.pinned) = std::move(out);
    }
    e.notes = j.value("notes", std::vector<std::string>());
    e.unusable = j.value("unusable", std::string());
  } catch (const json::exception& ex) {
    fail(fmt::format("has a field of the wrong type ({})", ex.what()));
  }
  return e;
}

void attach_trace(RunRecord& record, const Trace& trace, const std::string& perfetto_file) {
  const LessonConfig config = lesson_config_from(record.config);
  attach_trace_summary(record, trace, range_gates(), perfetto_file);
  Prediction4Options options;
  options.timed = config.async_iterations;
  record.trace["prediction4"] = to_json(select_prediction4(trace, options));
}

}  // namespace pinbench::experiments::lesson
