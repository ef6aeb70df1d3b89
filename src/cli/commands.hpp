// Each subcommand registers its options on the app and returns the function that runs it.
// Commands throw pinbench's error types; main() maps them to exit codes.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace pinbench::cli {

struct Command {
  CLI::App* app = nullptr;   // the subcommand, to ask whether it was given
  std::function<int()> run;  // returns the exit code
};

Command add_info(CLI::App& app);
Command add_lesson(CLI::App& app);
Command add_sweep(CLI::App& app);
Command add_bandwidthtest(CLI::App& app);
Command add_race(CLI::App& app);
Command add_staged(CLI::App& app);
Command add_pipeline(CLI::App& app);
Command add_report(CLI::App& app);
Command add_compare(CLI::App& app);
Command add_trace_check(CLI::App& app);
Command add_doctor(CLI::App& app);
Command add_check(CLI::App& app);
Command add_host(CLI::App& app);
Command add_fleet(CLI::App& app);

}  // namespace pinbench::cli
