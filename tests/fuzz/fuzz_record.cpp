// libFuzzer target: any bytes, read as a run record file is read (parse_record_text, then the
// one validation in record_from_json), and every record that passes goes through every printer
// that could be asked for it: the record's model (through the registry), markdown, CSV, HTML,
// the experiment's own text report (and, for the lesson, against itself as its reference), and
// `compare` against itself. The only
// acceptable failure is InputError (one clear line, exit 2 in the CLI) before any printing
// starts, or from the lesson analysis; anything else (another exception, a crash, a sanitizer
// report) is a bug. Seeded with the committed records (scripts/build/run-fuzz.sh).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "compare/compare.hpp"
#include "compare/text.hpp"
#include "framework/by_experiment.hpp"
#include "framework/errors.hpp"
#include "framework/experiment.hpp"
#include "framework/record.hpp"
#include "framework/render/csv.hpp"
#include "framework/render/html.hpp"
#include "framework/render/markdown.hpp"
#include "framework/render/text.hpp"
#include "framework/report_model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pinbench;
  using namespace pinbench::compare;
  RunRecord record;
  try {
    record = record_from_json(
        parse_record_text(std::string_view(reinterpret_cast<const char*>(data), size)));
  } catch (const InputError&) {
    return 0;  // refused whole: nothing may be printed from it
  }

  // An experiment's analysis may still refuse a valid record it cannot read (the lesson's own
  // config rules); the CLI then exits 2, having printed nothing.
  ReportModel model;
  try {
    model = analyse(record);
  } catch (const InputError&) {
    return 0;
  }

  volatile std::size_t sink = 0;
  sink = sink + render_markdown(model).size();
  sink = sink + render_csv(model).size();
  HtmlExtras extras;
  extras.record_name = "fuzz.json";
  sink = sink + render_html(record, model, extras).size();
  sink = sink + render_text(model).size();
  try {  // the record as its own reference (the lesson's --reference): refused or printed
    sink = sink + render_text(analyse(record, TextOptions{record})).size();
  } catch (const InputError&) {
  }
  try {  // a record with no case (a doctor run of a program that copied nothing) has none to
         // compare
    const Comparison self = compare_records(record, record, 20.0);
    sink = sink + render_comparison(self, record, "a.json", record, "b.json").size();
  } catch (const InputError&) {
  }
  return 0;
}
