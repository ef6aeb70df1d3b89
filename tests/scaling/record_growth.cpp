// Records grown from committed ones (record_growth.hpp). A unit is copied round after round from
// the template, each round's copies made distinct where a reader tells units apart (a case's
// bytes and gate, a blocks cell's size and count, a call site's id, a process's pid, a host's
// name), so a reader that looks a unit up among the others pays for it here.
#include "record_growth.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include <pinbench/block_choice.hpp>

#include "../cpu/doctor_fixtures.hpp"

namespace pinbench::test {
namespace {

using json = nlohmann::json;

// A case keeps at most this many samples: what grows here is the number of cases, and three
// samples keep every figure of a case (median, spread, stability) defined.
constexpr std::size_t kSamplesKept = 3;
// Each round moves a case's bytes by this much: a size of its own, in the same series.
constexpr std::uint64_t kRoundBytes = 4096;

json read_json(const std::string& relative) {
  std::ifstream in(source_path(relative));
  if (!in) throw std::runtime_error("cannot read " + source_path(relative));
  std::stringstream s;
  s << in.rdbuf();
  return json::parse(s.str());
}

void keep_samples(json& c) {
  for (const char* key : {"samples_ms", "call_ms"}) {
    if (c.contains(key) && c[key].is_array() && c[key].size() > kSamplesKept) {
      c[key].erase(c[key].begin() + kSamplesKept, c[key].end());
    }
  }
}

// The gates the template's cases name, by name, and the others (kept once, first).
struct Gates {
  std::map<std::string, json> named;
  json others = json::array();
};

Gates gates_of(const json& record) {
  std::set<std::string> used;
  for (const json& c : record["cases"]) {
    if (c.contains("gate") && c["gate"].is_string()) used.insert(c["gate"].get<std::string>());
  }
  Gates g;
  for (const json& gate : record["gates"]) {
    const std::string name = gate["name"].get<std::string>();
    if (used.count(name) > 0) {
      g.named.emplace(name, gate);
    } else {
      g.others.push_back(gate);
    }
  }
  return g;
}

// `units` cases from the template's, round after round; `reshape` makes round r's copy of a
// case distinct (r > 0). Each copy's gate is a copy of its template's, renamed for the round.
json grow_cases_by(const json& source, std::size_t units,
                   const std::function<void(json&, std::size_t round)>& reshape) {
  json r = source;
  const json& cases = source["cases"];
  if (cases.empty()) throw std::runtime_error("the template has no cases");
  const Gates gates = gates_of(source);
  json out_cases = json::array();
  json out_gates = gates.others;
  for (std::size_t round = 0; out_cases.size() < units; ++round) {
    for (const json& c : cases) {
      if (out_cases.size() >= units) break;
      json copy = c;
      keep_samples(copy);
      if (round > 0) reshape(copy, round);
      if (copy.contains("gate") && copy["gate"].is_string()) {
        const std::string name = copy["gate"].get<std::string>();
        const auto it = gates.named.find(name);
        if (it != gates.named.end()) {
          json gate = it->second;
          if (round > 0) {
            copy["gate"] = name + "/r" + std::to_string(round);
            gate["name"] = copy["gate"];
          }
          out_gates.push_back(gate);
        }
      }
      out_cases.push_back(std::move(copy));
    }
  }
  r["cases"] = std::move(out_cases);
  r["gates"] = std::move(out_gates);
  return r;
}

json grow_cases(const json& source, std::size_t units) {
  return grow_cases_by(source, units, [](json& c, std::size_t round) {
    c["bytes"] = c["bytes"].get<std::uint64_t>() + round * kRoundBytes;
  });
}

// A blocks record's cells on a grid grown both ways, as a run over more block sizes and counts
// measures: round r = (a, b) on a square of rounds adds 64 * a bytes to each block size and
// multiplies each count by 2b + 1, so no two cells of a method meet (the template's counts are
// powers of two) and both the sizes and the counts the rules are drawn over grow with the record.
json grow_blocks(const json& source, std::size_t units) {
  const std::size_t per_round = source["cases"].size();
  const std::size_t rounds = (units + per_round - 1) / per_round;
  const auto side = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(rounds))));
  return grow_cases_by(source, units, [side](json& c, std::size_t round) {
    const std::uint64_t a = round % side, b = round / side;
    json& x = c["extra"];
    const std::uint64_t block = x["block_bytes"].get<std::uint64_t>() + 64 * a;
    const std::uint64_t count = x["blocks"].get<std::uint64_t>() * (2 * b + 1);
    x["block_bytes"] = block;
    x["blocks"] = count;
    if (x.contains("calls") && x["calls"].get<std::uint64_t>() > 1) x["calls"] = count;
    c["bytes"] = block * count;
  });
}

std::string site_id(const std::string& id, std::size_t round) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx",
                static_cast<unsigned long long>(std::stoull(id, nullptr, 16) ^
                                                (static_cast<std::uint64_t>(round) << 40)));
  return buf;
}

// The template's time span, so a round's calls follow the last round's.
std::int64_t span_of(const json& calls) {
  std::int64_t last = 0;
  for (const json& c : calls) last = std::max(last, c["end_ns"].get<std::int64_t>());
  return last + 1;
}

void shift_times(json& j, std::int64_t by) {
  for (const char* key : {"start_ns", "end_ns"}) {
    if (j.contains(key)) j[key] = j[key].get<std::int64_t>() + by;
  }
}

// A doctor record's calls, each round's at sites of their own after the last round's calls.
json grow_doctor(const json& source, std::size_t units) {
  json r = source;
  const json& t = source["doctor"];
  const json& calls = t["calls"];
  const std::int64_t span = span_of(calls);
  json out_calls = json::array(), out_sites = json::array(), out_kernels = json::array();
  for (std::size_t round = 0; out_calls.size() < units; ++round) {
    const std::int64_t by = static_cast<std::int64_t>(round) * span;
    for (json c : calls) {
      if (out_calls.size() >= units) break;
      shift_times(c, by);
      if (c.contains("copies")) {
        for (json& copy : c["copies"]) shift_times(copy, by);
      }
      if (c.value("site", "") != "") c["site"] = site_id(c["site"].get<std::string>(), round);
      out_calls.push_back(std::move(c));
    }
    for (json s : t["sites"]) {
      s["id"] = site_id(s["id"].get<std::string>(), round);
      out_sites.push_back(std::move(s));
    }
    for (json k : t["kernels"]) {
      k[0] = k[0].get<std::int64_t>() + by;
      k[1] = k[1].get<std::int64_t>() + by;
      out_kernels.push_back(std::move(k));
    }
  }
  json& d = r["doctor"];
  d["calls"] = std::move(out_calls);
  d["sites"] = std::move(out_sites);
  d["kernels_total"] = out_kernels.size();
  d["kernels"] = std::move(out_kernels);
  return r;
}

// An accel record's processes, each round's a tree of its own (pids moved past the last round's).
json grow_accel(const json& source, std::size_t units) {
  json r = source;
  const json& processes = source["accel"]["processes"];
  int most = 0;
  for (const json& p : processes) {
    most = std::max({most, p["pid"].get<int>(), p.value("parent_pid", 0)});
  }
  json out = json::array();
  for (std::size_t round = 0; out.size() < units; ++round) {
    for (json p : processes) {
      if (out.size() >= units) break;
      const int by = static_cast<int>(round) * (most + 1);
      p["pid"] = p["pid"].get<int>() + by;
      if (p.contains("parent_pid")) p["parent_pid"] = p["parent_pid"].get<int>() + by;
      out.push_back(std::move(p));
    }
  }
  r["accel"]["processes"] = std::move(out);
  return r;
}

// A fleet record's hosts, each round's named apart.
json grow_fleet(const json& source, std::size_t units) {
  json r = source;
  const json& members = source["members"];
  const json& sources = source["config"]["sources"];
  json out = json::array(), names = json::array();
  for (std::size_t round = 0; out.size() < units; ++round) {
    for (std::size_t i = 0; i < members.size() && out.size() < units; ++i) {
      json m = members[i];
      const std::string suffix = round == 0 ? "" : "-" + std::to_string(round);
      m["machine"]["hostname"] = m["machine"]["hostname"].get<std::string>() + suffix;
      for (json& c : m["cases"]) keep_samples(c);
      out.push_back(std::move(m));
      names.push_back(sources[i].get<std::string>() + suffix);
    }
  }
  r["members"] = std::move(out);
  r["config"]["sources"] = std::move(names);
  return r;
}

}  // namespace

std::string source_path(const std::string& relative) {
  return std::string(PINBENCH_SOURCE_DIR) + "/" + relative;
}

const std::vector<RecordGrowth>& record_growths() {
  // N for each: a command reads a record of N units in some 30 to 60 ms of CPU and one of 8N in
  // some 0.3 to 0.5 s, so the tests of every kind take about half a minute; a reader whose cost
  // per unit grows with the record (one that looks each unit up among the others) shows it as a
  // ratio past the bound at 8N where a unit's lookup costs more than about a thousandth of what
  // the rest of reading the unit does. blocks: 2304 cells are three rounds of the template, the
  // fewest that measure more sizes and counts than a rule's bounds are drawn from.
  static const std::vector<RecordGrowth> all = {
      {"lesson", "cases", "data/runs/lesson-h200-2026-12-01T073254Z.json", 1500, grow_cases},
      {"sweep", "cases", "data/runs/sweep-h200-2026-11-30T162938Z.json", 1500, grow_cases},
      {"bandwidthtest", "cases", "data/runs/bandwidthtest-h200-2026-12-01T073315Z.json", 1500,
       grow_cases},
      {"race", "cases", "data/runs/race-h200-2026-12-01T073315Z.json", 700, grow_cases},
      {"staged", "cases", "data/runs/staged-h200-2026-12-01T075638Z.json", 1000, grow_cases},
      {"staged-tune", "cases", "data/runs/staged-tune-h200-2026-12-01T075853Z.json", 1000,
       grow_cases},
      {"pipeline", "cases", "data/runs/pipeline-h200-2026-12-01T132612Z.json", 1000, grow_cases},
      {"doctor", "calls", "data/runs/doctor-pageable-async-h200-2026-12-01T100629Z.json", 1000,
       grow_doctor},
      {"accel", "processes", "data/runs/accel-program-h200-2026-12-02T024454Z.json", 200,
       grow_accel},
      {"check", "cases", "data/runs/check-h200-2026-12-01T095735Z.json", 1500, grow_cases},
      {"fleet", "hosts", "data/runs/fleet-mpi-h200-2026-12-01T095749Z.json", 40, grow_fleet, false},
      {"host", "cases", "data/runs/host-h200-2026-12-01T095739Z.json", 1500, grow_cases},
      {"blocks", "cells", "data/runs/blocks-h200-2026-12-02T064418Z.json", 2304, grow_blocks},
      // pin: each round's pins and copies are sizes of their own.
      {"pin", "cases", "data/runs/pin-h100-2026-12-06T101003Z.json", 1500, grow_cases},
  };
  return all;
}

const RecordGrowth* growth_for(const std::string& kind) {
  for (const RecordGrowth& g : record_growths()) {
    if (g.kind == kind) return &g;
  }
  return nullptr;
}

std::string grown_record(const std::string& kind, std::size_t units) {
  const RecordGrowth* g = growth_for(kind);
  if (g == nullptr) throw std::runtime_error("no growth for records of kind '" + kind + "'");
  static std::map<std::string, json> sources;
  auto it = sources.find(g->source);
  if (it == sources.end()) it = sources.emplace(g->source, read_json(g->source)).first;
  return g->grow(it->second, std::max<std::size_t>(units, 1)).dump();
}

std::string grown_doctor_events(std::size_t calls) {
  const json record = read_json(growth_for("doctor")->source);
  const json& t = record["doctor"];
  const std::int64_t span = span_of(t["calls"]);
  const auto us = [](std::int64_t ns) { return static_cast<std::uint64_t>(ns / 1000); };
  const auto kind_of = [](const std::string& k) {
    return k == "pageable" ? 1 : k == "pinned" ? 2 : 3;
  };
  std::string out = head();
  unsigned corr = 1;
  std::size_t made = 0;
  for (std::size_t round = 0; made < calls; ++round) {
    const std::int64_t by = static_cast<std::int64_t>(round) * span;
    for (const json& s : t["sites"]) {
      const json& frames = s["frames"];
      const std::string function =
          frames.size() > 1 ? frames[1].value("function", "step") : std::string("step");
      out += site(site_id(s["id"].get<std::string>(), round), function);
    }
    for (const json& c : t["calls"]) {
      if (made >= calls) break;
      const std::string s = c.value("site", "");
      const std::string id = s.empty() ? kNone : site_id(s, round);
      const std::string dir = c.contains("copies") && !c["copies"].empty()
                                  ? c["copies"][0].value("direction", "")
                                  : std::string();
      out +=
          api("R", c["kind"].get<std::string>(), corr, us(c["start_ns"].get<std::int64_t>() + by),
              us(c["end_ns"].get<std::int64_t>() + by), id, c["api"].get<std::string>(),
              c.value("ptr", std::uint64_t{0}), c.value("bytes", std::uint64_t{0}), 10, 77,
              dir == "h2d"   ? 'H'
              : dir == "d2h" ? 'D'
                             : '-');
      if (c.contains("copies")) {
        for (const json& copy : c["copies"]) {
          out += memcpy_line(
              corr, corr, copy.value("direction", "") == "d2h" ? 2 : 1,
              copy["bytes"].get<std::uint64_t>(), kind_of(copy.value("src_kind", "")),
              kind_of(copy.value("dst_kind", "")), us(copy["start_ns"].get<std::int64_t>() + by),
              us(copy["end_ns"].get<std::int64_t>() + by));
        }
      }
      ++corr;
      ++made;
    }
  }
  return out;
}

namespace {

std::optional<BlockMethod> table_method(const std::string& name) {
  if (name == "batch-stream") return BlockMethod::kBatch;
  if (name == "loop") return BlockMethod::kLoop;
  if (name == "staged") return BlockMethod::kStaged;
  if (name == "kernel") return BlockMethod::kKernel;
  return std::nullopt;
}

double median_of(const json& samples) {
  std::vector<double> v = samples.get<std::vector<double>>();
  std::sort(v.begin(), v.end());
  return v[(v.size() - 1) / 2];
}

}  // namespace

std::string grown_calibration(std::size_t points) {
  const json record = read_json(growth_for("blocks")->source);
  // The template's rates by group and method, at its (size, count) cells.
  using Group = std::tuple<BlockDirection, BlockMemory, BlockMethod>;
  std::map<Group, std::vector<std::tuple<double, double, double>>> rates;  // log size, log count
  for (const json& c : record["cases"]) {
    const auto m = table_method(c["method"].get<std::string>());
    if (!m) continue;
    const json& x = c["extra"];
    const double ms = median_of(c["samples_ms"]);
    const Group g{*parse_block_direction(c["direction"].get<std::string>()),
                  *parse_block_memory(c["memory"].get<std::string>()), *m};
    rates[g].emplace_back(std::log2(x["block_bytes"].get<double>()),
                          std::log2(x["blocks"].get<double>()),
                          c["bytes"].get<double>() / (ms * 1e6));
  }
  // A square grid of about points / groups cells, sizes from 4 KiB and counts from 1 by 2x.
  const auto side = static_cast<std::size_t>(std::ceil(std::sqrt(
      static_cast<double>(points) / static_cast<double>(std::max<std::size_t>(rates.size(), 1)))));
  CalibrationTable t;
  t.identity = {"Scaling GPU", 13000, "0.1.0"};
  t.created_utc = "2026-12-06T00:00:00Z";
  for (std::size_t i = 0; i < side; ++i) {
    t.sizes.push_back(4096 + 512 * i);
    t.counts.push_back(1 + 3 * i);
  }
  for (const auto& [g, cells] : rates) {
    for (std::uint64_t size : t.sizes) {
      for (std::uint64_t count : t.counts) {
        // The template's nearest cell's rate.
        const double ls = std::log2(static_cast<double>(size));
        const double lc = std::log2(static_cast<double>(count));
        double best = 1e300, rate = 1;
        for (const auto& [s, n, r] : cells) {
          const double d = (s - ls) * (s - ls) + (n - lc) * (n - lc);
          if (d < best) {
            best = d;
            rate = r;
          }
        }
        t.points.push_back(
            {std::get<0>(g), std::get<1>(g), std::get<2>(g), size, count, rate, std::nullopt});
      }
    }
  }
  return calibration_to_json(t);
}

std::string grown_rules(std::size_t rules) {
  json doc = read_json("tests/golden/blocks-recommend.json");
  for (json& choice : doc["choices"]) {
    const json given = choice["rules"];
    json out = json::array();
    for (std::size_t i = 0; out.size() < rules; ++i) {
      json r = given.empty() ? json{{"method", choice["default"]}} : given[i % given.size()];
      r["min_blocks"] = 1 + i;  // each a rule of its own
      r.erase("max_blocks");
      out.push_back(std::move(r));
    }
    choice["rules"] = std::move(out);
  }
  return doc.dump();
}

}  // namespace pinbench::test
