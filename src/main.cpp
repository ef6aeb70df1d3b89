// pinbench's entry point: parse the command line, run one subcommand, and turn every failure
// into one line on stderr and a documented exit code (see README.md, "Exit codes").
#include <algorithm>
#include <cstdio>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/help_format.hpp"
#include "cli/numbers.hpp"
#include "cli/paths.hpp"
#include "cli/program_command.hpp"
#include "cli/signals.hpp"
#include "compare/command.hpp"
#include "framework/errors.hpp"
#include "framework/printable.hpp"
#include "framework/text_file.hpp"
#include "version.hpp"

#define PINBENCH_EXPERIMENT(NAME)                              \
  namespace pinbench::experiments::NAME {                      \
  std::vector<pinbench::cli::Command> commands(CLI::App& app); \
  }
#include "experiments/registry.def"
#undef PINBENCH_EXPERIMENT

namespace {

int fail(pinbench::ExitCode code, const std::string& what) {
  // A message may quote an argument or a record's words: no control character reaches stderr.
  std::fprintf(stderr, "pinbench: error: %s\n", pinbench::printable(what).c_str());
  return static_cast<int>(code);
}

// --help and --version: CLI11's text, written as every output is, so a full disk or a closed
// descriptor is exit 2 with its reason, and a closed pipe ends quietly.
int print_help(CLI::App& app, const CLI::Error& e) {
  std::ostringstream out;
  std::ostringstream err;
  const int code = app.exit(e, out, err);
  try {
    if (pinbench::write_stdout(out.str()) == pinbench::StdoutWrite::kClosed) return 0;
  } catch (const std::exception& failure) {
    return fail(pinbench::ExitCode::kBadInput, failure.what());
  }
  std::fputs(err.str().c_str(), stderr);
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  using pinbench::ExitCode;
  pinbench::install_stdout_writer();
  // Before anything is written, --help included: SIGPIPE ignored (a closed pipe is EPIPE on the
  // write, which ends quietly), SIGINT and SIGTERM handled (cli/signals.hpp).
  pinbench::cli::install_signal_handlers();
  CLI::App app{
      "pinbench: measures, explains and speeds up copies between host memory and a GPU.\n"
      "GB/s means 10^9 bytes per second; MiB means 2^20 bytes. Every subcommand that measures "
      "prints a recorded run with --replay FILE, and without a usable GPU replays the newest "
      "recorded run of its experiment, naming the options it ignored (--require-gpu: exit 3 "
      "instead)."};
  app.name("pinbench");
  // One help voice for every subcommand (cli/help_format.hpp); subcommands take it when made.
  app.formatter(pinbench::cli::help_formatter());
  app.set_version_flag("--version", pinbench::kVersion, "Print pinbench's version");
  app.set_help_flag("-h,--help", "Print this help");
  app.require_subcommand(1, 1);

  // The tools over the machine and records, and every experiment's commands, in the registry's
  // order (src/experiments/registry.def).
  std::vector<pinbench::cli::Command> commands = {pinbench::cli::add_info(app)};
  for (auto& experiment_commands : {
#define PINBENCH_EXPERIMENT(NAME) pinbench::experiments::NAME::commands(app),
#include "experiments/registry.def"
#undef PINBENCH_EXPERIMENT
       }) {
    commands.insert(commands.end(), experiment_commands.begin(), experiment_commands.end());
  }
  commands.push_back(pinbench::cli::add_report(app));
  commands.push_back(pinbench::compare::add_compare(app));
  commands.push_back(pinbench::cli::add_help(app));
  for (const pinbench::cli::Command& c : commands)
    c.app->set_help_flag("-h,--help", "Print this help");
  // Every numeric option of every subcommand reads its value with the one number reader
  // (cli/numbers.hpp); one that would not is a bug, and pinbench does not start with it.
  try {
    pinbench::cli::hold_numbers(app);
  } catch (...) {
    const pinbench::cli::Failure f = pinbench::cli::failure_of(std::current_exception());
    return fail(f.code, f.message);
  }

  // CLI11 reports a mistyped subcommand as a missing one; name it, and the nearest known one.
  if (argc > 1 && argv[1][0] != '-') {
    const std::string name = argv[1];
    std::vector<std::string> names;
    for (const pinbench::cli::Command& c : commands) names.push_back(c.app->get_name());
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      return fail(ExitCode::kBadInput, pinbench::cli::unknown_subcommand_message(name, names));
    }
  }

  // accel and doctor: the words from the program's name on are the program's (a `--` before it
  // is put in where it was left out), so pinbench takes none of the program's options.
  std::vector<std::string> args(argv, argv + argc);
  if (argc > 2) {
    for (const pinbench::cli::Command& c : commands) {
      if (c.app->get_name() != args[1] || c.app->get_option_no_throw("program") == nullptr)
        continue;
      const std::vector<std::string> rest = pinbench::cli::program_after_marker(
          *c.app, std::vector<std::string>(args.begin() + 2, args.end()));
      args.resize(2);
      args.insert(args.end(), rest.begin(), rest.end());
    }
  }
  std::vector<char*> words;
  for (std::string& a : args) words.push_back(a.data());

  try {
    app.parse(static_cast<int>(words.size()), words.data());
    // The one output policy (framework/text_file.hpp) never lets an output replace these.
    pinbench::protect_from_outputs(pinbench::cli::own_files());
  } catch (const CLI::CallForHelp& e) {
    return print_help(app, e);
  } catch (const CLI::CallForAllHelp& e) {
    return print_help(app, e);
  } catch (const CLI::CallForVersion& e) {
    return print_help(app, e);
  } catch (const CLI::ParseError& e) {
    return fail(ExitCode::kBadInput, pinbench::cli::parse_error_line(app, e));
  }

  try {
    const pinbench::cli::Command* given = nullptr;
    for (const pinbench::cli::Command& c : commands) {
      if (c.app->parsed()) given = &c;
    }
    if (given == nullptr)
      return fail(ExitCode::kBadInput, "no subcommand given (see pinbench --help)");
    // An empty value is no value: `--json ''` would write nothing and `--fail-on ''` turn the
    // gate off, silently. Leaving the option out is how to not give it.
    for (const CLI::Option* o : given->app->get_options()) {
      if (!o->nonpositional() || o->get_items_expected_min() == 0 || o->count() == 0) continue;
      for (const std::string& value : o->results()) {
        if (value.empty()) {
          return fail(ExitCode::kBadInput,
                      pinbench::cli::empty_value_line(o->get_name(), given->app->get_name()));
        }
      }
    }
    const int code = given->run();
    // What printf left in stdio's buffer goes out now: a full disk is an error, not exit 0.
    if (pinbench::flush_stdout() == pinbench::StdoutWrite::kClosed) return 0;
    return code;
  } catch (const pinbench::StdoutClosed&) {
    return 0;  // the reader stopped reading (`| head`): end quietly, like other tools
  } catch (...) {
    const pinbench::cli::Failure f = pinbench::cli::failure_of(std::current_exception());
    return fail(f.code, f.message);
  }
}
