#include "cli/outputs.hpp"

#include <cstdio>

#include "core/analysis/report_model.hpp"
#include "core/text_file.hpp"
#include "report/csv.hpp"
#include "report/markdown.hpp"

namespace pinbench::cli {

int exit_code(const RunRecord& record) {
  return record.all_gates_passed() ? 0 : 1;
}

void write_outputs(const RunRecord& record, const std::string& json_path,
                   const std::string& csv_path, const std::string& markdown_path) {
  if (!json_path.empty()) {
    save_record(record, json_path);
    std::printf("Run record written to %s.\n", json_path.c_str());
  }
  if (csv_path.empty() && markdown_path.empty()) return;
  // The same analysis as `pinbench report`, so a lesson's --markdown has its predictions.
  const ReportModel model = analyse(record);
  if (!csv_path.empty()) write_text_file(csv_path, render_csv(model));
  if (!markdown_path.empty()) write_text_file(markdown_path, render_markdown(model));
}

}  // namespace pinbench::cli
