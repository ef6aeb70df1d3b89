// `pinbench fleet RECORD... | DIR`: check records from many hosts as one table and an HTML
// report, with outliers, links below their max, failed checks and duplicates flagged. Pure
// analysis: no GPU is asked for.
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "cli/command_help.hpp"
#include "cli/commands.hpp"
#include "cli/outputs.hpp"
#include "cli/progress.hpp"
#include "cli/replay.hpp"
#include "experiments/check/fleet/analysis.hpp"
#include "experiments/check/fleet/print.hpp"
#include "framework/by_experiment.hpp"
#include "framework/errors.hpp"
#include "framework/host_info.hpp"
#include "framework/printable.hpp"
#include "framework/render/text.hpp"
#include "framework/report_model.hpp"
#include "framework/text_file.hpp"

namespace pinbench::experiments::check {
namespace {

using namespace pinbench::cli;

struct FleetOptions {
  std::vector<std::string> inputs;
  std::string json, html, replay, prometheus;
};

// A folder stands for the .json files in it (not the traces beside records), in name order; an
// entry named *.json that is not a regular file (a FIFO, a link to a device) is skipped and named
// on stderr, never read. A file given twice, or by two paths, is read once.
std::vector<std::string> expand(const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  std::set<std::pair<dev_t, ino_t>> seen;
  const auto add = [&](const std::string& path) {
    struct stat st {};
    // A path that cannot be stat'ed is kept: reading it says why, naming it.
    if (::stat(path.c_str(), &st) != 0 || seen.insert({st.st_dev, st.st_ino}).second) {
      out.push_back(path);
    }
  };
  for (const std::string& in : inputs) {
    std::error_code ec;
    if (!fs::is_directory(in, ec)) {
      add(in);
      continue;
    }
    std::vector<std::string> found;
    std::vector<std::string> skipped;
    for (const fs::directory_entry& e : fs::directory_iterator(in, ec)) {
      const std::string name = e.path().filename().string();
      const bool json = name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0;
      const bool trace = name.find(".trace.json") != std::string::npos;
      if (!json || trace) continue;
      std::error_code kind;
      if (e.is_regular_file(kind)) {
        found.push_back(e.path().string());
      } else {
        skipped.push_back(printable(name));
      }
    }
    if (ec) throw InputError(fmt::format("cannot read the folder '{}': {}", in, ec.message()));
    if (!skipped.empty()) {
      std::sort(skipped.begin(), skipped.end());
      std::fprintf(stderr, "pinbench fleet: skipped in '%s', not regular files: %s\n",
                   printable(in).c_str(), fmt::format("{}", fmt::join(skipped, ", ")).c_str());
    }
    if (found.empty()) throw InputError(fmt::format("the folder '{}' holds no .json record", in));
    std::sort(found.begin(), found.end());
    for (const std::string& f : found) add(f);
  }
  return out;
}

// Every record, read, validated and reduced to what the fleet needs on every core (a fleet of
// 10,000 hosts is gigabytes of JSON), in the order given. The first bad file in that order is the
// one named.
std::vector<FleetMember> load_members(const std::vector<std::string>& paths) {
  std::vector<FleetMember> records(paths.size());
  std::vector<std::exception_ptr> errors(paths.size());
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> done{0};
  std::atomic<bool> failed{false};
  const auto work = [&] {
    for (std::size_t i = next++; i < paths.size() && !failed; i = next++) {
      try {
        // What the fleet needs of each record, kept; the record itself goes at once.
        records[i] = fleet_member(load_record(paths[i]), paths[i]);
      } catch (...) {
        errors[i] = std::current_exception();
        failed = true;
      }
      ++done;
    }
  };
  const std::size_t n = std::min<std::size_t>(paths.size() / 16 + 1,
                                              std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < n; ++t) threads.emplace_back(work);
  // A long read says how far it got, on stderr where a terminal shows it.
  while (paths.size() >= 1000 && done < paths.size() && !failed) {
    terminal_progress(fmt::format("reading check records: {} of {}", done.load(), paths.size()));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  for (std::thread& t : threads) t.join();
  end_progress();
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  return records;
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
  check_outputs(
      inputs,
      {{o.json, "fleet record"}, {o.html, "HTML report"}, {o.prometheus, "Prometheus file"}},
      "the fleet's table");
  if (!o.replay.empty()) {
    fleet = load_record(o.replay);
    if (fleet.experiment != "fleet") {
      throw InputError(fmt::format("'{}' is a record of experiment '{}', not a fleet", o.replay,
                                   fleet.experiment));
    }
  } else {
    std::vector<std::string> sources;
    for (const NamedPath& p : inputs) sources.push_back(p.path);
    // A record that is not a check is refused here, naming its file, before anything is printed.
    fleet = make_fleet_record(load_members(sources), host_name());
  }
  return print_fleet(
      fleet, {o.json, o.html, o.replay.empty() ? "pinbench fleet" : o.replay, o.prometheus});
}

}  // namespace

Command add_fleet(CLI::App& app) {
  auto o = std::make_shared<FleetOptions>();
  CLI::App* sub = add_command(app, "fleet");
  sub->add_option("records", o->inputs, "Check records (pinbench check --json), or folders of them")
      ->type_name("RECORD");
  sub->add_option("--json", o->json, "Write the fleet record (the check records inside it)")
      ->type_name("FILE");
  sub->add_option("--html", o->html, "Write the HTML report")->type_name("FILE");
  sub->add_option(
         "--prometheus", o->prometheus,
         "Write every GPU's figures for node_exporter's textfile collector (docs/fleet.md)")
      ->type_name("FILE");
  sub->add_option("--replay", o->replay, "Print a fleet record (from --json or check --mpi)")
      ->type_name("FILE");
  return {sub, [o] { return run_fleet(*o); }};
}

}  // namespace pinbench::experiments::check
