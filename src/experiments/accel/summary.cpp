// Reading accel's counter files and the record's accel section (summary.hpp).
#include "experiments/accel/summary.hpp"

#include <dirent.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "framework/errors.hpp"
#include "framework/json_fields.hpp"
#include "framework/text_file.hpp"

namespace pinbench::experiments::accel {
namespace {

using nlohmann::json;

// Each outcome's name and what it means for a person, in counters.hpp's order.
struct OutcomeWords {
  const char* name;
  const char* text;
};
constexpr OutcomeWords kOutcomeWords[kOutcomes] = {
    {"routed", "through the staged engine"},
    {"failed", "through the engine, which met a CUDA error (returned to the program)"},
    {"small", "below the engine's threshold (512 KiB to the device, 256 KiB to the host)"},
    {"page-locked", "host memory already page-locked"},
    {"managed", "managed memory"},
    {"not-host-device", "not between pageable host memory and device memory"},
    {"strided", "a 2D copy with gaps between its rows"},
    {"capturing", "on a stream being captured into a graph"},
    {"pending-error", "an earlier CUDA error was pending"},
    {"other-device", "a default stream of another device than the memory's"},
    {"unknown-memory", "CUDA could not say what the memory is"},
    {"engine-refused", "refused by the engine's checks (the runtime answered)"},
    {"engine-unavailable", "no engine could be made on the device"},
    {"forked-child", "in a forked child, which has no engine of its own"},
    {"other-context", "a driver call in a context other than the device's primary one"}};
constexpr const char* kWayNames[kWays] = {"h2d", "d2h", "other"};

constexpr std::int64_t kMaxCount = std::int64_t{1} << 62;

AccelTally tally_of(const Tally& t) {
  return {t.copies, t.bytes, static_cast<double>(t.host_ns) / 1e6};
}

std::string bounded_text(const char* s, std::size_t size) {
  return std::string(s, strnlen(s, size));
}

json to_json(const AccelTally& t) {
  return json{{"copies", t.copies}, {"bytes", t.bytes}, {"host_ms", t.host_ms}};
}

AccelTally tally_from(const JsonFields& o) {
  AccelTally t;
  t.copies = o.count("copies", kMaxCount);
  t.bytes = o.count("bytes", kMaxCount);
  t.host_ms = o.ms("host_ms");
  return t;
}

}  // namespace

const char* outcome_name(Outcome o) {
  const auto i = static_cast<std::size_t>(o);
  return i < static_cast<std::size_t>(kOutcomes) ? kOutcomeWords[i].name : "unknown";
}

const std::vector<std::string>& outcome_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const OutcomeWords& w : kOutcomeWords) out.push_back(w.name);
    return out;
  }();
  return names;
}

std::string outcome_text(const std::string& name) {
  for (const OutcomeWords& w : kOutcomeWords) {
    if (name == w.name) return w.text;
  }
  return name;
}

AccelProcess read_counters(const ProcessCounters& c) {
  if (std::memcmp(c.magic, kCountersMagic, sizeof c.magic) != 0) {
    throw InputError("not a pinbench accel counter file");
  }
  if (c.version != kCountersVersion || c.size != sizeof(ProcessCounters)) {
    throw InputError(
        fmt::format("accel counters of version {} ({} bytes); this pinbench reads "
                    "version {} ({} bytes)",
                    c.version, c.size, kCountersVersion, sizeof(ProcessCounters)));
  }
  AccelProcess p;
  p.pid = c.pid;
  p.parent_pid = c.parent_pid;
  p.program = bounded_text(c.program, sizeof c.program);
  p.called = (c.reach & kCalledUs) != 0;
  p.shared_runtime = (c.reach & kSharedRuntime) != 0;
  p.driver = (c.reach & kDriver) != 0;
  p.asked_driver = (c.reach & kAskedDriver) != 0;
  p.cupy = (c.reach & kCupy) != 0;
  p.via_runtime = (c.reach & kViaRuntime) != 0;
  p.via_driver = (c.reach & kViaDriver) != 0;
  p.exit_ran = (c.reach & kExitRan) != 0;
  p.chained = (c.reach & kPreloadChained) != 0;
  p.engines = static_cast<int>(c.engines);
  p.staging_bytes = c.staging_bytes;
  p.engine_setup_ms = static_cast<double>(c.engine_setup_ns) / 1e6;
  p.note = bounded_text(c.note, sizeof c.note);
  if (c.end_unix_ns >= c.start_unix_ns && c.end_unix_ns != 0) {
    p.wall_ms = static_cast<double>(c.end_unix_ns - c.start_unix_ns) / 1e6;
  }
  for (int w = 0; w < kWays; ++w) {
    for (int o = 0; o < kOutcomes; ++o) {
      const Tally& t = c.by_outcome[w][o];
      if (t.copies == 0) continue;
      p.outcomes.push_back({kWayNames[w], kOutcomeWords[o].name, tally_of(t)});
    }
  }
  for (int w = 0; w < 2; ++w) {
    for (int b = 0; b < kSizeBuckets; ++b) {
      const Tally& t = c.routed_by_size[w][b];
      if (t.copies == 0) continue;
      p.routed_sizes.push_back({kWayNames[w], std::uint64_t{1} << b, tally_of(t)});
    }
  }
  return p;
}

AccelRun read_counter_folder(const std::string& dir) {
  AccelRun run;
  std::unique_ptr<DIR, int (*)(DIR*)> d(opendir(dir.c_str()), closedir);
  if (!d) throw InputError(fmt::format("cannot read accel's counter folder '{}'", dir));
  std::vector<std::string> names;
  while (const dirent* e = readdir(d.get())) {
    const std::string name = e->d_name;
    const std::string suffix = ".counters";
    if (name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      names.push_back(name);
    }
  }
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    try {
      const std::string bytes =
          read_input_file(dir + "/" + name, sizeof(ProcessCounters), "accel counter file");
      if (bytes.size() != sizeof(ProcessCounters)) throw InputError("short");
      ProcessCounters c;
      std::memcpy(&c, bytes.data(), sizeof c);
      run.processes.push_back(read_counters(c));
    } catch (const InputError&) {
      ++run.unreadable;
    }
  }
  std::stable_sort(run.processes.begin(), run.processes.end(),
                   [](const AccelProcess& a, const AccelProcess& b) { return a.pid < b.pid; });
  return run;
}

bool out_of_reach(const AccelProcess& p) {
  return p.driver && !p.called;
}

CudaSeen cuda_seen(const AccelRun& run, std::size_t index) {
  const AccelProcess& p = run.processes[index];
  if (p.called) return CudaSeen::kReached;
  if (out_of_reach(p)) return CudaSeen::kOutOfReach;
  if (!run.driver.recorded()) return CudaSeen::kUnseen;  // asked_driver not known
  // Where no driver could be loaded, one that asked never had it, however it ended.
  if (p.asked_driver) {
    return p.exit_ran || run.driver.missing() ? CudaSeen::kAsked : CudaSeen::kUnseen;
  }
  const bool replaced = index + 1 < run.processes.size() && run.processes[index + 1].pid == p.pid;
  return p.exit_ran || replaced ? CudaSeen::kNone : CudaSeen::kUnseen;
}

AccelTally total(const AccelRun& run, const std::string& direction, const std::string& outcome) {
  AccelTally t;
  for (const AccelProcess& p : run.processes) {
    for (const AccelOutcome& o : p.outcomes) {
      if ((!direction.empty() && o.direction != direction) ||
          (!outcome.empty() && o.outcome != outcome)) {
        continue;
      }
      t.copies += o.tally.copies;
      t.bytes += o.tally.bytes;
      t.host_ms += o.tally.host_ms;
    }
  }
  return t;
}

json to_json(const AccelRun& run) {
  json processes = json::array();
  for (const AccelProcess& p : run.processes) {
    json outcomes = json::array(), sizes = json::array();
    for (const AccelOutcome& o : p.outcomes) {
      json j = to_json(o.tally);
      j["direction"] = o.direction;
      j["outcome"] = o.outcome;
      outcomes.push_back(j);
    }
    for (const AccelSize& s : p.routed_sizes) {
      json j = to_json(s.tally);
      j["direction"] = s.direction;
      j["from_bytes"] = s.from_bytes;
      sizes.push_back(j);
    }
    processes.push_back({{"pid", p.pid},
                         {"parent_pid", p.parent_pid},
                         {"program", p.program},
                         {"called", p.called},
                         {"shared_runtime", p.shared_runtime},
                         {"driver", p.driver},
                         {"asked_driver", p.asked_driver},
                         {"cupy", p.cupy},
                         {"via_runtime", p.via_runtime},
                         {"via_driver", p.via_driver},
                         {"exit_ran", p.exit_ran},
                         {"chained", p.chained},
                         {"engines", p.engines},
                         {"staging_bytes", p.staging_bytes},
                         {"engine_setup_ms", p.engine_setup_ms},
                         {"note", p.note},
                         {"wall_ms", p.wall_ms},
                         {"outcomes", outcomes},
                         {"routed_sizes", sizes}});
  }
  json out{{"unreadable", run.unreadable}, {"processes", processes}};
  put_program_run(out, run);
  if (run.driver.recorded()) {
    json sight = json::object();
    put_driver(sight, run.driver);
    out["sight"] = std::move(sight);
  }
  return out;
}

AccelRun accel_run_from_json(const json& j) {
  const JsonFields o(j, "accel");
  AccelRun run;
  read_program_run(o, run);
  run.unreadable = static_cast<int>(o.count_or("unreadable", 0, INT_MAX));
  if (o.has("sight")) {
    run.driver = driver_from(JsonFields(o.at("sight"), "accel.sight"));
    if (!run.driver.recorded()) refuse_field("accel.sight.driver", "is missing");
  }
  const json& processes = o.array("processes");
  for (std::size_t i = 0; i < processes.size(); ++i) {
    const JsonFields q(processes[i], fmt::format("accel.processes[{}]", i));
    AccelProcess p;
    p.pid = q.pid("pid");
    p.parent_pid = q.pid_or("parent_pid", 0);
    p.program = q.text_or("program", "");
    p.called = q.flag_or("called", false);
    p.shared_runtime = q.flag_or("shared_runtime", false);
    p.driver = q.flag_or("driver", false);
    p.asked_driver = q.flag_or("asked_driver", false);
    p.cupy = q.flag_or("cupy", false);
    p.via_runtime = q.flag_or("via_runtime", p.called);
    p.via_driver = q.flag_or("via_driver", false);
    p.exit_ran = q.flag_or("exit_ran", false);
    p.chained = q.flag_or("chained", false);
    p.engines = static_cast<int>(q.count_or("engines", 0, 1 << 16));
    p.staging_bytes = q.bytes_or("staging_bytes", 0);
    p.engine_setup_ms = q.ms_or("engine_setup_ms", 0);
    p.note = q.text_or("note", "");
    p.wall_ms = q.ms_or("wall_ms", 0);
    const json& outcomes = q.array("outcomes");
    for (std::size_t n = 0; n < outcomes.size(); ++n) {
      const JsonFields r(outcomes[n], fmt::format("{}.outcomes[{}]", q.path(), n));
      AccelOutcome a;
      a.direction = r.one_of("direction", {"h2d", "d2h", "other"});
      a.outcome = r.one_of_list("outcome", outcome_names());
      a.tally = tally_from(r);
      p.outcomes.push_back(a);
    }
    const json& sizes = q.array("routed_sizes");
    for (std::size_t n = 0; n < sizes.size(); ++n) {
      const JsonFields r(sizes[n], fmt::format("{}.routed_sizes[{}]", q.path(), n));
      AccelSize s;
      s.direction = r.one_of("direction", {"h2d", "d2h"});
      s.from_bytes = r.count("from_bytes", 1, kMaxCount);
      if ((s.from_bytes & (s.from_bytes - 1)) != 0) {
        refuse_field(r.field("from_bytes"), fmt::format("is {}, not a power of 2", s.from_bytes));
      }
      s.tally = tally_from(r);
      p.routed_sizes.push_back(s);
    }
    run.processes.push_back(std::move(p));
  }
  return run;
}

}  // namespace pinbench::experiments::accel
