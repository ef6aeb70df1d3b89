#include "framework/host_info.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>

#include "framework/numa.hpp"

namespace pinbench {
namespace {

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (in) std::getline(in, line);
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
  return line;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

int to_int(const std::string& s, int fallback) {
  try {
    std::size_t used = 0;
    const int v = std::stoi(s, &used);
    return used > 0 ? v : fallback;
  } catch (...) {
    return fallback;
  }
}

std::string device_dir(const std::string& bus_id, const std::string& sysfs_root) {
  return sysfs_root + "/bus/pci/devices/" + lower(bus_id);
}

// Value of a "Key:   123 kB" line of /proc/meminfo, in bytes.
std::uint64_t meminfo_bytes(const std::string& key) {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) == 0) {
      std::istringstream ss(line.substr(key.size() + 1));
      std::uint64_t kb = 0;
      ss >> kb;
      return kb * 1024;
    }
  }
  return 0;
}

}  // namespace

int pcie_gen_from_speed(const std::string& speed) {
  struct Rate {
    double gts;
    int gen;
  };
  static constexpr Rate kRates[] = {{2.5, 1}, {5.0, 2}, {8.0, 3}, {16.0, 4}, {32.0, 5}, {64.0, 6}};
  double value = 0.0;
  try {
    value = std::stod(speed);
  } catch (...) {
    return 0;
  }
  for (const Rate& r : kRates) {
    if (value > r.gts - 0.01 && value < r.gts + 0.01) return r.gen;
  }
  return 0;
}

PcieLink read_pcie_link(const std::string& bus_id, const std::string& sysfs_root) {
  const std::string dir = device_dir(bus_id, sysfs_root);
  PcieLink link;
  link.current_speed = read_first_line(dir + "/current_link_speed");
  link.max_speed = read_first_line(dir + "/max_link_speed");
  link.current_gen = pcie_gen_from_speed(link.current_speed);
  link.max_gen = pcie_gen_from_speed(link.max_speed);
  link.current_width = to_int(read_first_line(dir + "/current_link_width"), 0);
  link.max_width = to_int(read_first_line(dir + "/max_link_width"), 0);
  return link;
}

int read_numa_node(const std::string& bus_id, const std::string& sysfs_root) {
  return to_int(read_first_line(device_dir(bus_id, sysfs_root) + "/numa_node"), -1);
}

std::string read_local_cpulist(const std::string& bus_id, const std::string& sysfs_root) {
  return read_first_line(device_dir(bus_id, sysfs_root) + "/local_cpulist");
}

void describe_host(MachineInfo& m) {
  m.hostname = host_name();
  m.host_cpu = host_cpu_model();
  m.host_logical_cpus = static_cast<int>(std::thread::hardware_concurrency());
  m.host_memory_bytes = host_memory_bytes();
  m.os = os_description();
  m.driver_release = nvidia_driver_release();
  m.host_numa_nodes = host_numa_nodes();
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

double pcie_link_gb_per_s(int gen, int width) {
  // GT/s per lane and the share of it that is payload after encoding.
  struct Gen {
    double gts;
    double efficiency;
  };
  static constexpr Gen kGens[] = {{2.5, 0.8},
                                  {5.0, 0.8},
                                  {8.0, 128.0 / 130.0},
                                  {16.0, 128.0 / 130.0},
                                  {32.0, 128.0 / 130.0},
                                  {64.0, 242.0 / 256.0}};
  if (gen < 1 || gen > 6 || width < 1) return 0.0;
  const Gen& g = kGens[gen - 1];
  return g.gts * g.efficiency / 8.0 * width;
}

std::string host_cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) {
        std::string v = line.substr(colon + 1);
        v.erase(0, v.find_first_not_of(' '));
        return v;
      }
    }
  }
  return "unknown";
}

std::uint64_t host_memory_bytes() {
  return meminfo_bytes("MemTotal");
}
std::uint64_t host_available_bytes() {
  return meminfo_bytes("MemAvailable");
}

std::string os_description() {
  utsname u{};
  if (uname(&u) != 0) return "unknown";
  return std::string(u.sysname) + " " + u.release + " " + u.machine;
}

std::string nvidia_driver_release() {
  const std::string line = read_first_line("/proc/driver/nvidia/version");
  static const std::regex kVersion(R"((\d+\.\d+(\.\d+)?))");
  std::smatch m;
  const auto pos = line.find("Kernel Module");
  const std::string tail = pos == std::string::npos ? line : line.substr(pos);
  if (std::regex_search(tail, m, kVersion)) return m[1];
  return "";
}

}  // namespace pinbench
