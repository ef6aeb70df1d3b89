// docs/results.md (what pinbench measures today) and docs/history/results.md (every measurement
// in the order it was made) quote what the committed records measured. Every figure there
// carries a marker, an HTML comment right after it that names where the figure comes from, and
// this test recomputes each one from the record with the project's own code (load_record,
// figures_of, gb_per_s) and compares it at the precision it is printed with. A number with a unit
// (GB/s, ms, µs, s, x, %) that has no marker fails the test too, and so does a bare decimal in a
// table cell (whose unit is in the header), so no figure slips in unchecked. The pages it reads
// are kCheckedPages; every page under docs/history/ must be one of them or be listed, with the
// reason, in kUncheckedPages, so a new history page cannot go unchecked by being forgotten.
//
// Markers (all on one line; never a '|' inside one, since they sit in table cells):
//   <!-- record data/runs/X.json -->     the record the markers after it read, until the next one
//   <!-- nvbandwidth data/runs/X.txt --> the nvbandwidth output that `nvbw` markers read
// A file a marker names is a file of the repository, or FILE.json#NAME: the file NAME of a folder
// of runs squeezed into FILE.json by scripts/bench/squeeze-runs.py (data/evidence/), a record or a
// benchmark's JSON as its JSON value and any other file as its text.
//   <!-- STAT SELECTOR... -->            the figure just before it is STAT of the selected cases
//   <!-- goal -->                        the number before it is a stated goal or threshold, not a
//                                        measurement (prose only: never in a table)
// A SELECTOR is `gate=NAME` (the one case the gate covers) or `PART/DIRECTION/MEMORY/METHOD/BYTES`
// (BYTES as parse_size reads it: 64MiB, 67108869). A token `@data/runs/Y.json` makes the
// selectors after it, within the marker, read that record instead. STATs:
//   ms S          median of the case's samples (printed in ms, or µs)
//   gbps S        bytes / median ms / 1e6, in GB/s
//   ratio S T [*K]  gbps(S) / gbps(T), times K when given; printed with x, or with % as 100 times
//   call_ms S     median of the case's call_ms;  call_share S: call_ms median / median, in %
//   gates, gates_passed, cases   counts in the record;  wall  wall_ms, printed in s or ms
//   trace_ms G    the sum of trace.prediction4.G.call_ns in ms (G: pageable or pinned)
//   trace_ratio   trace_ms pageable / trace_ms pinned;  trace_bytes G  trace.prediction4.G.bytes
//   race_new S    new words / all words over the case's extra.trials, in %
//   nvbw N TEST   the N-th (from 1) `SUM TEST value` line of the nvbandwidth output, in GB/s
//   vs_nvbw S N TEST  100 * (gbps(S) / nvbw N TEST - 1), in %
//   sys_share S...  the cases' summed extra cpu_sys_s / summed (cpu_user_s + cpu_sys_s), in %
//   idle_core     config.idle_engine's (cpu_user_s + cpu_sys_s) / cpu_wall_s, in %
// accel's benchmark (tests/bench/accel_bench.py) writes JSON, not a record:
//   <!-- bench data/runs/X/accel-bench.json -->  the file the bench markers after it read
//   plain P BYTES, accel P BYTES   the median over rounds of that path's GB/s without / under accel
//   engine P BYTES                 the engine's own GB/s at that size;  speedup P BYTES: accel /
//   plain (x);  of_engine P BYTES: accel / engine (% or x);  loop plain|accel: the DataLoader
//   loop's median wall time (s or ms). P: to_nb, copy_to_device, copy_to_host, cpu.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "framework/by_experiment.hpp"
#include "framework/case_figures.hpp"
#include "framework/record.hpp"
#include "framework/stats.hpp"
#include "framework/units.hpp"

namespace pinbench {
namespace {

namespace fs = std::filesystem;

struct DocProblem {
  int line = 0;
  std::string message;
};

struct DocCheck {
  std::vector<DocProblem> problems;
  int figures_checked = 0;
};

std::string repo_root() {
  return fs::path(PINBENCH_DATA_DIR).parent_path().string();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The files markers name: a path under the repository, or BUNDLE.json#NAME, the file NAME kept in
// a squeezed folder of runs (each bundle read once).
class CitedFiles {
 public:
  explicit CitedFiles(std::string root) : root_(std::move(root)) {}

  // Throws when the file, the bundle or its member is missing or is not JSON.
  nlohmann::json json(const std::string& cited) {
    const auto hash = cited.find('#');
    if (hash == std::string::npos) return parse_record_text(text_of(cited));
    return member(cited, hash);
  }

  std::string text(const std::string& cited) {
    const auto hash = cited.find('#');
    if (hash == std::string::npos) return text_of(cited);
    const nlohmann::json& m = member(cited, hash);
    if (!m.is_string()) throw std::runtime_error(cited + " is not a text in its bundle");
    return m.get<std::string>();
  }

  bool is_bundled(const std::string& cited) const { return cited.find('#') != std::string::npos; }

 private:
  std::string text_of(const std::string& path) const {
    const fs::path p = fs::path(root_) / path;
    if (!fs::is_regular_file(p)) throw std::runtime_error(path + " is missing");
    return read_file(p.string());
  }

  const nlohmann::json& member(const std::string& cited, std::size_t hash) {
    const std::string bundle = cited.substr(0, hash);
    auto it = bundles_.find(bundle);
    if (it == bundles_.end())
      it = bundles_.emplace(bundle, parse_record_text(text_of(bundle))).first;
    const nlohmann::json& files = it->second.contains("files") ? it->second["files"] : it->second;
    const std::string name = cited.substr(hash + 1);
    if (!files.is_object() || !files.contains(name)) {
      throw std::runtime_error(bundle + " holds no file " + name);
    }
    return files[name];
  }

  std::string root_;
  std::map<std::string, nlohmann::json> bundles_;
};

std::vector<std::string> split_ws(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string t; in >> t;) out.push_back(t);
  return out;
}

// A printed figure: its digits and the unit written after it ("" in a table cell whose header
// carries the unit).
struct Printed {
  double value = 0.0;
  int decimals = 0;
  std::string unit;
};

// A figure, and the unit printed with it, at the end of a text (before markdown emphasis).
const std::regex& figure_at_end() {
  static const std::regex re(R"((-?\d+(?:\.\d+)?)[ ]?(GB/s|ms|µs|s|x|%|MiB)?[*_`]*[ ]*$)");
  return re;
}

// The figure that ends `text`, if any.
std::optional<Printed> figure_before(const std::string& text) {
  std::smatch m;
  if (!std::regex_search(text, m, figure_at_end())) return std::nullopt;
  // A digit or a letter straight before the number makes it part of a word (x16, sm_90), and a
  // digit before a minus sign makes it a range written with a hyphen ("5.6-5.9x"): write
  // "5.6x to 5.9x", each figure with its marker.
  const auto start = static_cast<std::size_t>(m.position(0));
  if (start > 0) {
    const char before = text[start - 1];
    if (std::isalnum(static_cast<unsigned char>(before)) || before == '.' || before == '_') {
      return std::nullopt;
    }
  }
  Printed p;
  const std::string digits = m[1].str();
  p.value = std::stod(digits);
  const auto dot = digits.find('.');
  p.decimals = dot == std::string::npos ? 0 : static_cast<int>(digits.size() - dot - 1);
  p.unit = m[2].matched ? m[2].str() : "";
  return p;
}

// Every number with a unit in `text` that a reader would take for a measured figure.
std::vector<std::string> unmarked_figures(const std::string& text) {
  static const std::regex re(
      R"((^|[^A-Za-z0-9_.^/])(\d+(?:\.\d+)?)[ ]?(GB/s|ms|µs|s|x|%)(?![A-Za-z0-9]))");
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
       ++it) {
    out.push_back((*it)[2].str() + " " + (*it)[3].str());
  }
  return out;
}

class ResultsChecker {
 public:
  explicit ResultsChecker(const std::string& root) : root_(root), files_(root) {}

  DocCheck check(const std::string& markdown) {
    DocCheck out;
    std::istringstream in(markdown);
    std::string line;
    int number = 0;
    bool in_code = false;
    while (std::getline(in, line)) {
      ++number;
      if (line.rfind("```", 0) == 0) {
        in_code = !in_code;
        continue;
      }
      if (in_code) continue;
      check_line(line, number, out);
    }
    return out;
  }

 private:
  void check_line(const std::string& text, int number, DocCheck& out) {
    // Code spans hold commands, flags and marker syntax shown as an example: blank them, keeping
    // the columns, so nothing in them counts as a marker or a figure.
    std::string line = text;
    for (std::size_t open = line.find('`'); open != std::string::npos;) {
      const std::size_t close = line.find('`', open + 1);
      if (close == std::string::npos) break;
      std::fill(line.begin() + static_cast<std::ptrdiff_t>(open) + 1,
                line.begin() + static_cast<std::ptrdiff_t>(close), ' ');
      open = line.find('`', close + 1);
    }
    const bool table_row = line.rfind("|", 0) == 0;
    auto problem = [&](const std::string& m) { out.problems.push_back({number, m}); };
    std::string rest;  // the line with markers and their figures removed
    std::size_t pos = 0;
    std::size_t segment_start = 0;  // figures are looked for after the previous marker only
    while (true) {
      const auto open = line.find("<!--", pos);
      if (open == std::string::npos) break;
      const auto close = line.find("-->", open);
      if (close == std::string::npos) {
        problem("a marker that does not close on its line");
        return;
      }
      const std::string before = line.substr(segment_start, open - segment_start);
      const std::vector<std::string> words = split_ws(line.substr(open + 4, close - open - 4));
      pos = segment_start = close + 3;
      // `<!-- exit N -->` before an example is the docs-commands test's (its expected status).
      if (words.empty() || (words[0] == "exit" && words.size() == 2)) {
        rest += before;
        continue;
      }
      if (words[0] == "record" || words[0] == "nvbandwidth" || words[0] == "bench") {
        rest += before;
        if (words.size() != 2) {
          problem("'" + words[0] + "' needs exactly one file");
          continue;
        }
        if (words[0] == "bench") {
          bench_path_ = words[1];
          try {
            bench_ = files_.json(words[1]);
          } catch (const std::exception& e) {
            problem("benchmark file " + words[1] + " cannot be read: " + e.what());
            bench_path_.clear();
          }
        } else if (words[0] == "record") {
          record_path_ = words[1];
          if (!record(words[1], problem)) record_path_.clear();
        } else {
          nvbandwidth_path_ = words[1];
          try {
            nvbandwidth_ = files_.text(words[1]);
          } catch (const std::exception& e) {
            problem("nvbandwidth output " + words[1] + " cannot be read: " + e.what());
            nvbandwidth_path_.clear();
          }
        }
        continue;
      }
      const std::optional<Printed> printed = figure_before(before);
      if (!printed) {
        problem("marker '" + words[0] + "' follows no figure");
        rest += before;
        continue;
      }
      // Keep the text before the figure for the unmarked-figure scan.
      rest += std::regex_replace(before, figure_at_end(), "");
      if (words[0] == "goal") {
        if (table_row) problem("a goal marker in a table: tables hold measured figures only");
        continue;
      }
      std::string why;
      std::optional<double> expected;
      try {
        expected = compute(words, *printed, why);
      } catch (const std::exception& e) {  // a malformed number in the marker, say
        why = "marker '" + join(words) + "' cannot be read: " + e.what();
      }
      if (!expected) {
        problem(why);
        continue;
      }
      ++out.figures_checked;
      const double tolerance = 0.5 * std::pow(10.0, -printed->decimals) * (1 + 1e-9) + 1e-12;
      if (std::fabs(*expected - printed->value) > tolerance) {
        std::ostringstream m;
        m.precision(12);
        m << "figure " << printed->value << printed->unit << " (" << join(words)
          << ") does not match the record: it computes to " << *expected;
        problem(m.str());
      }
    }
    rest += line.substr(segment_start);
    // In a table the unit often sits in the header, so a bare decimal in a cell is a figure too.
    if (table_row) {
      static const std::regex bare(R"(^[ *_]*-?\d+\.\d+[ *_]*$)");
      std::istringstream cells(line);
      for (std::string cell; std::getline(cells, cell, '|');) {
        if (cell.find("<!--") == std::string::npos && std::regex_match(cell, bare)) {
          problem("figure '" + cell + "' in a table has no marker naming its record");
        }
      }
    }
    for (const std::string& f : unmarked_figures(rest)) {
      problem("figure '" + f + "' has no marker naming its record");
    }
  }

  static std::string join(const std::vector<std::string>& words) {
    std::string s;
    for (const auto& w : words) s += (s.empty() ? "" : " ") + w;
    return s;
  }

  template <class Problem>
  const RunRecord* record(const std::string& path, Problem&& problem) {
    auto it = records_.find(path);
    if (it == records_.end()) {
      try {
        it = records_
                 .emplace(path, files_.is_bundled(path) ? record_from_json(files_.json(path))
                                                        : load_record(root_of(path)))
                 .first;
      } catch (const std::exception& e) {
        problem("record " + path + " cannot be loaded: " + e.what());
        return nullptr;
      }
    }
    return &it->second;
  }

  // The one case `selector` names in `r`, or null with the reason in `why`.
  static const Case* select(const RunRecord& r, const std::string& selector, std::string& why) {
    std::vector<const Case*> found;
    if (selector.rfind("gate=", 0) == 0) {
      const std::string gate = selector.substr(5);
      for (const Case& c : r.cases) {
        if (c.gate == gate) found.push_back(&c);
      }
    } else {
      // PART/DIRECTION/MEMORY/METHOD/BYTES; the method may itself hold slashes (16MiBx4/8t).
      const auto a = selector.find('/');
      const auto b = a == std::string::npos ? a : selector.find('/', a + 1);
      const auto c3 = b == std::string::npos ? b : selector.find('/', b + 1);
      const auto last = selector.rfind('/');
      if (c3 == std::string::npos || last <= c3) {
        why = "selector '" + selector + "' is neither gate=NAME nor PART/DIR/MEMORY/METHOD/BYTES";
        return nullptr;
      }
      std::uint64_t bytes = 0;
      try {
        bytes = parse_size(selector.substr(last + 1));
      } catch (const std::exception& e) {
        why = "selector '" + selector + "': " + e.what();
        return nullptr;
      }
      for (const Case& c : r.cases) {
        if (c.part == selector.substr(0, a) && c.direction == selector.substr(a + 1, b - a - 1) &&
            c.memory == selector.substr(b + 1, c3 - b - 1) &&
            c.method == selector.substr(c3 + 1, last - c3 - 1) && c.bytes == bytes) {
          found.push_back(&c);
        }
      }
    }
    if (found.size() != 1) {
      why =
          "selector '" + selector + "' matches " + std::to_string(found.size()) + " cases, not one";
      return nullptr;
    }
    return found.front();
  }

  // STAT's value in the unit the figure is printed in, or nullopt with the reason in `why`.
  std::optional<double> compute(const std::vector<std::string>& words, const Printed& printed,
                                std::string& why) {
    const std::string& stat = words[0];
    static const char* const kStats[] = {"ms",           "call_ms",  "gbps",     "ratio",
                                         "call_share",   "race_new", "gates",    "cases",
                                         "gates_passed", "wall",     "trace_ms", "trace_ratio",
                                         "trace_bytes",  "vs_nvbw",  "sys_share"};
    if (std::find(std::begin(kStats), std::end(kStats), stat) == std::end(kStats)) {
      if (stat == "nvbw") return nvbandwidth(words, 1, printed, why);
      static const char* const kBench[] = {"plain",   "accel",     "engine",
                                           "speedup", "of_engine", "loop"};
      if (std::find(std::begin(kBench), std::end(kBench), stat) != std::end(kBench)) {
        return bench(words, printed, why);
      }
      if (stat == "idle_core") {
        if (record_path_.empty() || (!printed.unit.empty() && printed.unit != "%")) {
          why = "'idle_core' needs a record and prints %";
          return std::nullopt;
        }
        const nlohmann::json idle =
            records_.at(record_path_).config.value("idle_engine", nlohmann::json());
        if (!idle.is_object() || idle.value("cpu_wall_s", 0.0) <= 0) {
          why = "the record has no config.idle_engine";
          return std::nullopt;
        }
        return 100.0 * (idle.value("cpu_user_s", 0.0) + idle.value("cpu_sys_s", 0.0)) /
               idle.value("cpu_wall_s", 0.0);
      }
      why = "unknown statistic '" + stat + "'";
      return std::nullopt;
    }
    if (record_path_.empty()) {
      why = "marker '" + stat + "' before any record marker";
      return std::nullopt;
    }
    // Collect the cases the selectors name, and the scale factor.
    const RunRecord* current = &records_.at(record_path_);
    std::vector<const Case*> cases;
    double factor = 1.0;
    for (std::size_t i = 1; i < words.size(); ++i) {
      const std::string& w = words[i];
      if (w[0] == '@') {
        current = record(w.substr(1), [&](const std::string& m) { why = m; });
        if (!current) return std::nullopt;
      } else if (w[0] == '*') {
        factor = std::stod(w.substr(1));
      } else if (stat == "trace_ms" || stat == "trace_bytes" || (stat == "vs_nvbw" && i > 1)) {
        cases.push_back(nullptr);  // a group name, read below
      } else {
        const Case* c = select(*current, w, why);
        if (!c) return std::nullopt;
        cases.push_back(c);
      }
    }
    const RunRecord& r = *current;
    auto need = [&](std::size_t n) {
      if (cases.size() == n) return true;
      why = "'" + stat + "' takes " + std::to_string(n) + " selector(s)";
      return false;
    };
    auto unit_is = [&](std::initializer_list<const char*> units) {
      for (const char* u : units) {
        if (printed.unit == u) return true;
      }
      why = "'" + stat + "' cannot be printed in '" + printed.unit + "'";
      return false;
    };
    auto rate = [&](const Case& c) -> std::optional<double> {
      const CaseFigures f = figures_of(c);
      if (!f.gb_per_s) why = "case " + c.gate + " has no verified rate";
      return f.gb_per_s;
    };
    auto percent_or_times = [&](double v) -> std::optional<double> {
      if (!unit_is({"", "x", "%"})) return std::nullopt;
      return printed.unit == "%" ? 100.0 * v : v;
    };

    if (stat == "ms" || stat == "call_ms") {
      if (!need(1) || !unit_is({"", "ms", "µs"})) return std::nullopt;
      const CaseFigures f = figures_of(*cases[0]);
      const std::optional<double> ms =
          stat == "ms" ? (f.samples ? std::optional<double>(f.samples->median) : std::nullopt)
                       : f.call_median_ms;
      if (!ms) {
        why = "case " + cases[0]->gate + " has no verified " + stat;
        return std::nullopt;
      }
      return printed.unit == "µs" ? *ms * 1000.0 : *ms;
    }
    if (stat == "gbps") {
      if (!need(1) || !unit_is({"", "GB/s"})) return std::nullopt;
      return rate(*cases[0]);
    }
    if (stat == "ratio") {
      if (!need(2)) return std::nullopt;
      const auto a = rate(*cases[0]);
      const auto b = rate(*cases[1]);
      if (!a || !b) return std::nullopt;
      return percent_or_times(factor * *a / *b);
    }
    if (stat == "vs_nvbw") {
      // How far the case's rate lies from nvbandwidth's, in percent: 100 * (ours / theirs - 1).
      if (cases.size() != 3 || !unit_is({"%"})) {
        if (why.empty()) why = "'vs_nvbw' takes a selector, N and TEST";
        return std::nullopt;
      }
      const auto ours = rate(*cases[0]);
      const std::vector<std::string> nv = {"nvbw", words[2], words[3]};
      const auto theirs = nvbandwidth(nv, 0, printed, why);
      if (!ours || !theirs) return std::nullopt;
      return 100.0 * (*ours / *theirs - 1.0);
    }
    if (stat == "call_share") {
      if (!need(1) || !unit_is({"%"})) return std::nullopt;
      const CaseFigures f = figures_of(*cases[0]);
      if (!f.samples || !f.call_median_ms) {
        why = "case " + cases[0]->gate + " has no verified call share";
        return std::nullopt;
      }
      return 100.0 * *f.call_median_ms / f.samples->median;
    }
    if (stat == "sys_share") {
      // Several cases (from several records, with @): their system time over their CPU time,
      // each summed, as the kernel's tick-sampled split is judged over more ticks.
      if (cases.empty()) why = "'sys_share' takes at least one selector";
      if (cases.empty() || !unit_is({"%"})) return std::nullopt;
      double user = 0, sys = 0;
      for (const Case* c : cases) {
        const double u = c->extra.value("cpu_user_s", 0.0), s = c->extra.value("cpu_sys_s", 0.0);
        if (u + s <= 0) {
          why = "case " + c->gate + " has no CPU figures";
          return std::nullopt;
        }
        user += u;
        sys += s;
      }
      return 100.0 * sys / (user + sys);
    }
    if (stat == "race_new") {
      if (!need(1) || !unit_is({"%"})) return std::nullopt;
      double fresh = 0, all = 0;
      for (const auto& t : cases[0]->extra.value("trials", nlohmann::json::array())) {
        fresh += t.value("new_words", 0.0);
        all += t.value("new_words", 0.0) + t.value("old_words", 0.0) + t.value("other_words", 0.0);
      }
      if (all == 0) {
        why = "case " + cases[0]->gate + " has no trials";
        return std::nullopt;
      }
      return 100.0 * fresh / all;
    }
    if (stat == "gates" || stat == "gates_passed" || stat == "cases") {
      if (!need(0) || !unit_is({""})) return std::nullopt;
      if (stat == "cases") return static_cast<double>(r.cases.size());
      double n = 0;
      for (const Gate& g : r.gates) n += (stat == "gates" || g.passed) ? 1 : 0;
      return n;
    }
    if (stat == "wall") {
      if (!need(0) || !unit_is({"s", "ms"})) return std::nullopt;
      return printed.unit == "s" ? r.wall_ms / 1000.0 : r.wall_ms;
    }
    if (stat == "trace_ms" || stat == "trace_ratio" || stat == "trace_bytes") {
      auto group_ms = [&](const std::string& g) -> std::optional<double> {
        const auto& p4 =
            r.trace.is_object() ? r.trace.value("prediction4", nlohmann::json()) : nlohmann::json();
        if (!p4.is_object() || !p4.contains(g)) {
          why = "the record has no trace.prediction4." + g;
          return std::nullopt;
        }
        double ns = 0;
        for (const auto& v : p4[g].value("call_ns", nlohmann::json::array())) ns += v.get<double>();
        return ns / 1e6;
      };
      if (stat == "trace_ratio") {
        if (!need(0) || !unit_is({"", "x"})) return std::nullopt;
        const auto a = group_ms("pageable");
        const auto b = group_ms("pinned");
        if (!a || !b) return std::nullopt;
        return *a / *b;
      }
      if (words.size() != 2) {
        why = "'" + stat + "' takes a group: pageable or pinned";
        return std::nullopt;
      }
      if (stat == "trace_ms") {
        if (!unit_is({"ms"})) return std::nullopt;
        return group_ms(words[1]);
      }
      if (!unit_is({"MiB"}) || !group_ms(words[1])) return std::nullopt;
      return r.trace["prediction4"][words[1]].value("bytes", 0.0) / static_cast<double>(kMiB);
    }
    why = "statistic '" + stat + "' is not handled";
    return std::nullopt;
  }

  // `check_unit`: 1 when the figure printed is nvbandwidth's own rate, 0 when it is derived.
  std::optional<double> nvbandwidth(const std::vector<std::string>& words, int check_unit,
                                    const Printed& printed, std::string& why) {
    if (nvbandwidth_path_.empty()) {
      why = "'nvbw' before any nvbandwidth marker";
      return std::nullopt;
    }
    if (words.size() != 3 || (check_unit && printed.unit != "" && printed.unit != "GB/s")) {
      why = "'nvbw' takes N and TEST and prints GB/s";
      return std::nullopt;
    }
    const int wanted = std::stoi(words[1]);
    std::istringstream in(nvbandwidth_);
    int seen = 0;
    for (std::string l; std::getline(in, l);) {
      const std::vector<std::string> t = split_ws(l);
      if (t.size() == 3 && t[0] == "SUM" && t[1] == words[2] && ++seen == wanted) {
        return std::stod(t[2]);
      }
    }
    why = "nvbandwidth output has no SUM line " + words[1] + " for " + words[2];
    return std::nullopt;
  }

  // A figure of accel's benchmark file (the STATs above), in the unit it is printed in.
  std::optional<double> bench(const std::vector<std::string>& words, const Printed& printed,
                              std::string& why) {
    const std::string& stat = words[0];
    if (bench_path_.empty()) {
      why = "'" + stat + "' before any bench marker";
      return std::nullopt;
    }
    const auto median = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      const std::size_t n = v.size();
      return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    };
    if (stat == "loop") {
      for (const nlohmann::json& row : bench_.at("rows")) {
        const std::string key = words.size() == 2 ? words[1] + "_wall_ms" : "";
        if (!row.contains(key)) continue;
        const double ms = median(row.at(key).get<std::vector<double>>());
        if (printed.unit == "s") return ms / 1000.0;
        if (printed.unit == "ms") return ms;
      }
      why = "'loop' takes plain or accel and prints s or ms";
      return std::nullopt;
    }
    static const std::map<std::string, std::string> kPaths = {{"to_nb", "to(cuda, non_blocking)"},
                                                              {"copy_to_device", "copy_ to device"},
                                                              {"copy_to_host", "copy_ to host"},
                                                              {"cpu", ".cpu()"}};
    if (words.size() != 3 || kPaths.count(words[1]) == 0) {
      why = "'" + stat + "' takes a path (to_nb, copy_to_device, copy_to_host, cpu) and a size";
      return std::nullopt;
    }
    const std::uint64_t bytes = parse_size(words[2]);
    for (const nlohmann::json& row : bench_.at("rows")) {
      if (row.at("path") != kPaths.at(words[1]) || row.at("bytes") != bytes) continue;
      const double plain = median(row.at("plain_gb_per_s").get<std::vector<double>>());
      const double accel = median(row.at("accel_gb_per_s").get<std::vector<double>>());
      // The engine's rate, or -1 where the benchmark did not measure it (below 1 MiB).
      const double engine =
          row.at("engine_gb_per_s").is_number() ? row.at("engine_gb_per_s").get<double>() : -1.0;
      if ((stat == "engine" || stat == "of_engine") && engine <= 0) {
        why = "no engine rate at " + words[2];
        return std::nullopt;
      }
      if (stat == "plain") return plain;
      if (stat == "accel") return accel;
      if (stat == "engine") return engine;
      const double ratio = stat == "speedup" ? accel / plain : accel / engine;
      return printed.unit == "%" ? 100.0 * ratio : ratio;
    }
    why = "no row " + words[1] + " at " + words[2] + " in " + bench_path_;
    return std::nullopt;
  }

  std::string root_of(const std::string& path) const { return (fs::path(root_) / path).string(); }

  std::string root_;
  CitedFiles files_;
  nlohmann::json bench_;
  std::string bench_path_;
  std::map<std::string, RunRecord> records_;
  std::string record_path_;
  std::string nvbandwidth_path_;
  std::string nvbandwidth_;
};

std::string describe(const DocCheck& c, const std::string& page = "docs/results.md") {
  std::string s;
  for (const DocProblem& p : c.problems) {
    s += "  " + page + ":" + std::to_string(p.line) + ": " + p.message + "\n";
  }
  return s;
}

// The pages whose every figure is recomputed, each with the fewest figures it quotes: far fewer
// means the markers stopped parsing.
struct CheckedPage {
  const char* path;
  int min_figures;
};
const CheckedPage kCheckedPages[] = {{"docs/results.md", 250}, {"docs/history/results.md", 1500}};

// Pages under docs/history/ that hold figures from no run record, and why.
const std::map<std::string, std::string> kUncheckedPages = {
    {"docs/history/methodology.md",
     "its figures were read off throwaway probes, traces and text output, not run records"}};

DocCheck check_text(const std::string& markdown) {
  return ResultsChecker(repo_root()).check(markdown);
}

const char* const kLesson = "<!-- record data/runs/lesson-h200-2026-11-30T165138Z.json -->\n";

TEST(ResultsDoc, EveryFigureMatchesItsRecord) {
  for (const CheckedPage& page : kCheckedPages) {
    SCOPED_TRACE(page.path);
    const std::string path = repo_root() + "/" + page.path;
    ASSERT_TRUE(fs::is_regular_file(path)) << path;
    // Each page starts afresh: a record named on one page is not in force on the next.
    const DocCheck c = check_text(read_file(path));
    EXPECT_TRUE(c.problems.empty()) << describe(c, page.path);
    EXPECT_GE(c.figures_checked, page.min_figures);
  }
}

TEST(ResultsDoc, EveryHistoryPageIsCheckedOrSaysWhyNot) {
  const fs::path history = fs::path(repo_root()) / "docs" / "history";
  ASSERT_TRUE(fs::is_directory(history)) << history;
  int pages = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(history)) {
    if (e.path().extension() != ".md") continue;
    ++pages;
    const std::string page = "docs/history/" + e.path().filename().string();
    const bool checked = std::any_of(std::begin(kCheckedPages), std::end(kCheckedPages),
                                     [&](const CheckedPage& p) { return page == p.path; });
    EXPECT_TRUE(checked || kUncheckedPages.count(page) == 1)
        << page << " is neither in kCheckedPages nor in kUncheckedPages";
    if (!checked) {
      // An unchecked page holds no record marker: one would look checked and not be.
      const std::string text = read_file(e.path().string());
      EXPECT_EQ(text.find("<!-- record "), std::string::npos) << page;
    }
  }
  EXPECT_GE(pages, 2);
}

TEST(ResultsDoc, ARightFigurePassesAtItsPrintedPrecision) {
  // copy/h2d/pageable/64MiB: median 8.3367 ms, 8.050 GB/s; pinned/pageable 6.777x.
  const DocCheck c =
      check_text(std::string(kLesson) +
                 "| 64 MiB | 8.337 <!-- ms gate=copy/h2d/pageable/64MiB --> | 8.05 <!-- gbps "
                 "gate=copy/h2d/pageable/64MiB --> | 6.78x <!-- ratio gate=copy/h2d/pinned/64MiB "
                 "gate=copy/h2d/pageable/64MiB --> |\n"
                 "It took 8.3 ms<!-- ms copy/h2d/pageable/cudaMemcpy/64MiB --> and 678%<!-- ratio "
                 "gate=copy/h2d/pinned/64MiB gate=copy/h2d/pageable/64MiB -->.\n");
  EXPECT_TRUE(c.problems.empty()) << describe(c);
  EXPECT_EQ(c.figures_checked, 5);
}

TEST(ResultsDoc, AWrongFigureIsCaught) {
  const DocCheck c = check_text(std::string(kLesson) +
                                "| 64 MiB | 8.338 <!-- ms gate=copy/h2d/pageable/64MiB --> |\n"
                                "Pinned ran at 54.7 GB/s<!-- gbps gate=copy/h2d/pinned/64MiB -->.\n"
                                "A ratio of 6.8x<!-- ratio gate=copy/h2d/pageable/64MiB "
                                "gate=copy/h2d/pinned/64MiB -->.\n");
  ASSERT_EQ(c.problems.size(), 3u) << describe(c);
  EXPECT_EQ(c.problems[0].line, 2);
  EXPECT_NE(c.problems[0].message.find("8.3367"), std::string::npos) << describe(c);
  EXPECT_EQ(c.problems[1].line, 3);
  EXPECT_EQ(c.problems[2].line, 4);  // the ratio upside down: 0.15, not 6.8
}

TEST(ResultsDoc, AFigureWithoutAMarkerIsCaught) {
  const DocCheck c = check_text(std::string(kLesson) +
                                "| 64 MiB | 8.05 GB/s | 1.230 ms | 6.78x | 99.8% |\n"
                                "| 64 MiB | 2 streams | 8.05 | **54.55** |\n"
                                "Pinned ran at 54.55 GB/s, in 1.2 s; 5.6-5.9x, -0.5%.\n"
                                "Sizes (64 MiB), flags (`--time-cap 500` ms is fine in code) and "
                                "PCIe x16 are not figures.\n");
  ASSERT_EQ(c.problems.size(), 10u) << describe(c);
  for (const DocProblem& p : c.problems) {
    EXPECT_NE(p.message.find("has no marker"), std::string::npos) << p.message;
  }
}

TEST(ResultsDoc, BadMarkersAreCaught) {
  const DocCheck c = check_text(
      "Before any record: 8.05 GB/s<!-- gbps gate=copy/h2d/pageable/64MiB -->.\n"
      "<!-- record data/runs/no-such-record.json -->\n"
      "<!-- record data/runs/bandwidthtest-h200-2026-11-30T162936Z.json -->\n"
      "Two cases share this gate: 17.47 GB/s<!-- gbps gate=bandwidthtest/pageable -->.\n"
      "No such case: 1.0 GB/s<!-- gbps gate=bandwidthtest/managed -->.\n"
      "No such statistic: 1.0 GB/s<!-- mean gate=bandwidthtest/pinned -->.\n"
      "Wrong unit: 17.47 ms<!-- gbps bandwidthtest/h2d/pageable/cudaMemcpy/16MiB -->.\n"
      "| goal | 95% <!-- goal --> |\n"
      "A marker with no figure <!-- gbps bandwidthtest/h2d/pageable/cudaMemcpy/16MiB -->.\n"
      "A factor that is no number: 2.0x<!-- ratio *two gate=x gate=y -->.\n"
      "<!-- record data/evidence/engine-h200-2026-12-03-spin.json#no-such-record.json -->\n"
      "<!-- nvbandwidth data/evidence/engine-h200-2026-12-03-spin.json#staged-1.json -->\n");
  ASSERT_EQ(c.problems.size(), 11u) << describe(c);
  EXPECT_NE(c.problems[0].message.find("before any record"), std::string::npos);
  EXPECT_NE(c.problems[1].message.find("cannot be loaded"), std::string::npos);
  EXPECT_NE(c.problems[2].message.find("matches 2 cases"), std::string::npos);
  EXPECT_NE(c.problems[3].message.find("matches 0 cases"), std::string::npos);
  EXPECT_NE(c.problems[4].message.find("unknown statistic"), std::string::npos);
  EXPECT_NE(c.problems[5].message.find("cannot be printed in 'ms'"), std::string::npos);
  EXPECT_NE(c.problems[6].message.find("goal marker in a table"), std::string::npos);
  EXPECT_NE(c.problems[7].message.find("follows no figure"), std::string::npos);
  EXPECT_NE(c.problems[8].message.find("cannot be read"), std::string::npos);
  // A squeezed set of runs that does not hold the file named, and a record where a text belongs.
  EXPECT_NE(c.problems[9].message.find("holds no file no-such-record.json"), std::string::npos);
  EXPECT_NE(c.problems[10].message.find("is not a text"), std::string::npos);
  EXPECT_EQ(c.figures_checked, 0);
}

TEST(ResultsDoc, AnotherRecordCanBeNamedWithinAMarker) {
  // B/A of the 64 MiB pageable host-to-device rate between the two untraced lessons: 1.294.
  const DocCheck c = check_text(
      "<!-- record data/runs/lesson-h200-2026-11-30T155947Z.json -->\n"
      "B/A 1.294<!-- ratio gate=copy/h2d/pageable/64MiB "
      "@data/runs/lesson-h200-2026-11-30T155159Z.json gate=copy/h2d/pageable/64MiB -->\n");
  EXPECT_TRUE(c.problems.empty()) << describe(c);
  EXPECT_EQ(c.figures_checked, 1);
}

TEST(ResultsDoc, ASystemShareCanSumCasesOfSeveralRecords) {
  // To the host at 64 MiB after a pause: 5.2% in run 1, 30.1% in run 2, 17.3% of both runs'
  // CPU time together (the kernel splits user and system time by its ticks, so a short case
  // alone holds few of them).
  const std::string runs = "data/evidence/engine-h200-2026-12-03-spin.json#";
  const DocCheck c = check_text("<!-- record " + runs + "staged-1.json -->\n" +
                                "5.2%<!-- sys_share gate=staged/d2h/staged/64MiB --> and "
                                "17.3%<!-- sys_share gate=staged/d2h/staged/64MiB @" +
                                runs +
                                "staged-2.json gate=staged/d2h/staged/64MiB -->; not "
                                "5.2%<!-- sys_share gate=staged/d2h/staged/64MiB @" +
                                runs + "staged-2.json gate=staged/d2h/staged/64MiB -->\n");
  ASSERT_EQ(c.problems.size(), 1u) << describe(c);
  EXPECT_NE(c.problems[0].message.find("17.25"), std::string::npos) << describe(c);
  EXPECT_EQ(c.figures_checked, 3);
}

}  // namespace
}  // namespace pinbench
