#include "experiments/fleet/print.hpp"

#include <cstdio>

#include "framework/render/html.hpp"
#include "framework/render/text.hpp"
#include "framework/report_model.hpp"
#include "framework/text_file.hpp"

namespace pinbench {

int print_fleet(const RunRecord& fleet, const FleetOutputs& out) {
  const ReportModel model = analyse(fleet);
  std::fputs(render_text(fleet, model).c_str(), stdout);
  if (!out.json.empty()) {
    save_record(fleet, out.json);
    std::printf("Fleet record written to %s.\n", out.json.c_str());
  }
  if (!out.html.empty()) {
    HtmlExtras x;
    x.record_name = out.record_name;
    write_text_file(out.html, render_html(fleet, model, x));
    std::printf("HTML report written to %s.\n", out.html.c_str());
  }
  return model.check_failures.empty() ? 0 : 1;
}

}  // namespace pinbench
