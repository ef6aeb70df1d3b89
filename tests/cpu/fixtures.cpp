#include "fixtures.hpp"
#include "golden_normalise.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "experiments/lesson/analysis.hpp"
#include "framework/units.hpp"

namespace pinbench::test {
using namespace experiments::lesson;

std::string h200_lesson_path() {
  return std::string(PINBENCH_DATA_DIR) + "/runs/lesson-h200-2026-11-30T155947Z.json";
}

std::string h200_traced_lesson_path() {
  return std::string(PINBENCH_DATA_DIR) + "/runs/lesson-h200-2026-11-30T165138Z.json";
}

std::string h200_newest_lesson_path() {
  return std::string(PINBENCH_DATA_DIR) + "/runs/lesson-h200-2026-12-01T073311Z.json";
}

std::string h200_earlier_lesson_path() {
  return std::string(PINBENCH_DATA_DIR) + "/runs/lesson-h200-2026-11-30T155159Z.json";
}

std::string t4_reference_path() {
  return std::string(PINBENCH_DATA_DIR) + "/reference/day53-tesla-t4.json";
}

namespace {

Case make_case(const std::string& part, const std::string& direction, const std::string& memory,
               std::uint64_t bytes, double ms) {
  Case c;
  c.part = part;
  c.direction = direction;
  c.memory = memory;
  c.method = part == "async" ? "cudaMemcpyAsync" : part == "kernel" ? "scale_copy" : "cudaMemcpy";
  c.timing = part == "async" ? "host_clock" : "cuda_events";
  c.bytes = bytes;
  c.warmups = 3;
  c.samples_ms = {ms};
  c.gate = part + "/" + direction + "/" + memory;
  c.verified = true;
  return c;
}

}  // namespace

RunRecord make_lesson_record(const LessonFigures& f) {
  RunRecord r;
  r.experiment = "lesson";
  r.pinbench_version = "test";
  r.created_utc = "2026-01-01T00:00:00Z";
  r.machine.device_name = "Hand-made GPU";
  r.machine.cc_major = 9;
  r.config = to_json(LessonConfig::defaults());
  const std::vector<std::uint64_t> sizes = LessonConfig::defaults().sizes;
  struct Sweep {
    const char* direction;
    const char* memory;
    const std::vector<double>& ms;
  };
  for (const Sweep& s :
       {Sweep{"h2d", "pageable", f.h2d_pageable_ms}, Sweep{"h2d", "pinned", f.h2d_pinned_ms},
        Sweep{"d2h", "pageable", f.d2h_pageable_ms}, Sweep{"d2h", "pinned", f.d2h_pinned_ms}}) {
    for (std::size_t i = 0; i < s.ms.size() && i < sizes.size(); ++i) {
      r.cases.push_back(make_case("copy", s.direction, s.memory, sizes[i], s.ms[i]));
    }
  }
  Case pageable = make_case("async", "h2d", "pageable", 64 * kMiB, f.async_pageable_completion_ms);
  pageable.call_ms = {f.async_pageable_call_ms};
  Case pinned = make_case("async", "h2d", "pinned", 64 * kMiB, f.async_pinned_completion_ms);
  pinned.call_ms = {f.async_pinned_call_ms};
  r.cases.push_back(pageable);
  r.cases.push_back(pinned);
  r.cases.push_back(make_case("kernel", "d2d", "device", 64 * kMiB, f.resident_ms));
  r.cases.push_back(make_case("kernel", "h2d", "mapped", 64 * kMiB, f.mapped_ms));
  r.cases.push_back(make_case("device_copy", "d2d", "device", 64 * kMiB, f.device_copy_ms));
  for (const Case& c : r.cases) r.gates.push_back({c.gate, true, "hand-made"});
  r.wall_ms = 1000.0;
  return r;
}

RunRecord make_sweep_record() {
  RunRecord r;
  r.experiment = "sweep";
  r.pinbench_version = "test";
  r.created_utc = "2026-12-01T10:00:00Z";
  r.note = "Hand-made <sweep> & \"quotes\", for tests | with a pipe";
  r.machine.device_name = "Hand-made GPU";
  r.machine.cc_major = 9;
  r.machine.sm_count = 132;
  r.machine.copy_engines = 3;
  r.machine.driver_release = "580.1.2";
  r.machine.driver_version = 13000;
  r.machine.runtime_version = 13000;
  r.machine.host_cpu = "Hand-made CPU";
  r.machine.host_logical_cpus = 16;
  r.machine.pcie = {5, 5, 16, 16, "32.0 GT/s PCIe", "32.0 GT/s PCIe"};
  struct Kind {
    const char* memory;
    double h2d_gb_per_s, d2h_gb_per_s;
  };
  const Kind kinds[] = {{"pageable", 7.0, 14.0},
                        {"pinned", 55.0, 55.0},
                        {"registered", 54.0, 54.0},
                        {"write-combined", 55.0, 2.5}};
  for (const char* method : {"ce", "sm"}) {
    // The copy engine starts slower and runs faster; SM copies the reverse.
    const double latency_ms = method == std::string("ce") ? 0.010 : 0.006;
    const double scale = method == std::string("ce") ? 1.0 : 0.9;
    for (const char* direction : {"h2d", "d2h"}) {
      for (const Kind& k : kinds) {
        const double peak =
            scale * (direction == std::string("h2d") ? k.h2d_gb_per_s : k.d2h_gb_per_s);
        for (std::uint64_t bytes = 4 * kKiB; bytes <= kGiB; bytes *= 4) {
          Case c;
          c.part = "sweep";
          c.direction = direction;
          c.memory = k.memory;
          c.method = method;
          c.timing = "cuda_events";
          c.bytes = bytes;
          c.warmups = 2;
          const double ms = latency_ms + static_cast<double>(bytes) / (peak * 1e6);
          c.samples_ms = {ms * 1.02, ms, ms * 0.99};
          std::string size = format_size(bytes);
          size.erase(std::remove(size.begin(), size.end(), ' '), size.end());
          c.gate = fmt::format("sweep/{}/{}/{}/{}", method, direction, k.memory, size);
          c.verified = true;
          r.cases.push_back(c);
          r.gates.push_back({c.gate, true, fmt::format("all {} bytes match", bytes)});
        }
      }
    }
  }
  for (Case& c : r.cases) {
    if (c.method == "sm" && c.direction == "d2h" && c.memory == "write-combined" &&
        c.bytes == kMiB) {
      c.verified = false;
      for (Gate& g : r.gates) {
        if (g.name == c.gate) {
          g.passed = false;
          g.detail = "first difference at byte 4096 of 1048576";
        }
      }
    }
  }
  r.find("sweep", "h2d", "pinned", kGiB)->extra = {{"stopped", "ci < 1%"}, {"samples_wanted", 30}};
  r.find("sweep", "h2d", "pageable", 4 * kKiB)->extra = {{"note", "a \"quoted\", comma"}};
  r.wall_ms = 12345.0;
  return r;
}

std::string sweep_trace_path() {
  return std::string(PINBENCH_TEST_DATA_DIR) + "/sweep.trace.json";
}

Result run(const std::string& command) {
  const std::string err_dir = temp_dir();
  const std::string err_path = err_dir + "/stderr";
  const std::string full = command + " 2>" + err_path;
  Result result;
  FILE* pipe = popen(full.c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("popen failed");
  std::array<char, 4096> buf{};
  std::size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) result.out.append(buf.data(), n);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.err = read_file(err_path);
  std::error_code ec;
  std::filesystem::remove_all(err_dir, ec);
  return result;
}

Result run_and_signal(const std::string& command, const std::string& ready,
                      const std::string& signal) {
  const std::string script = temp_dir() + "/signal.sh";
  write_file(script, command + " &\np=$!\ni=0\nwhile [ ! -e '" + ready +
                         "' ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i+1)); done\nkill -" + signal +
                         " $p\nwait $p\n");
  return run("sh " + script);
}

namespace {

// Every folder temp_dir() made, removed when the test process ends (each test runs in a process of
// its own under ctest): a test cleans up after itself, whatever it asserted. A forked child that
// exits leaves them to its parent.
class TempDirs {
 public:
  ~TempDirs() {
    if (getpid() != owner_) return;
    for (const std::string& d : dirs_) {
      std::error_code ec;
      std::filesystem::remove_all(d, ec);
    }
  }
  void add(const std::string& dir) { dirs_.push_back(dir); }

 private:
  pid_t owner_ = getpid();
  std::vector<std::string> dirs_;
};

TempDirs& temp_dirs() {
  static TempDirs dirs;
  return dirs;
}

}  // namespace

std::string temp_dir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "pinbench-test-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  temp_dirs().add(tmpl);
  return tmpl;
}

std::string golden_path(const std::string& name) {
  return std::string(PINBENCH_TEST_GOLDEN_DIR) + "/" + name;
}

void expect_matches_golden(const std::string& rendered, const std::string& name) {
  const std::string path = golden_path(name);
  const bool html = name.size() > 5 && name.compare(name.size() - 5, 5, ".html") == 0;
  const std::string actual = html ? normalise_html(rendered) : rendered;
  if (const char* update = std::getenv("PINBENCH_UPDATE_GOLDEN"); update && *update == '1') {
    write_file(path, actual);
  }
  const std::string expected = read_file(path);
  ASSERT_FALSE(expected.empty()) << "missing golden file " << path;
  EXPECT_EQ(actual, expected) << "rendering differs from " << path;
}

std::string unwrapped(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' && i + 1 < text.size() && text[i + 1] == ' ') {
      std::size_t j = i + 1;
      while (j < text.size() && text[j] == ' ') ++j;
      out += ' ';
      i = j - 1;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

std::string cli_reference() {
  const Result r = run(std::string(PINBENCH_BINARY) + " help --reference");
  if (r.exit_code != 0) throw std::runtime_error("pinbench help --reference failed: " + r.err);
  return r.out;
}

std::map<std::string, std::vector<OptionRow>> reference_options(const std::string& reference) {
  std::map<std::string, std::vector<OptionRow>> out;
  std::istringstream lines(reference);
  std::string line;
  std::string command;
  const std::regex row(R"(^\| `([^`]+)` \| (?:`([^`]*)`)? \| [^|]* \| (.*) \|$)");
  while (std::getline(lines, line)) {
    if (line.rfind("## ", 0) == 0) {
      command = line.substr(3);
      if (command == "CSV columns") command.clear();
      continue;
    }
    std::smatch m;
    if (!command.empty() && std::regex_search(line, m, row)) {
      out[command].push_back({m[1].str(), m[2].str(), m[3].str()});
    }
  }
  return out;
}

std::string long_name(const OptionRow& o) {
  const std::size_t at = o.names.rfind("--");
  return at == std::string::npos ? "" : o.names.substr(at);
}

}  // namespace pinbench::test
