// `pinbench pin`'s record read and judged (analysis.hpp): its section and cases, each field read
// for what it means and refused by its name otherwise, then the rows, the goals and the advice.
#include "experiments/pin/analysis.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "framework/case_builder.hpp"
#include "framework/case_figures.hpp"
#include "framework/errors.hpp"
#include "framework/json_fields.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::pin {
namespace {

using nlohmann::json;

// The most a count in the record may say (a count field's own range, config_schema.hpp).
constexpr std::uint64_t kMostCount = (std::uint64_t{1} << 31) - 1;

bool is_arena(const std::string& method) {
  return method == kPinArena;
}

std::size_t method_rank(const std::string& method) {
  const std::vector<std::string>& names = pin_method_names();
  return static_cast<std::size_t>(std::find(names.begin(), names.end(), method) - names.begin());
}

std::string known_methods() {
  return fmt::format("{}", fmt::join(pin_method_names(), ", "));
}

void check_method(const std::string& method, const std::string& field) {
  if (method_rank(method) == pin_method_names().size()) {
    refuse_field(field, fmt::format("is '{}', not one of {}", method, known_methods()));
  }
}

// p50 <= p99 <= worst, each a time in ms.
void check_order(const PinNeighbour& n, const std::string& p99, const std::string& max) {
  if (n.p50_ms > n.p99_ms) {
    refuse_field(p99, fmt::format("is {} ms, below the median call's {} ms", n.p99_ms, n.p50_ms));
  }
  if (n.p99_ms > n.max_ms) {
    refuse_field(max, fmt::format("is {} ms, below the p99 call's {} ms", n.max_ms, n.p99_ms));
  }
}

// A neighbour's calls under the keys `prefix` + calls, p50_ms, p99_ms, max_ms.
PinNeighbour neighbour_from(const JsonFields& x, const std::string& prefix) {
  PinNeighbour n;
  const std::string calls = prefix + "calls", p50 = prefix + "p50_ms", p99 = prefix + "p99_ms",
                    max = prefix + "max_ms";
  n.calls = x.count(calls.c_str(), kMostCount);
  n.p50_ms = x.ms(p50.c_str());
  n.p99_ms = x.ms(p99.c_str());
  n.max_ms = x.ms(max.c_str());
  check_order(n, x.field(p99.c_str()), x.field(max.c_str()));
  return n;
}

PinLimit limit_from(const JsonFields& x) {
  PinLimit l;
  l.name = x.name_text("name");
  l.bytes = x.bytes("bytes");
  l.per_call = x.flag("per_call");
  l.below = x.flag("below");
  l.why = x.name_text("why");
  return l;
}

PinFacts facts_from(const JsonFields& x) {
  PinFacts f;
  static_cast<HostPinFacts&>(f) = host_pin_facts_from(x);
  if (x.has("arena_default_chunk_bytes") || x.has("arena_default_threads")) {
    f.arena_default_chunk_bytes = x.bytes("arena_default_chunk_bytes");
    f.arena_default_threads = static_cast<int>(x.count("arena_default_threads", 1, 1024));
  }
  return f;
}

std::string sizes_words(const std::set<std::uint64_t>& sizes) {
  if (sizes.empty()) return "none";
  std::string out;
  for (std::uint64_t s : sizes) out += (out.empty() ? "" : ", ") + exact_size(s);
  return out;
}

}  // namespace

const std::vector<std::string>& pin_method_names() {
  static const std::vector<std::string> names = {kPinHostAlloc,         kPinHostAllocPortable,
                                                 kPinRegister,          kPinRegisterThp,
                                                 kPinRegisterHugetlbfs, kPinArena};
  return names;
}

void check_pin_config(PinConfig& c) {
  for (const std::string& m : c.methods) {
    if (method_rank(m) == pin_method_names().size()) {
      throw InputError(fmt::format("--methods: '{}' is not one of {}", m, known_methods()));
    }
  }
  std::sort(c.sizes.begin(), c.sizes.end());
  c.sizes.erase(std::unique(c.sizes.begin(), c.sizes.end()), c.sizes.end());
  std::sort(c.arena_chunks.begin(), c.arena_chunks.end());
  c.arena_chunks.erase(std::unique(c.arena_chunks.begin(), c.arena_chunks.end()),
                       c.arena_chunks.end());
  if (c.arena_chunks.empty()) throw InputError("--arena-chunks: no chunk size given");
  for (std::uint64_t chunk : c.arena_chunks) {
    if (chunk % kLeastPinChunk != 0) {
      throw InputError(fmt::format(
          "--arena-chunks: {} is not a whole number of 4 KiB pages (the arena pins whole pages)",
          exact_size(chunk)));
    }
  }
  for (int t : c.arena_threads) {
    if (t < 1 || t > kMostPinThreads) {
      throw InputError(fmt::format("--arena-threads: {} is not a thread count from 1 to {}", t,
                                   kMostPinThreads));
    }
  }
  if (c.neighbour_interval_us < 0 || c.neighbour_interval_us > kMostNeighbourIntervalUs) {
    throw InputError(fmt::format("--neighbour-interval: {} is not 0 to {} microseconds",
                                 c.neighbour_interval_us, kMostNeighbourIntervalUs));
  }
  if (!c.sizes.empty() && c.copy_bytes > c.sizes.back()) {
    throw InputError(fmt::format(
        "--copy-bytes: {} is more than the largest size pinned ({}), which the copies read from",
        exact_size(c.copy_bytes), exact_size(c.sizes.back())));
  }
}

std::string pin_method_token(const std::string& method, std::uint64_t chunk_bytes, int threads) {
  std::string out;
  for (char ch : method) {
    out += ch == ' ' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  if (chunk_bytes > 0) out += fmt::format("-{}-x{}", size_token(chunk_bytes), threads);
  return out;
}

PinSection pin_section_from(const json& section) {
  const JsonFields s(section, kPinSection);
  PinSection out;
  const json& limits = s.array("limits");
  for (std::size_t i = 0; i < limits.size(); ++i) {
    out.limits.push_back(
        limit_from(JsonFields(limits[i], fmt::format("{}[{}]", s.field("limits"), i))));
  }
  out.facts = facts_from(JsonFields(s.at("facts"), s.field("facts")));
  const json& refused = s.array("refused");
  for (std::size_t i = 0; i < refused.size(); ++i) {
    const JsonFields r(refused[i], fmt::format("{}[{}]", s.field("refused"), i));
    out.refused.push_back({r.name_text("method"), r.bytes("bytes"), r.name_text("why")});
  }
  const json& skipped = s.array("skipped");
  for (std::size_t i = 0; i < skipped.size(); ++i) {
    const JsonFields k(skipped[i], fmt::format("{}[{}]", s.field("skipped"), i));
    out.skipped.push_back({k.name_text("method"), k.name_text("why")});
  }
  if (!s.at("neighbour_idle").is_null()) {
    out.neighbour_idle =
        neighbour_from(JsonFields(s.at("neighbour_idle"), s.field("neighbour_idle")), "");
  }
  return out;
}

json to_json(const PinSection& s) {
  json limits = json::array(), refused = json::array(), skipped = json::array();
  for (const PinLimit& l : s.limits) {
    limits.push_back({{"name", l.name},
                      {"bytes", l.bytes},
                      {"per_call", l.per_call},
                      {"below", l.below},
                      {"why", l.why}});
  }
  for (const PinRefusal& r : s.refused) {
    refused.push_back({{"method", r.method}, {"bytes", r.bytes}, {"why", r.why}});
  }
  for (const PinSkip& k : s.skipped) skipped.push_back({{"method", k.method}, {"why", k.why}});
  const PinFacts& f = s.facts;
  json facts = json::object();
  put_fields(facts, static_cast<const HostPinFacts&>(f));
  if (f.arena_default_chunk_bytes && f.arena_default_threads) {
    facts["arena_default_chunk_bytes"] = *f.arena_default_chunk_bytes;
    facts["arena_default_threads"] = *f.arena_default_threads;
  }
  json idle = nullptr;
  if (s.neighbour_idle) {
    const PinNeighbour& n = *s.neighbour_idle;
    idle = {{"calls", n.calls}, {"p50_ms", n.p50_ms}, {"p99_ms", n.p99_ms}, {"max_ms", n.max_ms}};
  }
  return {{"limits", limits},
          {"facts", facts},
          {"refused", refused},
          {"skipped", skipped},
          {"neighbour_idle", idle}};
}

std::string PinRow::label() const {
  return is_arena(method) ? fmt::format("{} {} x {}", method, exact_size(chunk_bytes), threads)
                          : method;
}

std::string PinCopyRow::label() const {
  return is_arena(method) ? fmt::format("{} {} x {}", method, exact_size(chunk_bytes), threads)
                          : method;
}

namespace {

// What the analysis reads of the config: its lists must be lists (a record's kinds allow one
// number where a list is declared), and its methods known.
PinConfig pin_config_from(const json& config) {
  PinConfig c;
  if (!config.is_object()) return c;
  for (const char* key : {"sizes", "methods", "arena_chunks", "arena_threads"}) {
    const auto it = config.find(key);
    if (it != config.end() && !it->is_array()) {
      refuse_field(std::string("config.") + key, fmt::format("is {}, not a list", shown(*it)));
    }
  }
  get_fields(config, c);
  for (std::size_t i = 0; i < c.methods.size(); ++i) {
    check_method(c.methods[i], fmt::format("config.methods[{}]", i));
  }
  return c;
}

// The arena's configuration in a case's extra; nothing for the other methods.
void arena_from(const JsonFields& x, const std::string& method, std::uint64_t& chunk,
                int& threads) {
  if (!is_arena(method)) return;
  chunk = x.count("chunk_bytes", 1, kMostBytes);
  threads = static_cast<int>(x.count("threads", 1, kMostPinThreads));
}

// The neighbour's figures of a pin case: all four or none; required where a neighbour ran and
// the pin passed its gate (a failed pin may have stopped before the neighbour was read).
void neighbour_of_pin_from(const JsonFields& x, bool neighbour, bool passed, PinRow& row) {
  const bool any = x.has("nb_calls") || x.has("nb_p50_ms") || x.has("nb_p99_ms") ||
                   x.has("nb_max_ms") || x.has("nb_free_max_ms");
  if (!neighbour) {
    if (any) {
      refuse_field(x.path(),
                   "holds the neighbour's figures, but config.neighbour_interval_us is 0: no "
                   "neighbour ran");
    }
    return;
  }
  if (any || passed) row.neighbour = neighbour_from(x, "nb_");
  row.neighbour_free_max_ms = passed ? std::optional<double>(x.ms("nb_free_max_ms"))
                                     : x.figure_or_none("nb_free_max_ms", kMilliseconds);
}

// One pin case: a method at one size, one sample, its extra read for what it means.
PinRow pin_row_from(const Case& c, const std::string& at, bool neighbour,
                    const std::string& gate_detail) {
  PinRow row;
  row.method = c.method;
  row.bytes = c.bytes;
  check_method(c.method, at + ".method");
  if (c.direction != "host") {
    refuse_field(at + ".direction", fmt::format("is '{}', not host (a pin case)", c.direction));
  }
  if (c.memory != "pinned") {
    refuse_field(at + ".memory", fmt::format("is '{}', not pinned (a pin case)", c.memory));
  }
  if (c.samples_ms.size() != 1) {
    refuse_field(at + ".samples_ms", fmt::format("holds {} samples, not one: a pin case is one pin "
                                                 "timed once",
                                                 c.samples_ms.size()));
  }
  static const json kNoExtra = json::object();
  const JsonFields x(c.extra.is_object() ? c.extra : kNoExtra, at + ".extra");
  arena_from(x, c.method, row.chunk_bytes, row.threads);
  const CaseFigures f = figures_of(c);
  const bool passed = f.gb_per_s.has_value();
  if (passed) {
    row.ms = f.samples->median;
    row.gb_per_s = f.gb_per_s;
  } else {
    row.gate_detail = gate_detail.empty() ? "the case is not verified" : gate_detail;
  }
  const auto figure = [&](const char* key) {
    return passed ? std::optional<double>(x.ms(key)) : x.figure_or_none(key, kMilliseconds);
  };
  row.first_gib_ms = figure("first_gib_ms");
  row.free_ms = figure("free_ms");
  if (is_arena(c.method)) row.longest_chunk_ms = figure("longest_chunk_ms");
  // Nothing of the size is usable before any of it, nor one call longer than the whole pin.
  const double whole = c.samples_ms.front();
  if (row.first_gib_ms && *row.first_gib_ms > whole) {
    refuse_field(
        x.field("first_gib_ms"),
        fmt::format("is {} ms, after the whole size was usable ({} ms)", *row.first_gib_ms, whole));
  }
  if (row.longest_chunk_ms && *row.longest_chunk_ms > whole) {
    refuse_field(
        x.field("longest_chunk_ms"),
        fmt::format("is {} ms, longer than the whole pin ({} ms)", *row.longest_chunk_ms, whole));
  }
  neighbour_of_pin_from(x, neighbour, passed, row);
  return row;
}

// One copy case: a direction from one kind of pinned memory.
void copy_case_from(const Case& c, const std::string& at, std::uint64_t& chunk, int& threads) {
  check_method(c.method, at + ".method");
  if (c.direction != "h2d" && c.direction != "d2h") {
    refuse_field(at + ".direction", fmt::format("is '{}', not h2d or d2h", c.direction));
  }
  if (c.memory != "pinned") {
    refuse_field(at + ".memory", fmt::format("is '{}', not pinned (a copy case)", c.memory));
  }
  static const json kNoExtra = json::object();
  arena_from(JsonFields(c.extra.is_object() ? c.extra : kNoExtra, at + ".extra"), c.method, chunk,
             threads);
}

using PinKey = std::tuple<std::size_t, std::uint64_t, int, std::uint64_t>;  // method, chunk, ...

// The rows of the record's cases, each once, in the tables' order.
void rows_from(const RunRecord& r, bool neighbour, PinAnalysis& a) {
  std::map<std::string, const Gate*> gates;
  for (const Gate& g : r.gates) gates.emplace(g.name, &g);
  std::map<PinKey, PinRow> pins;
  std::map<PinKey, PinCopyRow> copies;
  for (std::size_t i = 0; i < r.cases.size(); ++i) {
    const Case& c = r.cases[i];
    const std::string at = fmt::format("cases[{}]", i);
    if (c.part == "pin") {
      const auto g = gates.find(c.gate);
      const std::string detail = g != gates.end() && !g->second->passed ? g->second->detail : "";
      PinRow row = pin_row_from(c, at, neighbour, detail);
      const PinKey key{method_rank(c.method), row.chunk_bytes, row.threads, c.bytes};
      if (!pins.emplace(key, std::move(row)).second) {
        refuse_field(
            at, fmt::format("pins {} {} a second time", pins.at(key).label(), exact_size(c.bytes)));
      }
    } else if (c.part == "copy") {
      PinCopyRow probe;
      probe.method = c.method;
      copy_case_from(c, at, probe.chunk_bytes, probe.threads);
      const PinKey key{method_rank(c.method), probe.chunk_bytes, probe.threads, c.bytes};
      PinCopyRow& row = copies.emplace(key, probe).first->second;
      row.bytes = c.bytes;
      bool& measured = c.direction == "h2d" ? row.h2d_measured : row.d2h_measured;
      if (measured) {
        refuse_field(at, fmt::format("copies {} {} from {} a second time", c.direction,
                                     exact_size(c.bytes), row.label()));
      }
      measured = true;
      (c.direction == "h2d" ? row.h2d_gb_per_s : row.d2h_gb_per_s) = figures_of(c).gb_per_s;
    } else {
      refuse_field(at + ".part", fmt::format("is '{}', not pin or copy", c.part));
    }
  }
  for (auto& [key, row] : pins) a.pins.push_back(std::move(row));
  for (auto& [key, row] : copies) a.copies.push_back(std::move(row));
}

}  // namespace
namespace {

Verdict verdict_of(const std::vector<Claim>& claims) {
  bool all_held = !claims.empty();
  for (const Claim& c : claims) {
    if (c.verdict == Verdict::kDied) return Verdict::kDied;
    all_held = all_held && c.verdict == Verdict::kHeld;
  }
  return all_held ? Verdict::kHeld : Verdict::kNotEvaluated;
}

PinGoal goal_of(std::string statement, std::vector<Claim> claims) {
  PinGoal g{std::move(statement), Verdict::kNotEvaluated, std::move(claims)};
  g.verdict = verdict_of(g.claims);
  return g;
}

Verdict held_if(bool ok) {
  return ok ? Verdict::kHeld : Verdict::kDied;
}

std::string ms_words(double ms) {
  return fmt::format("{:.2f} ms", ms);
}

std::string neighbour_words(const PinNeighbour& n) {
  return fmt::format("p99 {}, worst {} over {} calls", ms_words(n.p99_ms), ms_words(n.max_ms),
                     n.calls);
}

// Why the arena's goals cannot be judged at the size, or "" where they can: nothing both
// measured, no arena configuration with a figure (a claim missed), no cudaHostAlloc figure.
struct JudgedAt {
  const PinRow* arena = nullptr;
  const PinRow* host_alloc = nullptr;
  std::string none;    // not evaluated, and why
  std::string failed;  // the arena failed at the size: missed, and why
};

JudgedAt judged_of(const PinAnalysis& a) {
  JudgedAt j;
  if (!a.judged_bytes) {
    std::set<std::uint64_t> arena, alloc;
    for (const PinRow& r : a.pins) {
      if (r.method == kPinArena) arena.insert(r.bytes);
      if (r.method == kPinHostAlloc) alloc.insert(r.bytes);
    }
    j.none = fmt::format(
        "no size where both PinnedArena and cudaHostAlloc were measured (PinnedArena: {}; "
        "cudaHostAlloc: {})",
        sizes_words(arena), sizes_words(alloc));
    return j;
  }
  if (a.arena) j.arena = &a.pins[*a.arena];
  if (a.host_alloc) j.host_alloc = &a.pins[*a.host_alloc];
  if (j.arena == nullptr) {
    std::string why;
    for (const PinRow& r : a.pins) {
      if (r.method == kPinArena && r.bytes == *a.judged_bytes && why.empty()) why = r.gate_detail;
    }
    j.failed = fmt::format("every PinnedArena configuration at {} failed its gate ({})",
                           exact_size(*a.judged_bytes), why);
  }
  return j;
}

// A claim where the arena's figure decides it; the reasons first.
Claim arena_claim(const JudgedAt& j, std::string text, Verdict v, std::string evidence) {
  if (!j.none.empty()) return {std::move(text), Verdict::kNotEvaluated, j.none};
  if (!j.failed.empty()) return {std::move(text), Verdict::kDied, j.failed};
  return {std::move(text), v, std::move(evidence)};
}

PinGoal rate_goal(const PinAnalysis& a, const JudgedAt& j, const PinGoalTargets& t) {
  Claim rate{fmt::format("at least {:g}x cudaHostAlloc's GB/s", t.arena_multiple),
             Verdict::kNotEvaluated, ""};
  Claim first{fmt::format("first GiB usable in under {:g} ms", t.first_gib_ms),
              Verdict::kNotEvaluated, ""};
  if (j.arena != nullptr) {
    const std::string at = exact_size(*a.judged_bytes);
    if (j.host_alloc == nullptr || !j.host_alloc->gb_per_s) {
      rate.evidence = fmt::format(
          "cudaHostAlloc's pin at {} failed its gate ({}): nothing to "
          "compare with",
          at, j.host_alloc ? j.host_alloc->gate_detail : "not measured");
    } else {
      const double ratio = *j.arena->gb_per_s / *j.host_alloc->gb_per_s;
      rate.verdict = held_if(ratio >= t.arena_multiple);
      rate.evidence =
          fmt::format("at {}: {} pinned at {:.2f} GB/s, cudaHostAlloc at {:.2f} GB/s: {:.2f}x", at,
                      j.arena->label(), *j.arena->gb_per_s, *j.host_alloc->gb_per_s, ratio);
    }
    const double ms = *j.arena->first_gib_ms;
    first.verdict = held_if(ms < t.first_gib_ms);
    first.evidence = fmt::format("{}: first GiB usable after {:.1f} ms", j.arena->label(), ms);
    if (j.host_alloc != nullptr && j.host_alloc->first_gib_ms) {
      first.evidence += fmt::format(" (cudaHostAlloc: {:.1f} ms)", *j.host_alloc->first_gib_ms);
    }
  }
  return goal_of(fmt::format("PinnedArena pins at least {:g}x as fast as one cudaHostAlloc of the "
                             "same size, its first GiB usable in under {:g} ms",
                             t.arena_multiple, t.first_gib_ms),
                 {arena_claim(j, rate.text, rate.verdict, rate.evidence),
                  arena_claim(j, first.text, first.verdict, first.evidence)});
}

// The neighbour beside each other way of pinning at the size, and idle: the figures the goal
// shows beside the arena's.
std::string others_words(const PinAnalysis& a) {
  std::string out;
  for (const PinRow& r : a.pins) {
    if (r.bytes != *a.judged_bytes || !r.neighbour) continue;
    if (r.method != kPinHostAlloc && r.method != kPinRegister) continue;
    out += fmt::format("; {}: {}", r.method, neighbour_words(*r.neighbour));
  }
  if (a.section.neighbour_idle) {
    out += "; idle: " + neighbour_words(*a.section.neighbour_idle);
  }
  return out;
}

PinGoal neighbour_goal(const PinAnalysis& a, const JudgedAt& j, const PinGoalTargets& t) {
  const std::string statement = fmt::format(
      "While PinnedArena pins, the neighbour's p99 call stays under {:g} ms and its worst call "
      "under the arena's longest pinning call",
      t.neighbour_p99_ms);
  const std::string p99_text = fmt::format("p99 under {:g} ms", t.neighbour_p99_ms);
  const std::string max_text = "worst call under the longest pinning call";
  if (!a.section.neighbour_idle) {
    const std::string why = "no neighbour ran (config.neighbour_interval_us is 0)";
    return goal_of(statement, {{p99_text, Verdict::kNotEvaluated, why},
                               {max_text, Verdict::kNotEvaluated, why}});
  }
  Claim p99{p99_text, Verdict::kNotEvaluated, ""}, max{max_text, Verdict::kNotEvaluated, ""};
  if (j.arena != nullptr && j.arena->neighbour) {
    const PinNeighbour& n = *j.arena->neighbour;
    p99.verdict = held_if(n.p99_ms < t.neighbour_p99_ms);
    p99.evidence = fmt::format("at {}: {}: {}{}", exact_size(*a.judged_bytes), j.arena->label(),
                               neighbour_words(n), others_words(a));
    const double longest = *j.arena->longest_chunk_ms;
    max.verdict = held_if(n.max_ms < longest);
    max.evidence = fmt::format("worst call {} against the longest pinning call's {}",
                               ms_words(n.max_ms), ms_words(longest));
  }
  return goal_of(statement, {arena_claim(j, p99.text, p99.verdict, p99.evidence),
                             arena_claim(j, max.text, max.verdict, max.evidence)});
}

// A copy's rate from the arena against cudaHostAlloc's memory, one direction.
Claim copy_claim(const char* direction, const PinCopyRow* arena, const PinCopyRow* alloc,
                 const PinGoalTargets& t) {
  Claim c{fmt::format("{} within {:g}%", direction_words(direction), t.copy_within * 100),
          Verdict::kNotEvaluated, ""};
  const bool h2d = std::string(direction) == "h2d";
  const auto rate = [h2d](const PinCopyRow* r) {
    return r == nullptr ? std::nullopt : h2d ? r->h2d_gb_per_s : r->d2h_gb_per_s;
  };
  const auto measured = [h2d](const PinCopyRow* r) {
    return r != nullptr && (h2d ? r->h2d_measured : r->d2h_measured);
  };
  if (!measured(arena)) {
    c.evidence = "no copy from the judged arena configuration's memory";
  } else if (!rate(arena)) {
    c.verdict = Verdict::kDied;
    c.evidence = fmt::format("the copy from {} failed its gate", arena->label());
  } else if (!rate(alloc)) {
    c.evidence = "no copy from cudaHostAlloc memory with a figure to compare with";
  } else {
    const double ratio = *rate(arena) / *rate(alloc);
    c.verdict = held_if(ratio >= 1.0 - t.copy_within);
    c.evidence = fmt::format("{}: {:.2f} GB/s, cudaHostAlloc memory: {:.2f} GB/s: {:.3f}",
                             arena->label(), *rate(arena), *rate(alloc), ratio);
  }
  return c;
}

PinGoal copy_goal(const PinAnalysis& a, const JudgedAt& j, const PinGoalTargets& t) {
  const PinCopyRow* arena = nullptr;
  const PinCopyRow* alloc = nullptr;
  for (const PinCopyRow& r : a.copies) {
    if (j.arena != nullptr && r.method == kPinArena && r.chunk_bytes == j.arena->chunk_bytes &&
        r.threads == j.arena->threads && arena == nullptr) {
      arena = &r;
    }
    if (r.method == kPinHostAlloc &&
        (alloc == nullptr || (!alloc->h2d_gb_per_s && r.h2d_gb_per_s))) {
      alloc = &r;
    }
  }
  std::vector<Claim> claims;
  for (const char* d : {"h2d", "d2h"}) {
    const Claim c = copy_claim(d, arena, alloc, t);
    claims.push_back(arena_claim(j, c.text, c.verdict, c.evidence));
  }
  return goal_of(fmt::format("Copies from PinnedArena memory run within {:g}% of cudaHostAlloc "
                             "memory's rate, each direction, every byte checked",
                             t.copy_within * 100),
                 std::move(claims));
}

// Whether pinning `row` crossed `l`: a per-call limit bounds one call (the arena's chunk, the
// whole size for the others), any other all the memory pinned.
bool crosses(const PinRow& row, const PinLimit& l) {
  const std::uint64_t asked = l.per_call && is_arena(row.method) ? row.chunk_bytes : row.bytes;
  return l.below ? asked >= l.bytes : asked > l.bytes;
}

PinGoal limits_goal(const PinAnalysis& a) {
  Claim attempted{"no size past a limit attempted", Verdict::kHeld, ""};
  for (const PinRow& r : a.pins) {
    for (const PinLimit& l : a.section.limits) {
      if (attempted.verdict == Verdict::kHeld && crosses(r, l)) {
        attempted.verdict = Verdict::kDied;
        attempted.evidence = fmt::format(
            "{} at {} was attempted past the {} ({}{}{})", r.label(), exact_size(r.bytes), l.name,
            exact_size(l.bytes), l.below ? ", exclusive" : "", l.per_call ? ", per call" : "");
      }
    }
  }
  if (attempted.verdict == Verdict::kHeld) {
    attempted.evidence =
        fmt::format("{} pin{} attempted, each within the {} limit{} recorded", a.pins.size(),
                    a.pins.size() == 1 ? "" : "s", a.section.limits.size(),
                    a.section.limits.size() == 1 ? "" : "s");
  }
  Claim named{"every refusal names its limit", Verdict::kHeld, ""};
  for (const PinRefusal& r : a.section.refused) {
    bool names = r.why.find("vm.max_map_count") != std::string::npos;
    for (const PinLimit& l : a.section.limits)
      names = names || r.why.find(l.name) != std::string::npos;
    if (!names && named.verdict == Verdict::kHeld) {
      named.verdict = Verdict::kDied;
      named.evidence = fmt::format("{} at {} was refused with '{}', which names no recorded limit",
                                   r.method, exact_size(r.bytes), r.why);
    }
  }
  if (named.verdict == Verdict::kHeld) {
    named.evidence = a.section.refused.empty() ? "nothing was refused"
                                               : fmt::format("{} refused, each naming its limit",
                                                             a.section.refused.size());
  }
  return goal_of("No size past a limit is attempted; every refusal names the limit",
                 {attempted, named});
}

// The size to advise at: the judged one where a pin there has a figure, else the largest pinned
// with one.
std::optional<std::uint64_t> advice_bytes(const PinAnalysis& a) {
  std::optional<std::uint64_t> most;
  bool judged = false;
  for (const PinRow& r : a.pins) {
    if (!r.gb_per_s) continue;
    if (!most || r.bytes > *most) most = r.bytes;
    judged = judged || (a.judged_bytes && r.bytes == *a.judged_bytes);
  }
  return judged ? a.judged_bytes : most;
}

std::string way_words(const PinRow& r) {
  return is_arena(r.method) ? fmt::format("{} with {} chunks on {} threads", r.method,
                                          exact_size(r.chunk_bytes), r.threads)
                            : r.method;
}

std::string advice_of(const PinAnalysis& a, const PinGoalTargets& t) {
  const std::optional<std::uint64_t> at = advice_bytes(a);
  if (!at) return "What to use: no pin has a figure, so there is nothing to go by.";
  const PinRow* fastest = nullptr;
  const PinRow* calm = nullptr;  // the fastest whose neighbour's p99 stayed under the target
  for (const PinRow& r : a.pins) {
    if (r.bytes != *at || !r.gb_per_s) continue;
    if (fastest == nullptr || *r.gb_per_s > *fastest->gb_per_s) fastest = &r;
    if (r.neighbour && r.neighbour->p99_ms < t.neighbour_p99_ms &&
        (calm == nullptr || *r.gb_per_s > *calm->gb_per_s)) {
      calm = &r;
    }
  }
  const std::string size = exact_size(*at);
  if (!a.section.neighbour_idle) {
    return fmt::format(
        "What to use: {}, the fastest at {} ({:.2f} GB/s); no neighbour ran, so what pinning "
        "costs other processes was not measured.",
        way_words(*fastest), size, *fastest->gb_per_s);
  }
  if (calm == nullptr) {
    return fmt::format(
        "What to use: no way of pinning kept the neighbour's p99 call under {:g} ms at {}; the "
        "fastest, {}, pinned at {:.2f} GB/s{}.",
        t.neighbour_p99_ms, size, way_words(*fastest), *fastest->gb_per_s,
        fastest->neighbour ? fmt::format(" with a p99 of {}", ms_words(fastest->neighbour->p99_ms))
                           : std::string());
  }
  return fmt::format(
      "What to use: {}: it pinned {} at {:.2f} GB/s, its first GiB usable after {:.1f} ms, while "
      "the neighbour's p99 call stayed at {} (the fastest way whose p99 stayed under {:g} ms).",
      way_words(*calm), size, *calm->gb_per_s, calm->first_gib_ms.value_or(0.0),
      ms_words(calm->neighbour->p99_ms), t.neighbour_p99_ms);
}

// The judged size and the rows there: the largest size where both were measured.
void judge_at(PinAnalysis& a) {
  std::set<std::uint64_t> arena, alloc;
  for (const PinRow& r : a.pins) {
    if (r.method == kPinArena) arena.insert(r.bytes);
    if (r.method == kPinHostAlloc) alloc.insert(r.bytes);
  }
  for (auto it = arena.rbegin(); it != arena.rend(); ++it) {
    if (alloc.count(*it) > 0) {
      a.judged_bytes = *it;
      break;
    }
  }
  if (!a.judged_bytes) return;
  const PinFacts& f = a.section.facts;
  std::optional<std::size_t> as_default;
  for (std::size_t i = 0; i < a.pins.size(); ++i) {
    const PinRow& r = a.pins[i];
    if (r.bytes != *a.judged_bytes) continue;
    if (r.method == kPinHostAlloc) a.host_alloc = i;
    if (r.method == kPinArena && r.gb_per_s &&
        (!a.arena || *r.gb_per_s > *a.pins[*a.arena].gb_per_s)) {
      a.arena = i;
    }
    if (r.method == kPinArena && r.gb_per_s && r.chunk_bytes == f.arena_default_chunk_bytes &&
        r.threads == f.arena_default_threads) {
      as_default = i;
    }
  }
  // The arena as a caller gets it, where the run measured it: its goals are the defaults'.
  a.judged_default = as_default.has_value();
  if (as_default) a.arena = as_default;
}

}  // namespace

PinAnalysis analyse_pin(const RunRecord& record, const PinGoalTargets& targets) {
  if (record.experiment != "pin") {
    throw InputError(fmt::format("run record is of experiment '{}', not pin", record.experiment));
  }
  PinAnalysis a;
  a.config = pin_config_from(record.config);
  const json& section = record.section(kPinSection);
  if (section.is_null())
    refuse_field(kPinSection, "is missing: a pin record keeps its limits there");
  a.section = pin_section_from(section);
  const bool neighbour = a.config.neighbour_interval_us > 0;
  if (neighbour != a.section.neighbour_idle.has_value()) {
    refuse_field(std::string(kPinSection) + ".neighbour_idle",
                 neighbour ? fmt::format("is null, but config.neighbour_interval_us is {}: a "
                                         "neighbour ran",
                                         a.config.neighbour_interval_us)
                           : std::string("holds figures, but config.neighbour_interval_us is 0: "
                                         "no neighbour ran"));
  }
  rows_from(record, neighbour, a);
  judge_at(a);
  const JudgedAt j = judged_of(a);
  a.goals = {rate_goal(a, j, targets), neighbour_goal(a, j, targets), copy_goal(a, j, targets),
             limits_goal(a)};
  a.advice = advice_of(a, targets);
  return a;
}

namespace {

std::string ms_cell(const std::optional<double>& ms) {
  return figure_cell(ms, "{:.1f}");
}
std::string latency_cell(const std::optional<double>& ms) {
  return figure_cell(ms, "{:.2f}");
}

ReportTable pinning_table(const PinAnalysis& a) {
  ReportTable t;
  t.id = "pin-pinning";
  t.title = "Pinning: how fast each way pins, hands out its first GiB and frees";
  t.header = {"method",          "size",   "GB/s",   "first GiB ms", "free ms",
              "longest call ms", "nb p50", "nb p99", "nb max",       "nb max, freeing"};
  t.numeric = {false, true, true, true, true, true, true, true, true, true};
  t.key_columns = 2;
  for (const PinRow& r : a.pins) {
    const auto nb = [&r](double PinNeighbour::*m) {
      return r.neighbour ? std::optional<double>((*r.neighbour).*m) : std::nullopt;
    };
    t.rows.push_back(
        {r.label(), exact_size(r.bytes), figure_cell(r.gb_per_s), ms_cell(r.first_gib_ms),
         ms_cell(r.free_ms), ms_cell(r.longest_chunk_ms), latency_cell(nb(&PinNeighbour::p50_ms)),
         latency_cell(nb(&PinNeighbour::p99_ms)), latency_cell(nb(&PinNeighbour::max_ms)),
         latency_cell(r.neighbour_free_max_ms)});
  }
  t.notes.push_back(
      "GB/s: the size over the time from the first call until all of it was usable (GB/s = "
      "10^9 bytes/s). First GiB: until the first GiB (or the whole, if smaller) was usable. "
      "Free: cudaFreeHost, or unregistering and unmapping. Longest call: the arena's longest "
      "single pinning call. PinnedArena 32 MiB x 16: its chunk and threads.");
  if (a.section.neighbour_idle) {
    const PinNeighbour& n = *a.section.neighbour_idle;
    t.notes.push_back(fmt::format(
        "nb, in ms: the neighbour, a second process making a small copy, a kernel launch and "
        "cudaMemGetInfo every {} µs: its calls that overlapped the pin (p50, p99, worst), and its "
        "worst call while the memory was freed. Idle, with nothing pinning: {} calls, p50 {}, "
        "p99 {}, worst {}.",
        a.config.neighbour_interval_us, n.calls, ms_words(n.p50_ms), ms_words(n.p99_ms),
        ms_words(n.max_ms)));
  } else {
    t.notes.push_back("No neighbour ran: what pinning costs other processes was not measured.");
  }
  for (const PinRow& r : a.pins) {
    if (!r.gb_per_s) {
      t.notes.push_back(
          fmt::format("Failed: {} at {}: {}", r.label(), exact_size(r.bytes), r.gate_detail));
    }
  }
  return t;
}

ReportTable copies_table(const PinAnalysis& a) {
  ReportTable t;
  t.id = "pin-copies";
  t.title = "Copies from each kind of pinned memory (GB/s)";
  t.header = {"method", "copy", "h2d", "d2h", "h2d vs cudaHostAlloc", "d2h vs cudaHostAlloc"};
  t.numeric = {false, true, true, true, true, true};
  const PinCopyRow* alloc = nullptr;
  for (const PinCopyRow& r : a.copies) {
    if (r.method == kPinHostAlloc && alloc == nullptr) alloc = &r;
  }
  const auto ratio = [](const std::optional<double>& x, const std::optional<double>& y) {
    return x && y && *y > 0 ? std::optional<double>(*x / *y) : std::nullopt;
  };
  for (const PinCopyRow& r : a.copies) {
    t.rows.push_back(
        {r.label(), exact_size(r.bytes), figure_cell(r.h2d_gb_per_s), figure_cell(r.d2h_gb_per_s),
         ratio_cell(ratio(r.h2d_gb_per_s, alloc ? alloc->h2d_gb_per_s : std::nullopt)),
         ratio_cell(ratio(r.d2h_gb_per_s, alloc ? alloc->d2h_gb_per_s : std::nullopt))});
  }
  t.notes.push_back(
      "Each way's memory copied to and from the GPU at the largest size it pinned, every byte "
      "checked; the arena's copies are split at its chunks, as one cudaMemcpyAsync cannot span "
      "two registrations. vs cudaHostAlloc: the rate over cudaHostAlloc memory's.");
  return t;
}

std::string or_words(const std::optional<std::uint64_t>& bytes, const char* none) {
  return bytes ? format_size(*bytes) : std::string(none);
}

ReportTable limits_table(const PinAnalysis& a) {
  ReportTable t;
  t.id = "pin-limits";
  t.title = "What bounds pinning here, read before anything was pinned";
  t.header = {"limit", "value", "bounds", "from"};
  t.numeric = {false, true, false, false};
  for (const PinLimit& l : a.section.limits) {
    t.rows.push_back({l.name, format_size(l.bytes) + (l.below ? ", exclusive" : ""),
                      l.per_call ? "one call" : "all pinned", l.why});
  }
  const PinFacts& f = a.section.facts;
  t.rows.push_back({"RLIMIT_MEMLOCK", or_words(f.memlock_bytes, "unlimited"), "recorded only",
                    "getrlimit; CUDA's pinning does not count against it"});
  t.rows.push_back({"cgroup memory limit", or_words(f.cgroup_memory_bytes, "none"), "all memory",
                    "the tightest memory.max on the way to the root"});
  t.rows.push_back({"vm.max_map_count",
                    f.max_map_count ? fmt::format("{} ({} held)", *f.max_map_count, f.map_count)
                                    : std::string("not read"),
                    "mappings", "/proc/sys/vm/max_map_count, /proc/self/maps"});
  t.rows.push_back({"MemAvailable", format_size(f.available_bytes), "—", "/proc/meminfo"});
  t.rows.push_back({"transparent huge pages", f.thp_mode.empty() ? "not said" : f.thp_mode, "—",
                    "/sys/kernel/mm/transparent_hugepage/enabled"});
  t.rows.push_back(
      {"hugetlbfs, free", exact_size(f.hugetlbfs_free_bytes), "—", "/proc/meminfo HugePages_Free"});
  t.rows.push_back(
      {"kernel", f.kernel_release.empty() ? "not read" : f.kernel_release, "—", "uname"});
  t.rows.push_back({"NVIDIA driver", f.driver_release.empty() ? "none" : f.driver_release, "—",
                    "/proc/driver/nvidia/version"});
  t.notes.push_back(
      "A size that would cross a limit is refused with a line naming it, never attempted.");
  return t;
}

}  // namespace

std::vector<ReportTable> pin_tables(const PinAnalysis& a) {
  std::vector<ReportTable> out = {pinning_table(a)};
  if (!a.copies.empty()) out.push_back(copies_table(a));
  out.push_back(limits_table(a));
  if (!a.section.refused.empty()) {
    ReportTable t{"pin-refused",
                  "Refused, never attempted",
                  {"method", "size", "why"},
                  {false, true, false},
                  {},
                  {},
                  {}};
    t.key_columns = 2;
    for (const PinRefusal& r : a.section.refused) {
      t.rows.push_back({r.method, exact_size(r.bytes), r.why});
    }
    out.push_back(std::move(t));
  }
  if (!a.section.skipped.empty()) {
    ReportTable t{"pin-skipped", "Skipped", {"method", "why"}, {false, false}, {}, {}, {}};
    for (const PinSkip& k : a.section.skipped) t.rows.push_back({k.method, k.why});
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<ChartSpec> pin_charts(const PinAnalysis& a) {
  ChartSpec rate = make_chart(ChartKind::kSize, "pin-rate", "GB/s pinned, by method and size");
  rate.axis_title = "size / time until usable (GB/s = 10^9 bytes/s)";
  rate.value_suffix = " GB/s";
  rate.caption = "How fast each way makes memory page-locked, by the size pinned at once.";
  for (const PinRow& r : a.pins) {
    if (rate.series.empty() || rate.series.back().label != r.label()) {
      rate.series.push_back({r.label(), r.label(), {}});
    }
    rate.series.back().points.emplace_back(r.bytes, r.gb_per_s);
  }
  std::vector<ChartSpec> out = {std::move(rate)};
  const std::optional<std::uint64_t> at = advice_bytes(a);
  if (!a.section.neighbour_idle || !at) return out;
  ChartSpec worst = make_chart(
      ChartKind::kBars, "pin-neighbour",
      fmt::format("The neighbour's worst call while each way pinned {}", exact_size(*at)));
  worst.axis_title = "the neighbour's worst call (ms)";
  worst.value_suffix = " ms";
  const PinNeighbour& idle = *a.section.neighbour_idle;
  worst.bars.push_back(
      {"neighbour idle", "idle", idle.max_ms,
       fmt::format("p50 {}, p99 {}", ms_words(idle.p50_ms), ms_words(idle.p99_ms))});
  for (const PinRow& r : a.pins) {
    if (r.bytes != *at || !r.neighbour) continue;
    worst.bars.push_back({r.label(), r.label(), r.neighbour->max_ms,
                          fmt::format("p50 {}, p99 {} over {} calls", ms_words(r.neighbour->p50_ms),
                                      ms_words(r.neighbour->p99_ms), r.neighbour->calls)});
  }
  worst.caption =
      "A second process's worst CUDA call while the memory was pinned: what each way of pinning "
      "costs everyone else on the host.";
  out.push_back(std::move(worst));
  return out;
}

VerdictGroup pin_goals(const PinAnalysis& a) {
  VerdictGroup g = goal_group("goals", "Goals (what the arena aims for; findings, not checks)");
  g.note = a.judged_bytes
               ? fmt::format(
                     "Judged at {}, the largest size where both PinnedArena and "
                     "cudaHostAlloc were measured, on the arena's {} there: findings, not "
                     "checks.",
                     exact_size(*a.judged_bytes),
                     a.judged_default ? "default configuration (its chunk and threads when "
                                        "PinnedArenaOptions leaves them 0)"
                                      : "fastest configuration")
               : "No size where both PinnedArena and cudaHostAlloc were measured: the arena's "
                 "goals are not evaluated. Findings, not checks.";
  int n = 0;
  for (const PinGoal& goal : a.goals) {
    Prediction p;
    p.number = ++n;
    p.statement = goal.statement;
    p.verdict = goal.verdict;
    p.claims = goal.claims;
    g.items.push_back(std::move(p));
  }
  return g;
}

CaseShape pin_case_shape(const Case& c) {
  if (!is_arena(c.method) || !c.extra.is_object()) return {};
  std::uint64_t chunk = 0;
  int threads = 0;
  arena_from(JsonFields(c.extra, "extra"), c.method, chunk, threads);
  return {{chunk, static_cast<std::uint64_t>(threads)},
          fmt::format("{} x {}", exact_size(chunk), threads)};
}

}  // namespace pinbench::experiments::pin
