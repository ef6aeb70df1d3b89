// `pinbench compare A.json B.json`: two run records case by case, both rates, B/A, and a flag
// where they differ by more than the threshold. Exits 1 when any case does, so a script can
// gate on it; records from machines of another driver or host CPU may be compared, and the first
// line says so. Two records measured under different conditions (another GPU model, experiment,
// kernel beside the copies, set of methods) are shown side by side and not judged: exit 5.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "cli/command_help.hpp"
#include "cli/commands.hpp"
#include "cli/numbers.hpp"
#include "compare/command.hpp"
#include "compare/compare.hpp"
#include "compare/text.hpp"
#include "framework/by_experiment.hpp"
#include "framework/errors.hpp"
#include "framework/experiment.hpp"
#include "framework/printable.hpp"
#include "framework/record.hpp"
#include "framework/render/text.hpp"

namespace pinbench::compare {
using cli::Command;
namespace {

struct CompareOptions {
  std::string a_path;
  std::string b_path;
  double threshold_percent = 20.0;  // the course page's exercise allows 20%
};

int run(const CompareOptions& o) {
  const RunRecord a = load_record(o.a_path);
  const RunRecord b = load_record(o.b_path);
  const double threshold = o.threshold_percent / 100.0;
  // Measured under different conditions: both shown, neither judged, by no experiment's own
  // comparison either.
  const std::vector<std::string> conditions = condition_differences(a, b);
  if (!conditions.empty()) {
    const std::optional<Comparison> cases = compare_common_cases(a, b, threshold);
    const std::string out = render_records_compared(machine_differences(a.machine, b.machine), a,
                                                    o.a_path, b, o.b_path) +
                            "\n" + render_not_judged(conditions, cases);
    std::fputs(wrap_text(printable_text(out)).c_str(), stdout);
    return static_cast<int>(ExitCode::kNotComparable);
  }
  // Two records of one experiment that compares its own (doctor's findings) say that first, and
  // their cases after it where they share any.
  std::optional<ExperimentComparison> own;
  if (a.experiment == b.experiment) own = experiment_for(a.experiment).compare(a, b);
  if (!own) {
    const Comparison c = compare_records(a, b, threshold);
    std::fputs(wrap_text(printable_text(render_comparison(c, a, o.a_path, b, o.b_path))).c_str(),
               stdout);
    return c.differing() > 0 ? 1 : 0;
  }
  const std::optional<Comparison> cases = compare_common_cases(a, b, threshold);
  std::string out =
      render_records_compared(machine_differences(a.machine, b.machine), a, o.a_path, b, o.b_path) +
      "\n" + own->text;
  if (cases) out += "\n" + render_cases_compared(*cases);
  std::fputs(wrap_text(printable_text(out)).c_str(), stdout);
  return own->differs || (cases && cases->differing() > 0) ? 1 : 0;
}

}  // namespace

Command add_compare(CLI::App& app) {
  auto opts = std::make_shared<CompareOptions>();
  CLI::App* sub = cli::add_command(app, "compare");
  sub->add_option("a", opts->a_path, "The first run record")->required()->type_name("A");
  sub->add_option("b", opts->b_path, "The second run record")->required()->type_name("B");
  cli::real(sub->add_option("--threshold", opts->threshold_percent,
                            "Flag a case when B/A differs from 1 by more than PCT percent"),
            {0.0})
      ->capture_default_str()
      ->type_name("PCT");
  return {sub, [opts] { return run(*opts); }};
}

}  // namespace pinbench::compare
