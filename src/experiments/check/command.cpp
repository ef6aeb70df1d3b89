// `pinbench check`: the health check of this host's GPUs, alone or over MPI ranks.
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "cli/command_help.hpp"
#include "cli/commands.hpp"
#include "cli/defaults.hpp"
#include "cli/numbers.hpp"
#include "cli/outputs.hpp"
#include "cli/progress.hpp"
#include "cli/replay.hpp"
#include "cuda/device.hpp"
#include "experiments/check/analysis.hpp"
#include "experiments/check/fleet/analysis.hpp"
#include "experiments/check/fleet/print.hpp"
#include "experiments/check/floors.hpp"
#include "experiments/check/measure.hpp"
#include "experiments/check/mpi_gather.hpp"
#include "experiments/check/prometheus.hpp"
#include "framework/by_experiment.hpp"
#include "framework/errors.hpp"
#include "framework/host_info.hpp"
#include "framework/input_limits.hpp"
#include "framework/render/text.hpp"
#include "framework/report_model.hpp"
#include "framework/text_file.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::check {
namespace {

using namespace pinbench::cli;

struct FloorFlag {
  const char* flag;
  const char* key;
  const char* help;
  const char* metavar;        // X (a share), GBPS or US
  const char* shown_default;  // "" where the floor comes from the link's rate
  double value = 0.0;
};

struct CheckOptions {
  std::string floors_file;
  std::vector<FloorFlag> floors = {
      {"--pinned-share", "pinned_share", "Pinned floor as a share of the link's rate", "X", "0.75"},
      {"--pageable-share", "pageable_share", "Pageable floor as a share of the link's rate", "X",
       "0.05"},
      {"--min-pinned-h2d", "pinned_h2d_gb_per_s",
       "Pinned host-to-device floor, GB/s (default: the link's rate times --pinned-share)", "GBPS",
       ""},
      {"--min-pinned-d2h", "pinned_d2h_gb_per_s",
       "Pinned device-to-host floor, GB/s (default: the link's rate times --pinned-share)", "GBPS",
       ""},
      {"--min-pageable-h2d", "pageable_h2d_gb_per_s",
       "Pageable host-to-device floor, GB/s (default: the link's rate times --pageable-share)",
       "GBPS", ""},
      {"--min-pageable-d2h", "pageable_d2h_gb_per_s",
       "Pageable device-to-host floor, GB/s (default: the link's rate times --pageable-share)",
       "GBPS", ""},
      {"--max-round-trip-p50", "round_trip_p50_us", "4 KiB round trip p50 ceiling, µs", "US", "50"},
      {"--max-round-trip-p99", "round_trip_p99_us", "4 KiB round trip p99 ceiling, µs", "US",
       "250"},
      {"--peer-margin", "peer_margin", "Each GPU within this share of the host's median", "X",
       "0.10"},
      {"--min-pin", "pin_gb_per_s", "Pin-rate floor, GB/s: one cudaHostAlloc of --pin-bytes",
       "GBPS", "0.5"},
  };
  std::string pin_bytes;
  std::vector<CLI::Option*> floor_options;
  bool no_numa = false;
  bool mpi = false;
  std::string html;
  std::string prometheus;
  OutputPaths outputs;
  ReplayFlags replay;
  bool verdict = false;
};

// The floors file first, then the flags over it; all refused before anything is measured.
CheckConfig check_config(const CheckOptions& o) {
  CheckConfig c;
  if (!o.floors_file.empty()) {
    apply_floors_text(c.floors, read_input_file(o.floors_file, 1 << 20, "floors file"),
                      o.floors_file);
  }
  for (std::size_t i = 0; i < o.floors.size(); ++i) {
    if (o.floor_options[i]->count() > 0) {
      apply_floor(c.floors, o.floors[i].key, o.floors[i].value, o.floors[i].flag);
    }
  }
  if (!o.pin_bytes.empty()) c.pin_bytes = parse_size_or_zero(o.pin_bytes);
  if (o.replay.device) c.devices = {*o.replay.device};
  c.place_on_gpu_node = !o.no_numa;
  return c;
}

// One line per rank, then rank 0 prints and writes the fleet.
int run_check_mpi(const CheckOptions& o) {
  if (!o.replay.replay_path.empty()) throw InputError("--mpi measures: it takes no --replay");
  check_output_paths(o.outputs, kCommandReport);
  check_outputs({},
                {{o.outputs.json, "fleet record"},
                 {o.html, "HTML report"},
                 {o.prometheus, "Prometheus file"}},
                kCommandReport);
  CheckConfig c = check_config(o);
  MpiSession mpi;
  std::string text;
  RunRecord mine;
  const std::string host = host_name();
  const std::string why = cuda::no_device_reason();
  if (!why.empty()) {
    mine = no_gpu_check_record(c, why);
    std::printf("rank %d on %s: no usable GPU (%s)\n", mpi.rank(), host.c_str(), why.c_str());
  } else {
    // The ranks of one host share its GPUs: rank k of n takes every n-th from k.
    if (c.devices.empty()) {
      for (int d = mpi.local_rank(); d < cuda::device_count(); d += mpi.local_size()) {
        c.devices.push_back(d);
      }
    }
    if (c.devices.empty()) {
      mine = no_gpu_check_record(
          c, fmt::format("its host's {} GPU(s) went to lower local ranks", cuda::device_count()));
    } else {
      mine = run_check(c);
    }
    const ReportModel m = analyse(mine);
    std::printf("rank %d on %s: %zu GPU(s) checked, %s\n", mpi.rank(), host.c_str(),
                mine.machine.gpus.size(),
                m.check_failures.empty()
                    ? "all passed"
                    : fmt::format("{} failed", m.check_failures.size()).c_str());
  }
  std::fflush(stdout);
  const std::vector<std::string> texts = mpi.gather(to_json(mine).dump());
  if (mpi.rank() != 0) return 0;
  const RunRecord fleet = fleet_from_rank_texts(texts, host);
  std::printf("\n");
  return print_fleet(
      fleet, {o.outputs.json, o.html, o.outputs.json.empty() ? "check --mpi" : o.outputs.json,
              o.prometheus});
}

// One host's check, measured or replayed, printed whole or as its one-line verdict.
int run_check_here(const CheckOptions& o, const CLI::App& sub) {
  if (!o.html.empty()) throw InputError("--html goes with --mpi (or use pinbench fleet)");
  ReplayFlags flags = o.replay;
  flags.require_gpu = true;
  const CheckConfig c = check_config(o);
  check_outputs({}, {{o.outputs.json, "run record"}, {o.prometheus, "Prometheus file"}},
                o.verdict ? "the verdict" : kCommandReport);
  MeasuringRun run{{"check"}, "", [c] { return run_check(c); }, o.outputs, {}, {}, {}, {}};
  if (!o.prometheus.empty()) {
    run.write_more = [path = o.prometheus, say = !o.verdict](const RunRecord& r) {
      write_text_file(path, check_record_metrics(r));
      if (say) std::printf("Prometheus metrics written to %s.\n", path.c_str());
    };
  }
  if (o.verdict) {
    run.print = [](const RunRecord& r) {
      std::printf("%s\n", check_verdict(analyse_check(r)).c_str());
      return exit_code(analyse(r));  // as the report's
    };
  }
  return measure_or_replay(sub, flags, run);
}

Command add_check(CLI::App& app) {
  auto o = std::make_shared<CheckOptions>();
  CLI::App* sub = add_command(app, "check");
  sub->add_option("--floors", o->floors_file,
                  "A floors file: KEY = VALUE lines (docs/fleet.md); flags override it")
      ->type_name("FILE");
  for (FloorFlag& f : o->floors) {
    o->floor_options.push_back(real(sub->add_option(f.flag, f.value, f.help), floor_range(f.key))
                                   ->type_name(f.metavar)
                                   ->default_str(f.shown_default));
  }
  read_by(sub->add_option("--pin-bytes", o->pin_bytes,
                          "Page-lock this much with one cudaHostAlloc per GPU for the pin rate; "
                          "0 skips it"),
          [](const std::string& v) { parse_size_or_zero(v); })
      ->type_name("SIZE")
      ->default_str(size_default(kCheckPinBytes));
  sub->add_flag("--no-numa", o->no_numa, "Do not place host buffers on each GPU's NUMA node");
  sub->add_flag("--mpi", o->mpi,
                "Under mpirun: every rank checks its host's GPUs, rank 0 writes the fleet record "
                "(--json) and report (--html)");
  sub->add_option("--html", o->html, "With --mpi: the fleet's HTML report")->type_name("FILE");
  sub->add_option("--prometheus", o->prometheus,
                  "Write the results for node_exporter's textfile collector (with --mpi: every "
                  "rank's; docs/fleet.md)")
      ->type_name("FILE");
  CLI::Option* verdict = sub->add_flag(
      "--verdict", o->verdict,
      fmt::format("Print only the verdict, one line of at most {} bytes (a Slurm drain reason, "
                  "node-problem-detector's message; docs/fleet.md), also where the check could "
                  "not run; the exit code and the files written are as without it",
                  kVerdictBytes));
  add_output_flags(sub, o->outputs, false);
  add_replay_flags(sub, o->replay, "check", false);
  o->replay.kept.push_back(verdict);
  return {sub, [o, sub] {
            if (o->mpi) {
              if (o->verdict)
                throw InputError("--verdict is one host's: it does not go with --mpi");
              return run_check_mpi(*o);
            }
            if (!o->verdict) return run_check_here(*o, *sub);
            try {
              return run_check_here(*o, *sub);
            } catch (const std::exception& e) {
              // The line a drain reason or a node condition shows, then the error as always.
              std::printf("%s\n", check_verdict_error(e.what()).c_str());
              std::fflush(stdout);
              throw;
            }
          }};
}

}  // namespace

// `pinbench fleet` (fleet/command.cpp).
Command add_fleet(CLI::App& app);

std::vector<Command> commands(CLI::App& app) {
  return {add_check(app), add_fleet(app)};
}

}  // namespace pinbench::experiments::check
