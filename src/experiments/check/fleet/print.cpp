#include "experiments/check/fleet/print.hpp"

#include <cstdio>

#include "experiments/check/fleet/analysis.hpp"
#include "experiments/check/prometheus.hpp"
#include "framework/by_experiment.hpp"
#include "framework/experiment.hpp"
#include "framework/printable.hpp"
#include "framework/render/html.hpp"
#include "framework/render/text.hpp"
#include "framework/report_model.hpp"
#include "framework/text_file.hpp"

namespace pinbench::experiments::check {
namespace {

// Every GPU the fleet judged, each with the time its host's check ran and whether it was flagged.
std::string fleet_metrics(const FleetAnalysis& a) {
  std::vector<MetricsGpu> gpus;
  for (const FleetGpu& g : a.gpus) {
    gpus.push_back({g.host, &g.check, rfc3339_seconds(g.created_utc), !g.flags.empty(),
                    g.pin_limits_read ? &g.pin_warnings : nullptr});
  }
  return check_metrics(gpus);
}

}  // namespace

int print_fleet(const RunRecord& fleet, const FleetOutputs& out) {
  const ReportModel model = analyse(fleet);
  std::fputs(render_text(model).c_str(), stdout);
  if (!out.json.empty()) {
    save_record(fleet, out.json);
    std::printf("Fleet record written to %s.\n", printable(out.json).c_str());
  }
  if (!out.html.empty()) {
    HtmlExtras x;
    x.record_name = out.record_name;
    write_text_file(out.html, render_html(fleet, model, x));
    std::printf("HTML report written to %s.\n", printable(out.html).c_str());
  }
  if (!out.prometheus.empty()) {
    write_text_file(out.prometheus, fleet_metrics(section<FleetAnalysis>(model)));
    std::printf("Prometheus metrics written to %s.\n", printable(out.prometheus).c_str());
  }
  return model.check_failures.empty() ? 0 : 1;
}

}  // namespace pinbench::experiments::check
