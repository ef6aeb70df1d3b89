#include "framework/numa.hpp"

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "framework/errors.hpp"

namespace pinbench {
namespace {

cpu_set_t initial_affinity() {
  static const cpu_set_t set = [] {
    cpu_set_t s;
    CPU_ZERO(&s);
    if (sched_getaffinity(0, sizeof s, &s) != 0) {
      for (int i = 0; i < CPU_SETSIZE; ++i) CPU_SET(i, &s);
    }
    return s;
  }();
  return set;
}

}  // namespace

std::vector<int> parse_cpulist(const std::string& text) {
  std::vector<int> cpus;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    while (!item.empty() && (item.back() == '\n' || item.back() == ' ')) item.pop_back();
    if (item.empty()) continue;
    int lo = 0;
    int hi = 0;
    char dash = 0;
    std::istringstream is(item);
    if (!(is >> lo) || lo < 0) throw InputError(fmt::format("bad CPU list '{}'", text));
    hi = lo;
    if (is >> dash) {
      if (dash != '-' || !(is >> hi) || hi < lo) {
        throw InputError(fmt::format("bad CPU list '{}'", text));
      }
    }
    std::string rest;
    if (is >> rest) throw InputError(fmt::format("bad CPU list '{}'", text));
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
  }
  return cpus;
}

std::vector<int> node_cpus(int node, const std::string& sysfs_root) {
  if (node < 0) return {};
  std::ifstream in(fmt::format("{}/devices/system/node/node{}/cpulist", sysfs_root, node));
  std::string line;
  if (!in || !std::getline(in, line)) return {};
  try {
    return parse_cpulist(line);
  } catch (const InputError&) {
    return {};
  }
}

bool bind_thread_to_cpus(const std::vector<int>& cpus) {
  if (cpus.empty()) return false;
  (void)initial_affinity();  // remember the original set before the first change
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) {
    if (c < CPU_SETSIZE) CPU_SET(c, &set);
  }
  return sched_setaffinity(0, sizeof set, &set) == 0;
}

void unbind_thread() {
  const cpu_set_t set = initial_affinity();
  (void)sched_setaffinity(0, sizeof set, &set);
}

int page_node(const void* p) {
  // get_mempolicy(MPOL_F_NODE | MPOL_F_ADDR) reports the node of the page at an address. Called
  // through syscall() so pinbench needs no libnuma.
  constexpr unsigned long kMpolFNode = 1;
  constexpr unsigned long kMpolFAddr = 2;
  int node = -1;
  const long rc = syscall(SYS_get_mempolicy, &node, nullptr, 0UL, const_cast<void*>(p),
                          kMpolFNode | kMpolFAddr);
  return rc == 0 ? node : -1;
}

int host_numa_nodes(const std::string& sysfs_root) {
  const std::string dir = sysfs_root + "/devices/system/node";
  std::ifstream in(dir + "/has_memory");
  std::string line;
  if (in && std::getline(in, line)) {
    try {
      const std::vector<int> nodes = parse_cpulist(line);  // a node list is spelled as CPUs are
      if (!nodes.empty()) return static_cast<int>(nodes.size());
    } catch (const InputError&) {
      // fall back to the folders
    }
  }
  std::error_code ec;
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > 4 && name.rfind("node", 0) == 0 &&
        name.find_first_not_of("0123456789", 4) == std::string::npos) {
      ++n;
    }
  }
  return n;
}

bool bind_thread_memory_to_node(int node) {
  constexpr int kMpolBind = 2;
  constexpr int kMaxNodes = 1024;
  if (node < 0 || node >= kMaxNodes) return false;
  unsigned long mask[kMaxNodes / (8 * sizeof(unsigned long))] = {};
  mask[static_cast<std::size_t>(node) / (8 * sizeof(unsigned long))] |=
      1UL << (static_cast<std::size_t>(node) % (8 * sizeof(unsigned long)));
  return syscall(SYS_set_mempolicy, kMpolBind, mask, static_cast<unsigned long>(kMaxNodes)) == 0;
}

void reset_thread_memory_node() {
  constexpr int kMpolDefault = 0;
  (void)syscall(SYS_set_mempolicy, kMpolDefault, nullptr, 0UL);
}

}  // namespace pinbench
