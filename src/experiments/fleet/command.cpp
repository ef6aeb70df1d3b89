// `pinbench fleet RECORD... | DIR`: check records from many hosts as one table and an HTML
// report, with outliers, links below their max, failed checks and duplicates flagged. Pure
// analysis: no GPU is asked for.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/command_help.hpp"
#include "cli/commands.hpp"
#include "cli/outputs.hpp"
#include "cli/replay.hpp"
#include "experiments/fleet/analysis.hpp"
#include "experiments/fleet/print.hpp"
#include "framework/errors.hpp"
#include "framework/host_info.hpp"
#include "framework/render/text.hpp"
#include "framework/report_model.hpp"
#include "framework/text_file.hpp"

namespace pinbench::experiments::fleet {
namespace {

using namespace pinbench::cli;

struct FleetOptions {
  std::vector<std::string> inputs;
  std::string json, html, replay;
};

// A folder stands for the .json files in it (not the traces beside records), in name order.
std::vector<std::string> expand(const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  for (const std::string& in : inputs) {
    std::error_code ec;
    if (!fs::is_directory(in, ec)) {
      out.push_back(in);
      continue;
    }
    std::vector<std::string> found;
    for (const fs::directory_entry& e : fs::directory_iterator(in, ec)) {
      const std::string name = e.path().filename().string();
      const bool json = name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0;
      const bool trace = name.find(".trace.json") != std::string::npos;
      if (e.is_regular_file(ec) && json && !trace) found.push_back(e.path().string());
    }
    if (ec) throw InputError(fmt::format("cannot read the folder '{}': {}", in, ec.message()));
    if (found.empty()) throw InputError(fmt::format("the folder '{}' holds no .json record", in));
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

int run_fleet(const FleetOptions& o) {
  RunRecord fleet;
  std::vector<NamedPath> inputs;
  if (!o.replay.empty()) {
    if (!o.inputs.empty()) throw InputError("--replay prints one fleet record: give no records");
    inputs.push_back({o.replay, "fleet record"});
  } else {
    if (o.inputs.empty()) throw InputError("fleet needs check records or a folder of them");
    for (const std::string& p : expand(o.inputs)) inputs.push_back({p, "check record"});
  }
  check_outputs(inputs, {{o.json, "fleet record"}, {o.html, "HTML report"}});
  if (!o.replay.empty()) {
    fleet = load_record(o.replay);
    if (fleet.experiment != "fleet") {
      throw InputError(fmt::format("'{}' is a record of experiment '{}', not a fleet", o.replay,
                                   fleet.experiment));
    }
  } else {
    std::vector<RunRecord> checks;
    std::vector<std::string> sources;
    for (const NamedPath& p : inputs) {
      checks.push_back(load_record(p.path));
      sources.push_back(p.path);
    }
    // Refused here, naming the file, before anything is printed.
    (void)analyse_fleet(checks, sources);
    fleet = make_fleet_record(std::move(checks), sources, host_name());
  }
  return print_fleet(fleet, {o.json, o.html, o.replay.empty() ? "pinbench fleet" : o.replay});
}

Command add_fleet(CLI::App& app) {
  auto o = std::make_shared<FleetOptions>();
  CLI::App* sub = add_command(app, "fleet");
  sub->add_option("records", o->inputs,
                  "Check records (pinbench check --json), or folders of them");
  sub->add_option("--json", o->json, "Write the fleet record (the check records inside it)");
  sub->add_option("--html", o->html, "Write the HTML report");
  sub->add_option("--replay", o->replay, "Print a fleet record (from --json or check --mpi)");
  return {sub, [o] { return run_fleet(*o); }};
}

}  // namespace

std::vector<Command> commands(CLI::App& app) {
  return {add_fleet(app)};
}

}  // namespace pinbench::experiments::fleet
