#include "doctor_fixtures.hpp"

#include <cstdio>

#include "framework/units.hpp"

namespace pinbench::test {

std::string head(int pid) {
  return "H\t" + std::to_string(pid) + "\t130001\t1000000\n";
}

std::string api(const std::string& domain, const std::string& cls, unsigned corr,
                std::uint64_t start_us, std::uint64_t end_us, const std::string& site,
                const std::string& name, std::uint64_t ptr, std::uint64_t bytes, int pid, int tid,
                char direction, char host, int node, int status, char locked) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "A\t%d\t%s\t%s\t%u\t%d\t%llu\t%llu\t%d\t0x%llx\t%llu\t%s\t%c\t%c\t%d\t%s\n", pid,
                domain.c_str(), cls.c_str(), corr, tid,
                static_cast<unsigned long long>(1000000 + start_us * 1000),
                static_cast<unsigned long long>(1000000 + end_us * 1000), status,
                static_cast<unsigned long long>(ptr), static_cast<unsigned long long>(bytes),
                site.c_str(), direction, host, node, name.c_str());
  std::string line = buf;
  if (locked != 0) {
    line.pop_back();  // the '\n'
    line += std::string("\t") + locked + "\n";
  }
  return line;
}

std::string memcpy_line(unsigned corr, unsigned rcorr, int copy_kind, std::uint64_t bytes, int src,
                        int dst, std::uint64_t start_us, std::uint64_t end_us, unsigned stream,
                        int pid) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "M\t%d\t%u\t%u\t%d\t%llu\t%d\t%d\t%llu\t%llu\t%u\t0\t1\n", pid,
                corr, rcorr, copy_kind, static_cast<unsigned long long>(bytes), src, dst,
                static_cast<unsigned long long>(1000000 + start_us * 1000),
                static_cast<unsigned long long>(1000000 + end_us * 1000), stream);
  return buf;
}

std::string site(const std::string& id, const std::string& function, int pid) {
  return "S\t" + std::to_string(pid) + "\t" + id +
         "\tN|/usr/lib/libcudart.so|0x100|cudaMemcpyAsync" + "\tN|/bin/app|0x1234|" + function +
         "\tN|/bin/app|0x10|main\n";
}

Case rate_case(const std::string& direction, const std::string& memory, std::uint64_t bytes,
               double ms, double call_ms) {
  Case c;
  c.part = "doctor-calibration";
  c.direction = direction;
  c.memory = memory;
  c.method = "cudaMemcpyAsync";
  c.timing = "host_clock";
  c.bytes = bytes;
  c.samples_ms = {ms, ms, ms};
  c.call_ms = {call_ms, call_ms, call_ms};
  c.gate = "doctor/" + direction + "/" + memory;
  c.verified = true;
  return c;
}

RunRecord record_with(const DoctorTrace& t, bool rates) {
  RunRecord r;
  r.experiment = "doctor";
  r.pinbench_version = "0.1.0";
  r.created_utc = "2026-12-01T10:00:00Z";
  r.machine.device_name = "Test GPU";
  r.machine.host_memory_bytes = 64 * kGiB;
  if (rates) {
    for (const char* d : {"h2d", "d2h"}) {
      for (const char* m : {"pinned", "pageable"}) {
        const double gbps = std::string(m) == "pinned" ? 40.0 : 10.0;
        r.cases.push_back(rate_case(d, m, 4 * kMiB, 4.0 * kMiB / (gbps * 1e6), 0.01));
        r.gates.push_back({r.cases.back().gate, true, "ok"});
      }
    }
  }
  r.sections["doctor"] = to_json(t);
  return r;
}

const DoctorFinding* find(const DoctorAnalysis& a, const std::string& id) {
  for (const DoctorFinding& f : a.findings) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

std::string pageable_loop(int n, const std::string& s, unsigned first) {
  std::string text;
  for (int i = 0; i < n; ++i) {
    const unsigned corr = first + static_cast<unsigned>(i);
    const std::uint64_t t0 = 10000 + 10000 * static_cast<std::uint64_t>(first + i);
    text += api("R", "copy_async", corr, t0, t0 + 1000, s, "cudaMemcpyAsync_v3020");
    text += memcpy_line(900 + corr, corr, 1, 4 * kMiB, 1, 3, t0, t0 + 1000);
  }
  return text;
}

}  // namespace pinbench::test
