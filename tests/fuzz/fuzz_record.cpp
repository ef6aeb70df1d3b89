// libFuzzer target: any bytes, read as a run record file is read (parse_record_text, then the
// one validation in record_from_json), and every record that passes goes through every printer
// that could be asked for it: markdown, CSV, HTML, the experiment's own text report, the lesson
// analysis and its comparison with a reference, and `compare` against itself. The only
// acceptable failure is InputError (one clear line, exit 2 in the CLI) before any printing
// starts, or from the lesson analysis; anything else (another exception, a crash, a sanitizer
// report) is a bug. Seeded with the committed records (scripts/run-fuzz.sh).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "compare/compare.hpp"
#include "experiments/lesson/analysis.hpp"
#include "framework/errors.hpp"
#include "framework/record.hpp"
#include "compare/text.hpp"
#include "framework/render/csv.hpp"
#include "framework/render/html.hpp"
#include "experiments/lesson/text.hpp"
#include "framework/render/markdown.hpp"
#include "experiments/staged/text.hpp"
#include "experiments/sweep/text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pinbench;
  RunRecord record;
  try {
    record = record_from_json(
        parse_record_text(std::string_view(reinterpret_cast<const char*>(data), size)));
  } catch (const InputError&) {
    return 0;  // refused whole: nothing may be printed from it
  }

  // The lesson analysis may still refuse a valid record that is not a lesson it can read (its
  // own config rules); the CLI then exits 2, having printed nothing.
  std::optional<LessonAnalysis> lesson;
  if (record.experiment == "lesson") {
    try {
      lesson = analyse_lesson(record);
    } catch (const InputError&) {
      return 0;
    }
  }
  const LessonAnalysis* analysis = lesson ? &*lesson : nullptr;

  volatile std::size_t sink = 0;
  sink = sink + render_markdown(record, analysis).size();
  sink = sink + render_csv(record).size();
  HtmlExtras extras;
  extras.record_name = "fuzz.json";
  sink = sink + render_html(record, analysis, extras).size();
  if (lesson) {
    std::optional<ReferenceComparison> reference;
    try {
      reference = compare_with_reference(*lesson, record);
    } catch (const InputError&) {
    }
    sink = sink + render_lesson_text(record, *lesson, reference).size();
  } else if (record.experiment == "sweep") {
    sink = sink + render_sweep_text(record).size();
  } else if (record.experiment == "bandwidthtest") {
    sink = sink + render_bandwidthtest_text(record).size();
  } else if (record.experiment == "race") {
    sink = sink + render_race_text(record).size();
  } else if (record.experiment == "staged") {
    sink = sink + render_staged_text(record).size();
  } else if (record.experiment == "staged-tune") {
    sink = sink + render_staged_tune_text(record).size();
  } else if (record.experiment == "pipeline") {
    sink = sink + render_pipeline_text(record).size();
  }
  try {  // a record with no case (a doctor run of a program that copied nothing) has none to
         // compare
    const Comparison self = compare_records(record, record, 20.0);
    sink = sink + render_comparison(self, record, "a.json", record, "b.json").size();
  } catch (const InputError&) {
  }
  return 0;
}
