// The race: overwriting a copy's source while the copy is in flight. Its model section (a table
// of old, new and neither words, and the share of new ones as a chart) and its terminal printer.
#include <fmt/format.h>

#include "experiments/race/analysis.hpp"
#include "framework/experiment.hpp"
#include "framework/render/text.hpp"
#include "framework/render/text_table.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::race {
namespace {

// "overwrite at once" for "cudaMemcpyAsync, overwrite": every condition starts with the same
// call, so the label keeps only what the host did after it.
std::string condition_words(const std::string& method) {
  const std::string call = "cudaMemcpyAsync, ";
  const std::string rest =
      method.compare(0, call.size(), call) == 0 ? method.substr(call.size()) : method;
  if (rest == "overwrite") return "overwrite at once";
  if (rest == "synchronize, overwrite") return "synchronize, then overwrite";
  return rest;
}

void build_race(const RunRecord& r, ReportModel& m) {
  m.section = race_rows(r);
  const auto& rows = section<std::vector<RaceRow>>(m);
  ReportTable t;
  t.id = "race";
  t.title = "Overwriting a copy's source while the copy is in flight";
  t.header = {"source",    "what the host did", "call ms",  "old words",
              "new words", "neither",           "new share"};
  t.numeric = {false, false, true, true, true, true, true};
  ChartSpec chart = make_chart(ChartKind::kShares, "race-new-share",
                               "Share of the copied words that were the host's new bytes");
  chart.axis_title = "share of the words received that were new (%)";
  chart.caption =
      "0% means the copy had taken its bytes before the host overwrote them, as after a "
      "synchronize; anything above 0% means the call returned before the copy read its source, "
      "so the source must not be touched until the stream says so.";
  for (const RaceRow& row : rows) {
    const std::uint64_t all = row.old_words + row.new_words + row.other_words;
    const std::optional<double> share =
        all > 0 ? std::optional<double>(row.new_fraction) : std::nullopt;
    t.rows.push_back({row.memory, row.method, fmt::format("{:.3f}", row.call_ms),
                      std::to_string(row.old_words), std::to_string(row.new_words),
                      std::to_string(row.other_words),
                      figure_cell(share ? *share * 100 : share, "{:.2f}%")});
    chart.bars.push_back(
        {fmt::format("{}: {}", row.memory, condition_words(row.method)), row.memory, share,
         fmt::format("{} of {} words new over {} trials", row.new_words, all, row.trials)});
  }
  if (!rows.empty()) {
    t.notes.push_back(fmt::format(
        "{} per trial, {} trials per row. The host writes new bytes into the source right after "
        "cudaMemcpyAsync returns (or after cudaStreamSynchronize), from the end backwards; the "
        "device's copy is then read back and each 8-byte word counted as old, new or neither.",
        format_size(rows.front().bytes), rows.front().trials));
  }
  m.tables.push_back(std::move(t));
  add_chart(m, std::move(chart));
}

std::string render_race_text(const RunRecord& record, const std::vector<RaceRow>& rows) {
  std::string out = "pinbench race: overwriting a copy's source while the copy is in flight\n\n";
  out += render_machine(record.machine);
  out +=
      "\nThe host writes new bytes into the source right after cudaMemcpyAsync returns (or "
      "after cudaStreamSynchronize), from the end backwards; the device's copy is then read "
      "back and each 8-byte word counted as old, new or neither.\n\n";
  TextTable t(
      {"source", "what the host did", "call ms", "old words", "new words", "neither", "new share"});
  for (const RaceRow& r : rows) {
    t.add_row({r.memory, r.method, fmt::format("{:.3f}", r.call_ms), std::to_string(r.old_words),
               std::to_string(r.new_words), std::to_string(r.other_words),
               fmt::format("{:.2f}%", 100.0 * r.new_fraction)});
  }
  out += t.render();
  if (!rows.empty()) {
    out += fmt::format("  {} per trial, {} trials per row.\n", format_size(rows.front().bytes),
                       rows.front().trials);
  }
  out += render_copy_gate_checks(record);
  return out;
}

ExperimentDescriptor race_descriptor() {
  ExperimentDescriptor d{"race", "pinbench race", "Race", "race"};
  d.config_fields = fields_of<RaceConfig>();
  // A case's extra: the word it overwrote with, how, and each trial's count of words.
  d.extra_fields = {{"word_bytes", FieldKind::kSize},    {"mode", FieldKind::kText},
                    {"trials", FieldKind::kObjects},     {"new_words", FieldKind::kBigCount},
                    {"old_words", FieldKind::kBigCount}, {"other_words", FieldKind::kBigCount}};
  return d;
}

class Race final : public Experiment {
 public:
  Race() : Experiment(race_descriptor()) {}
  void analyse(const RunRecord& record, ReportModel& model) const override {
    build_race(record, model);
  }
  std::string text(const RunRecord& record, const ReportModel& model,
                   const TextOptions&) const override {
    return with_sampling(record, model,
                         render_race_text(record, section<std::vector<RaceRow>>(model)));
  }
};

}  // namespace

std::vector<const Experiment*> kinds() {
  static const Race race;
  return {&race};
}

}  // namespace pinbench::experiments::race
