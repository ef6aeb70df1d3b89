// `pinbench report`: renders any run record, with no GPU, as a self-contained HTML page with
// charts, as markdown to paste into an issue, as CSV with one row per case, or as the text the
// measuring command printed. The HTML page
// also draws a timeline when a trace sits beside the record (RUN.trace.json for RUN.json).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "cli/command_help.hpp"
#include "cli/commands.hpp"
#include "framework/by_experiment.hpp"
#include "framework/errors.hpp"
#include "framework/printable.hpp"
#include "framework/record.hpp"
#include "framework/render/csv.hpp"
#include "framework/render/html.hpp"
#include "framework/render/markdown.hpp"
#include "framework/render/perfetto.hpp"
#include "framework/render/text.hpp"
#include "framework/render/trace_timeline.hpp"
#include "framework/report_model.hpp"
#include "framework/text_file.hpp"
#include "framework/trace_model.hpp"

namespace pinbench::cli {
namespace {

struct ReportOptions {
  std::string record_path;
  std::string html_path;
  std::string markdown_path;
  std::string csv_path;
  std::string text_path;
};

int run(ReportOptions o) {
  if (o.html_path.empty() && o.markdown_path.empty() && o.csv_path.empty() && o.text_path.empty()) {
    o.markdown_path = "-";
  }
  struct Output {
    const std::string& path;
    const char* what;
  };
  const Output outputs[] = {{o.html_path, "HTML"},
                            {o.markdown_path, "Markdown"},
                            {o.csv_path, "CSV"},
                            {o.text_path, "Text"}};
  // Before anything is read: no output may be an input (the record, or the trace the HTML reads
  // beside it), nor two outputs one file.
  std::vector<NamedPath> written;
  bool to_stdout = false;
  for (const Output& out : outputs) {
    if (out.path.empty()) continue;
    to_stdout = to_stdout || out.path == "-";
    written.push_back({out.path, std::string(out.what) + " report"});
  }
  // Standard output is the reports' alone: report prints nothing else when one goes there.
  check_outputs({{o.record_path, "run record"}, {trace_path_for(o.record_path), "trace"}}, written,
                "");

  const RunRecord record = load_record(o.record_path);
  // One analysis, every printer: the formats render the same model.
  const ReportModel model = analyse(record);
  if (!o.html_path.empty()) {
    write_text_file(o.html_path, render_html(record, model, html_extras_for(o.record_path)));
  }
  if (!o.markdown_path.empty()) write_text_file(o.markdown_path, render_markdown(model));
  if (!o.csv_path.empty()) write_text_file(o.csv_path, render_csv(model));
  if (!o.text_path.empty()) write_text_file(o.text_path, render_text(model));
  if (!to_stdout) {
    for (const Output& out : outputs) {
      if (!out.path.empty())
        std::printf("%s report written to %s.\n", out.what, printable(out.path).c_str());
    }
  }
  return 0;
}

}  // namespace

Command add_report(CLI::App& app) {
  auto opts = std::make_shared<ReportOptions>();
  CLI::App* sub = add_command(app, "report");
  sub->add_option("record", opts->record_path, "The run record (JSON)")
      ->required()
      ->type_name("RECORD");
  sub->add_option("--html", opts->html_path,
                  "Write the HTML page here (a timeline is added when RECORD's .trace.json "
                  "sits beside it)")
      ->type_name("FILE");
  sub->add_option("--markdown", opts->markdown_path, "Write the markdown here ('-': stdout)")
      ->type_name("FILE");
  sub->add_option("--csv", opts->csv_path, "Write the CSV here ('-': stdout)")->type_name("FILE");
  sub->add_option("--text", opts->text_path,
                  "Write what the measuring command printed for this record here ('-': stdout)")
      ->type_name("FILE");
  return {sub, [opts] { return run(*opts); }};
}

}  // namespace pinbench::cli
