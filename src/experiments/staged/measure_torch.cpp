// `pinbench staged --torch` (measure_torch.hpp): PyTorch's paths beside the engine.
//
// The measuring is Python's (python/pinbench/torch_paths.py), because it is torch's own calls
// that are measured: x.to("cuda", non_blocking=True) from pageable memory, x.pin_memory().to(),
// a pinned tensor's .to(), .cpu() and copy_() back into pageable and pinned tensors, and the
// engine through the Python package on the same tensors. Each is timed with the host clock from
// the call to completion, like every method of `pinbench staged`, and byte-checked after every
// sample. This file runs the interpreter as a child (its stdout a pipe, its stderr the user's
// terminal, for progress and errors), reads the one JSON object it prints, and turns each case
// into a record case and gate with the one case builder.
#include "experiments/staged/measure_torch.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "framework/case_builder.hpp"
#include "framework/errors.hpp"
#include "framework/input_limits.hpp"
#include "measure/run_record.hpp"
#include "measure/sampler.hpp"

namespace pinbench::experiments::staged {
namespace {

struct ChildResult {
  std::string out;
  int status = 0;     // waitpid's
  std::string error;  // why it could not run at all
};

// Runs argv with stdout captured (at most kMaxRecordBytes) and `env` added to the environment.
ChildResult run_child(const std::vector<std::string>& argv,
                      const std::vector<std::pair<std::string, std::string>>& env) {
  ChildResult r;
  int fds[2];
  if (pipe(fds) != 0) {
    r.error = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    r.error = std::string("fork: ") + std::strerror(errno);
    close(fds[0]);
    close(fds[1]);
    return r;
  }
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    std::fprintf(stderr, "pinbench: cannot run %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  close(fds[1]);
  char buf[1 << 16];
  while (true) {
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (r.out.size() < kMaxRecordBytes) r.out.append(buf, static_cast<std::size_t>(n));
  }
  close(fds[0]);
  while (waitpid(pid, &r.status, 0) < 0 && errno == EINTR) {
  }
  return r;
}

std::string exit_words(int status) {
  if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return fmt::format("was killed by signal {}", WTERMSIG(status));
  return "ended oddly";
}

template <typename T>
T field(const nlohmann::json& j, const char* key, const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end()) throw InputError(fmt::format("torch_paths: '{}.{}' is missing", where, key));
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception&) {
    throw InputError(fmt::format("torch_paths: '{}.{}' has the wrong type", where, key));
  }
}

// The one JSON object torch_paths.py prints, as this file reads it: its cases (each read with
// field() below), whether every tensor was the memory kind it stands for, and where torch ran.
struct TorchOutput {
  const nlohmann::json* cases = nullptr;  // an array
  bool memory_kinds_ok = false;
  nlohmann::json memory_kinds;
  std::string torch_version;
  std::string device;
};

TorchOutput torch_output_from(const nlohmann::json& out) {
  if (!out.is_object() || !out.contains("cases") || !out["cases"].is_array()) {
    throw InputError("torch_paths: the output has no 'cases' array");
  }
  TorchOutput t;
  t.cases = &out["cases"];
  t.memory_kinds_ok = out.value("memory_kinds_ok", false);
  t.memory_kinds = out.value("memory_kinds", nlohmann::json::object());
  t.torch_version = out.value("torch_version", "?");
  t.device = out.value("device", "?");
  return t;
}

}  // namespace

void add_torch_cases(RunRecord& record, const nlohmann::json& out) {
  const TorchOutput torch = torch_output_from(out);
  const bool kinds_ok = torch.memory_kinds_ok;
  record.gates.push_back(
      {"torch/memory-kinds", kinds_ok,
       kinds_ok ? "the pageable tensors are not page-locked and the pinned ones are (is_pinned)"
                : "a tensor was not the memory kind it stands for: " + torch.memory_kinds.dump()});
  std::size_t i = 0;
  for (const nlohmann::json& c : *torch.cases) {
    const std::string where = fmt::format("cases[{}]", i++);
    const auto method = field<std::string>(c, "method", where);
    const auto direction = field<std::string>(c, "direction", where);
    if (direction != "h2d" && direction != "d2h") {
      throw InputError(fmt::format("torch_paths: '{}.direction' is '{}'", where, direction));
    }
    const auto bytes = field<std::uint64_t>(c, "bytes", where);
    Timed t;
    t.samples_ms = field<std::vector<double>>(c, "samples_ms", where);
    t.stop = StopReason::kCount;
    if (field<bool>(c, "failed", where)) {
      t.fail(field<std::string>(c, "detail", where));
      t.stop = StopReason::kGateFailed;
    }
    const CaseSpec spec{"staged",
                        direction,
                        field<std::string>(c, "memory", where),
                        method,
                        "host_clock",
                        bytes,
                        field<int>(c, "warmups", where),
                        gate_name({"staged", direction, method}, bytes)};
    Case k = make_case(spec, t, kinds_ok);
    k.extra = {{"host_offset", 0}, {"device_offset", 0}, {"measured_by", "torch_paths.py"}};
    record.gates.push_back(
        sampled_gate(k.gate, t, every_sample_detail(t.samples_ms.size(), bytes)));
    if (!k.samples_ms.empty()) record.cases.push_back(std::move(k));
  }
}

void add_staged_torch(RunRecord& record, const StagedBenchConfig& config,
                      const StagedTorchConfig& torch, const ProgressFn& progress) {
  const auto start = SteadyClock::now();
  if (record.incomplete) return;  // a signal stopped the C++ methods: nothing more is measured
  std::string sizes;
  for (std::uint64_t s : config.sizes) sizes += (sizes.empty() ? "" : ",") + std::to_string(s);
  std::string directions;
  for (Direction d : config.directions) {
    directions += (directions.empty() ? "" : ",") + std::string(to_string(d));
  }
  record.config["torch"] = {{"interpreter", torch.python}, {"python_dir", torch.python_dir}};
  if (sizes.empty()) return;
  std::vector<std::string> argv = {torch.python,
                                   "-m",
                                   "pinbench.torch_paths",
                                   "--sizes",
                                   sizes,
                                   "--directions",
                                   directions,
                                   "--warmups",
                                   std::to_string(config.warmups),
                                   "--iterations",
                                   std::to_string(config.iterations),
                                   "--engine",
                                   to_json(config.engine).dump()};
  std::vector<std::pair<std::string, std::string>> env;
  if (!torch.python_dir.empty()) {
    const char* old = std::getenv("PYTHONPATH");
    env.emplace_back("PYTHONPATH", torch.python_dir + (old && *old ? std::string(":") + old : ""));
  }
  if (!torch.library.empty()) env.emplace_back("PINBENCH_LIBRARY", torch.library);
  progress(fmt::format("PyTorch's paths: {} -m pinbench.torch_paths", torch.python));
  const ChildResult r = run_child(argv, env);
  record.wall_ms += ms_since(start);
  std::string why;
  if (!r.error.empty()) {
    why = r.error;
  } else if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0) {
    why = fmt::format("{} -m pinbench.torch_paths {} (its error is above)", torch.python,
                      exit_words(r.status));
  }
  nlohmann::json out;
  if (why.empty()) {
    try {
      out = parse_json_text(r.out, "torch_paths output");
      RunRecord scratch;  // so output refused half-way adds nothing
      add_torch_cases(scratch, out);
      for (Gate& g : scratch.gates) record.gates.push_back(std::move(g));
      for (Case& c : scratch.cases) record.cases.push_back(std::move(c));
    } catch (const InputError& e) {
      why = e.what();
    }
  }
  if (!why.empty()) {
    record.gates.push_back({"torch/run", false, why});
    return;
  }
  const TorchOutput printed = torch_output_from(out);
  record.gates.push_back({"torch/run", true,
                          fmt::format("{} cases measured by torch {} on {}", printed.cases->size(),
                                      printed.torch_version, printed.device)});
  for (const char* key : {"torch_version", "torch_cuda", "python", "device", "pinbench_library",
                          "timing", "memory_kinds"}) {
    if (out.contains(key)) record.config["torch"][key] = out[key];
  }
}

}  // namespace pinbench::experiments::staged
