#include "fixtures.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "core/lesson.hpp"
#include "core/units.hpp"

namespace pinbench::test {

std::string h200_lesson_path() {
  return std::string(PINBENCH_DATA_DIR) + "/runs/lesson-h200-2026-11-30T155947Z.json";
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

Result run(const std::string& command) {
  const std::string err_path = temp_dir() + "/stderr";
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
  return result;
}

std::string temp_dir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "pinbench-test-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  return tmpl;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

}  // namespace pinbench::test
