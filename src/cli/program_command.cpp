// The options and replay rules of the commands that run a user's program (program_command.hpp).
#include "cli/program_command.hpp"

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

#include "cli/program.hpp"
#include "framework/errors.hpp"
#include "framework/printable.hpp"

namespace pinbench::cli {

void add_program_options(CLI::App* sub, ProgramFlags& flags, const std::string& experiment) {
  sub->add_option("--json", flags.json,
                  fmt::format("Write the run record (experiment {}) to FILE", experiment));
  sub->add_option("--replay", flags.replay,
                  fmt::format("Print a recorded {} run instead of running one", experiment));
  sub->add_option("--wait-descendants", flags.wait_s,
                  fmt::format("After the program exits, wait up to SECONDS for the processes it "
                              "started that still run (default {:g}; 0: do not wait); those "
                              "still running then are named in the report",
                              kDescendantWaitS))
      ->type_name("SECONDS")
      ->check(CLI::Range(0.0, 86400.0));
  // Everything from the program's name on is the program's: `accel ./train --json x` passes
  // --json to ./train, as `accel -- ./train --json x` does. An option pinbench does not know,
  // before the program, is a mistake of the command line, not a program named "--jsn".
  sub->prefix_command();
  sub->callback([sub, &flags] {
    flags.program = sub->remaining();
    if (!flags.program.empty() && flags.program.front().size() > 1 &&
        flags.program.front()[0] == '-') {
      throw CLI::ExtrasError(sub->get_name(), {flags.program.front()});
    }
  });
}

RunRecord load_program_replay(const CLI::App& sub, const ProgramFlags& flags,
                              const std::string& experiment, const std::vector<std::string>& keep) {
  if (!flags.program.empty()) throw InputError("--replay takes no program");
  for (const CLI::Option* o : sub.get_options()) {
    const std::string name = o->get_name();
    const bool kept = std::find(keep.begin(), keep.end(), name) != keep.end();
    if (o->count() > 0 && !kept && name != "--replay" && name != "--help" && name != "program") {
      throw InputError(fmt::format("--replay excludes {}: a replay prints a recorded run", name));
    }
  }
  RunRecord record = load_record(flags.replay);
  if (record.experiment != experiment) {
    throw InputError(fmt::format("run record '{}' is of experiment '{}', not '{}'", flags.replay,
                                 record.experiment, experiment));
  }
  std::printf("Replaying %s: %s, recorded %s.\n\n", printable(flags.replay).c_str(),
              printable(record.machine.device_name).c_str(), printable(record.created_utc).c_str());
  return record;
}

}  // namespace pinbench::cli
