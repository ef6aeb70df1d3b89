#include "cli/outputs.hpp"

#include <cstdio>

#include "framework/by_experiment.hpp"
#include "framework/printable.hpp"
#include "framework/render/csv.hpp"
#include "framework/render/markdown.hpp"
#include "framework/report_model.hpp"
#include "framework/text_file.hpp"

namespace pinbench::cli {

void add_output_flags(CLI::App* sub, OutputPaths& paths, bool tables) {
  sub->add_option("--json", paths.json, "Write the run record here")->type_name("FILE");
  if (!tables) return;
  sub->add_option("--csv", paths.csv, "Write one row per case here")->type_name("FILE");
  sub->add_option("--markdown", paths.markdown, "Write the tables as markdown here")
      ->type_name("FILE");
}

void check_output_paths(const OutputPaths& paths, const std::string& stdout_taken_by,
                        const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& more) {
  std::vector<NamedPath> outputs = {{paths.json, "run record"},
                                    {paths.csv, "CSV report"},
                                    {paths.markdown, "Markdown report"},
                                    {paths.trace, "trace"}};
  outputs.insert(outputs.end(), more.begin(), more.end());
  check_outputs(inputs, outputs, stdout_taken_by);
}

void write_outputs(const RunRecord& record, const OutputPaths& paths, bool say) {
  if (!paths.json.empty()) {
    save_record(record, paths.json);
    if (say) std::printf("Run record written to %s.\n", printable(paths.json).c_str());
  }
  if (paths.csv.empty() && paths.markdown.empty()) return;
  // The same analysis as `pinbench report`, so a lesson's --markdown has its predictions.
  const ReportModel model = analyse(record);
  if (!paths.csv.empty()) write_text_file(paths.csv, render_csv(model));
  if (!paths.markdown.empty()) write_text_file(paths.markdown, render_markdown(model));
}

}  // namespace pinbench::cli
