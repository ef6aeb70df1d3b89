// The staged benchmark and its tuning grid as text (text.hpp). All figures come from
// analysis.hpp, so the text shows exactly what the verdicts were built on.
#include "experiments/staged/text.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "experiments/staged/analysis.hpp"
#include "framework/render/engine_text.hpp"
#include "framework/render/text.hpp"
#include "framework/render/text_table.hpp"
#include "framework/report_model.hpp"
#include "framework/skipped.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::staged {
namespace {

// Short column names for the methods; the legend under each table spells them out.
struct Column {
  const char* method;
  const char* header;
};
constexpr Column kColumns[] = {
    {"staged", "staged"},
    {"staged-back-to-back", "staged b2b"},
    {"staged-fresh", "staged fresh"},
    {"pinned", "pinned"},
    {"pageable-driver", "driver"},
    {"batch-async-stream", "batch:stream"},
    {"batch-async-during-call", "batch:call"},
    {"batch-async-any", "batch:any"},
    {"multithread-driver", "threads"},
    {"register-copy-unregister", "register"},
    {"sm-pageable-kernel", "sm-kernel"},
};

std::string header_for(const std::string& method) {
  for (const Column& c : kColumns) {
    if (method == c.method) return c.header;
  }
  return method;
}

std::string direction_title(const std::string& d) {
  return d == "h2d" ? "Host to device" : d == "d2h" ? "Device to host" : d;
}

}  // namespace

StagedColumns staged_columns(const StagedAnalysis& a, const std::string& direction) {
  StagedColumns c;
  c.methods = a.methods_in(direction);
  c.back_to_back =
      std::find(c.methods.begin(), c.methods.end(), "staged-back-to-back") != c.methods.end();
  const auto it = a.rows.find(direction);
  c.bounded = it != a.rows.end() &&
              std::any_of(it->second.begin(), it->second.end(),
                          [](const StagedRow& r) { return r.host_gb_per_s.has_value(); });
  return c;
}

std::vector<std::string> StagedColumns::rate_cells(const StagedRow& row) const {
  std::vector<std::string> out;
  for (const std::string& m : methods) {
    const auto f = row.gb_per_s.find(m);
    out.push_back(f == row.gb_per_s.end() ? kDash : figure_cell(f->second));
  }
  return out;
}

std::vector<std::string> StagedColumns::ratio_header(const std::string& b2b) const {
  std::vector<std::string> out = {"staged/pinned", "staged/driver"};
  if (back_to_back) out.push_back(b2b + "/pinned");
  if (bounded) {
    out.insert(out.end(), {"host", "host+dma", "bound", "staged/bound"});
    if (back_to_back) out.push_back(b2b + "/bound");
  }
  out.push_back("staged path");
  return out;
}

std::vector<std::string> StagedColumns::ratio_cells(const StagedRow& row) const {
  std::vector<std::string> out = {ratio_cell(row.staged_over_pinned),
                                  ratio_cell(row.staged_over_driver)};
  if (back_to_back) out.push_back(ratio_cell(row.back_to_back_over_pinned));
  if (bounded) {
    out.insert(out.end(), {figure_cell(row.host_gb_per_s), figure_cell(row.host_under_dma_gb_per_s),
                           figure_cell(row.bound_gb_per_s), ratio_cell(row.staged_over_bound)});
    if (back_to_back) out.push_back(ratio_cell(row.back_to_back_over_bound));
  }
  out.push_back(row.staged_path.empty() ? kDash : row.staged_path);
  return out;
}

const char* const kStagedCpuLegend =
    "sys = system time's share of the CPU time (user + system) over the timed samples; ctx/s = "
    "context switches (voluntary and involuntary) a second of those samples; cores = CPU time "
    "over wall time. getrusage of the whole process: the engine's threads, the calling thread "
    "and CUDA's own. Linux splits CPU time into user and system by its scheduler ticks, so a "
    "case that lasts tens of milliseconds gets a coarse share: judge it over several runs.";

std::vector<std::string> StagedCpuColumns::header(const std::string& b2b) const {
  std::vector<std::string> out;
  for (const std::string& m : methods) {
    const std::string name = m == "staged" ? "staged" : b2b;
    out.insert(out.end(), {name + " sys", name + " ctx/s", name + " cores"});
  }
  return out;
}

std::vector<std::string> StagedCpuColumns::cells(const StagedRow& row) const {
  std::vector<std::string> out;
  for (const std::string& m : methods) {
    const auto it = row.cpu.find(m);
    if (it == row.cpu.end()) {
      out.insert(out.end(), {kDash, kDash, kDash});
      continue;
    }
    const EngineCpu& u = it->second;
    const std::optional<double> share = u.sys_share();
    out.push_back(share ? fmt::format("{:.1f}%", 100 * *share) : kDash);
    out.push_back(fmt::format("{:.0f}", u.switches_per_s()));
    out.push_back(fmt::format("{:.2f}", u.cores()));
  }
  return out;
}

StagedCpuColumns staged_cpu_columns(const StagedAnalysis& a, const std::string& direction) {
  StagedCpuColumns c;
  const auto it = a.rows.find(direction);
  if (it == a.rows.end()) return c;
  for (const char* m : {"staged", "staged-back-to-back"}) {
    const bool any = std::any_of(it->second.begin(), it->second.end(),
                                 [&](const StagedRow& r) { return r.cpu.count(m) != 0; });
    if (any) c.methods.push_back(m);
  }
  return c;
}

namespace {

// A row's size and where its ends start: "page", or "+3/+1" bytes past one.
std::vector<std::string> where_cells(const StagedRow& r) {
  return {exact_size(r.bytes), r.host_offset || r.device_offset
                                   ? fmt::format("+{}/+{}", r.host_offset, r.device_offset)
                                   : "page"};
}

// Two tables a direction, each within a terminal's width: the rates of the methods measured this
// way (`columns`), then the ratios the goals judge and the engine's bound; and the engine's CPU
// where the record has it. Every column printed is added to `headers`, for the legend.
std::string direction_text(const StagedAnalysis& a, const std::string& direction,
                           const StagedColumns& columns, const std::vector<StagedRow>& rows,
                           std::vector<std::string>& headers) {
  std::vector<std::string> rate_header = {"size", "at"};
  for (const std::string& m : columns.methods) rate_header.push_back(header_for(m));
  std::vector<std::string> ratio_header = {"size", "at"};
  for (const std::string& h : columns.ratio_header("b2b")) ratio_header.push_back(h);
  headers.insert(headers.end(), rate_header.begin(), rate_header.end());
  headers.insert(headers.end(), ratio_header.begin(), ratio_header.end());
  std::vector<bool> right(ratio_header.size(), true);
  right.front() = false;
  right.back() = false;
  // A row is its size and where its ends start: both lead each part of a table split to fit.
  TextTable rates(rate_header);
  rates.key_columns(2);
  TextTable ratios(ratio_header, right);
  ratios.key_columns(2);
  for (const StagedRow& r : rows) {
    const std::vector<std::string> where = where_cells(r);
    std::vector<std::string> row = where;
    for (std::string& cell : columns.rate_cells(r)) row.push_back(std::move(cell));
    rates.add_row(row);
    row = where;
    for (std::string& cell : columns.ratio_cells(r)) row.push_back(std::move(cell));
    ratios.add_row(row);
  }
  std::string out = fmt::format("\n{} (GB/s)\n{}", direction_title(direction), rates.render());
  out += fmt::format("\n{}: ratios{}\n{}", direction_title(direction),
                     columns.bounded ? ", and the engine's bound (GB/s)" : "", ratios.render());
  const StagedCpuColumns cpu = staged_cpu_columns(a, direction);
  if (!cpu.methods.empty()) {
    std::vector<std::string> header = {"size", "at"};
    for (const std::string& h : cpu.header("b2b")) header.push_back(h);
    TextTable t(header);
    t.key_columns(2);
    for (const StagedRow& r : rows) {
      if (r.cpu.empty()) continue;
      std::vector<std::string> row = where_cells(r);
      for (std::string& cell : cpu.cells(r)) row.push_back(std::move(cell));
      t.add_row(row);
    }
    out += fmt::format("\n{}: the engine's CPU while copying\n{}", direction_title(direction),
                       t.render());
  }
  return out;
}

// The legend, naming only the columns printed (`headers`): a record of three methods is not told
// what seven others mean.
std::string legend_text(const StagedAnalysis& a, const std::vector<std::string>& headers,
                        bool any_bound) {
  const bool any_cpu = a.has_cpu("h2d") || a.has_cpu("d2h");
  const auto shown = [&](const std::string& column) {
    return std::any_of(headers.begin(), headers.end(), [&](const std::string& h) {
      return h == column ||
             (column.back() == '*' && h.rfind(column.substr(0, column.size() - 1), 0) == 0);
    });
  };
  std::vector<std::string> legend = {
      "'at' is where the host and device ends start: 'page' on a page boundary, '+3/+1' that "
      "many bytes past one."};
  const std::vector<std::pair<std::string, std::string>> meanings = {
      {"staged",
       "staged = the engine's synchronous call, each sample after the previous one's byte check "
       "(the engine's threads have gone idle by then);"},
      {"staged b2b",
       "staged b2b = the same call, samples back to back, only the last one checked; every "
       "other method's samples follow a pause, so b2b is compared with pinned only;"},
      {"driver", "driver = cudaMemcpyAsync from pageable memory;"},
      {"batch:*",
       "batch:* = cudaMemcpyBatchAsync with source access order stream, during the call, any;"},
      {"threads", "threads = several threads each copying a slice on its own stream;"},
      {"register", "register = cudaHostRegister, copy, cudaHostUnregister;"},
      {"pinned", "pinned = cudaMemcpyAsync from page-locked memory (the ceiling);"},
      {"staged path",
       "'staged path' says whether the engine staged the copy or passed it straight to the "
       "driver;"}};
  for (const auto& [column, meaning] : meanings) {
    if (shown(column)) legend.push_back(meaning);
  }
  std::string words;
  for (const std::string& w : legend) words += (words.empty() ? "" : " ") + w;
  if (words.back() == ';') words.back() = '.';
  std::string out = "  " + words + "\n";
  if (std::find(a.methods.begin(), a.methods.end(), "staged-fresh") != a.methods.end()) {
    out +=
        "  staged fresh = the engine's call to the host into memory never written before, "
        "mapped anew for each sample (as .cpu() or numpy.empty gives it).\n";
  }
  if (any_bound) {
    out +=
        "  host = the engine's host threads alone, in its shape; host+dma = the same threads while "
        "the copy engine moves other page-locked data the same way; bound = the lesser of "
        "host+dma and pinned (docs/methodology.md, \"The engine's bound\").\n";
  }
  if (any_cpu) out += fmt::format("  {}\n", kStagedCpuLegend);
  return out;
}

}  // namespace

std::string render_staged_text(const RunRecord& record, const StagedAnalysis& a) {
  std::string out = engine_header(
      record,
      "pinbench staged: pageable memory through the staged engine, against every other way");
  const int samples = a.iterations;
  out += fmt::format(
      "Units:   GB/s = 10^9 bytes/s, MiB = 2^20 bytes. Each rate is from the median of {} samples, "
      "each timed with the host clock from the call to the copy's completion, the same for every "
      "method. A dash marks a case whose byte check failed or that was not measured.\n",
      samples);

  bool any_bound = false;
  std::vector<std::string> headers;  // every column printed, for the legend
  for (const char* direction : {"h2d", "d2h"}) {
    const auto it = a.rows.find(direction);
    if (it == a.rows.end()) continue;
    const StagedColumns columns = staged_columns(a, direction);
    any_bound = any_bound || columns.bounded;
    out += direction_text(a, direction, columns, it->second, headers);
  }
  out += legend_text(a, headers, any_bound);
  if (a.idle) out += fmt::format("\nIdle engine: {}.\n", idle_engine_text(a));

  const std::vector<SkippedCase> skipped = skipped_from(record.config);
  if (!skipped.empty()) {
    out += "\nNot measured\n";
    for (const SkippedCase& s : skipped) out += fmt::format("  {}: {}\n", s.method, s.reason);
  }

  if (!a.goals.empty()) {
    out += fmt::format("\n{}\n", kStagedGoalsTitle);
    for (const StagedGoal& g : a.goals) {
      const std::string where = g.direction.empty() ? "" : direction_title(g.direction) + ": ";
      out += fmt::format("  {}{}: {}\n    {}\n", where, g.text,
                         verdict_word(g.verdict, Judged::kGoal), g.evidence);
    }
  }
  out += render_gate_checks(
      record,
      "every checked sample delivered exactly the reference bytes (every sample, but "
      "only the last of staged b2b), and every buffer is the kind it claims.");
  return out;
}

std::string render_staged_tune_text(const RunRecord& record, const TuneAnalysis& tune) {
  std::string out =
      engine_header(record, "pinbench staged --tune: the staged engine over ring shapes");
  out +=
      "Units:   GB/s = 10^9 bytes/s, MiB = 2^20 bytes; median of the samples, host clock from "
      "call to completion, copies back to back. Shape = staging buffer size x buffers, host copy "
      "threads. The destination is cleared before the warm-ups and checked byte for byte after "
      "the last sample.\n";
  const std::vector<TuneRow>& rows = tune.rows;
  const std::vector<TuneChoice>& choices = tune.choices;
  using Shape = std::tuple<std::uint64_t, int, int>;
  for (const char* direction : {"h2d", "d2h"}) {
    // The direction's sizes (ascending), its shapes (in the record's order) and each one's rate
    // at each size (the last row's where a record holds two), so the table costs its cells.
    std::set<std::uint64_t> size_set;
    std::vector<Shape> shapes;
    std::set<Shape> seen;
    std::map<std::pair<Shape, std::uint64_t>, std::optional<double>> rates;
    for (const TuneRow& r : rows) {
      if (r.direction != direction) continue;
      const Shape shape{r.chunk_bytes, r.depth, r.threads};
      size_set.insert(r.bytes);
      if (seen.insert(shape).second) shapes.push_back(shape);
      rates[{shape, r.bytes}] = r.gb_per_s;
    }
    if (size_set.empty()) continue;
    const std::vector<std::uint64_t> sizes(size_set.begin(), size_set.end());
    const TuneChoice* choice = nullptr;
    for (const TuneChoice& c : choices) {
      if (c.direction == direction) choice = &c;
    }
    std::vector<std::string> header = {"shape", "staging"};
    for (std::uint64_t s : sizes) header.push_back(exact_size(s));
    header.push_back("");
    TextTable t(header);
    for (const auto& [chunk, depth, threads] : shapes) {
      std::vector<std::string> row = {
          fmt::format("{} x {}, {} threads", exact_size(chunk), depth, threads),
          exact_size(chunk * static_cast<std::uint64_t>(depth))};
      for (std::uint64_t s : sizes) {
        const auto it = rates.find({Shape{chunk, depth, threads}, s});
        row.push_back(figure_cell(it == rates.end() ? std::optional<double>() : it->second));
      }
      const bool chosen = choice != nullptr && choice->chunk_bytes == chunk &&
                          choice->depth == depth && choice->threads == threads;
      row.push_back(chosen ? "<- best overall" : "");
      t.add_row(row);
    }
    out += fmt::format("\n{} (GB/s)\n{}", direction_title(direction), t.render());
    if (choice != nullptr) {
      const char* flag = std::string(direction) == "h2d" ? "h2d" : "d2h";
      std::string chunk = exact_size(choice->chunk_bytes);
      chunk.erase(std::remove(chunk.begin(), chunk.end(), ' '), chunk.end());
      out += fmt::format(
          "  Best overall: {} x {}, {} threads, never below {:.1f}% of the best shape at any "
          "size. As flags: --{}-chunk {} --{}-depth {} --{}-threads {}\n",
          exact_size(choice->chunk_bytes), choice->depth, choice->threads,
          100 * choice->worst_share, flag, chunk, flag, choice->depth, flag, choice->threads);
    }
  }
  out += render_gate_checks(record,
                            "after the last sample of every shape the destination held exactly the "
                            "reference bytes.");
  return out;
}

}  // namespace pinbench::experiments::staged
