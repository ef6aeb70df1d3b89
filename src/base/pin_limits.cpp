// The host's limits on page-locked memory (pin_limits.hpp).
#include "base/pin_limits.hpp"

#include "base/cgroups.hpp"

#include <sys/resource.h>
#include <sys/utsname.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <sstream>

namespace pinbench {
namespace {

constexpr std::uint64_t kGiB = 1ull << 30;

std::string text_of(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A decimal count, digits only (after trimming whitespace); nullopt otherwise.
std::optional<std::uint64_t> decimal(std::string t) {
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
  std::size_t at = 0;
  while (at < t.size() && std::isspace(static_cast<unsigned char>(t[at]))) ++at;
  t = t.substr(at);
  if (t.empty() || t.size() > 20 || t.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  std::uint64_t v = 0;
  for (const char c : t) {
    const std::uint64_t d = static_cast<std::uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

std::uint64_t meminfo_kib(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) != 0) continue;
    std::istringstream rest(line.substr(key.size() + 1));
    std::string number;
    rest >> number;
    return decimal(number).value_or(0);
  }
  return 0;
}

// The group of this process in the cgroup v2 hierarchy, or in v1's memory controller; v2 first.
std::pair<std::string, bool> memory_group(const std::string& cgroup_text) {
  std::string v1;
  for (const CgroupLine& line : parse_proc_cgroup(cgroup_text)) {
    if (line.controllers.empty()) return {line.group, true};
    for (const std::string& c : line.controllers) {
      if (c == "memory") v1 = line.group;
    }
  }
  return {v1, false};
}

// The tightest limit of `group` and every group above it, and the usage of the group that sets it.
void tightest_memory(const std::string& root, const std::string& group, bool v2, PinLimits& out) {
  for (const std::string& g : group_and_parents(group)) {
    const std::string dir = root + (v2 ? "" : "/memory") + (g == "/" ? "" : g);
    const auto limit =
        parse_cgroup_bytes(text_of(dir + (v2 ? "/memory.max" : "/memory.limit_in_bytes")));
    if (limit && (!out.cgroup_memory_bytes || *limit < *out.cgroup_memory_bytes)) {
      out.cgroup_memory_bytes = limit;
      out.cgroup_memory_used =
          decimal(text_of(dir + (v2 ? "/memory.current" : "/memory.usage_in_bytes")));
    }
  }
}

// "always [madvise] never" -> "madvise".
std::string bracketed(const std::string& text) {
  const std::size_t open = text.find('[');
  const std::size_t close = text.find(']', open);
  return open == std::string::npos || close == std::string::npos
             ? ""
             : text.substr(open + 1, close - open - 1);
}

std::uint64_t count_lines(const std::string& path) {
  std::ifstream in(path);
  return static_cast<std::uint64_t>(
      std::count(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>(), '\n'));
}

// "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  Thu ..." -> "580.95.05".
std::string release_in(const std::string& version_text) {
  std::istringstream in(version_text);
  std::string word;
  while (in >> word) {
    if (!word.empty() && std::isdigit(static_cast<unsigned char>(word[0])) &&
        word.find('.') != std::string::npos &&
        word.find_first_not_of("0123456789.") == std::string::npos) {
      return word;
    }
  }
  return "";
}

std::string gib_words(std::uint64_t bytes) {
  std::ostringstream s;
  if (bytes % kGiB == 0) {
    s << bytes / kGiB << " GiB";
  } else {
    s.setf(std::ios::fixed);
    s.precision(2);
    s << static_cast<double>(bytes) / static_cast<double>(kGiB) << " GiB";
  }
  return s.str();
}

}  // namespace

std::optional<std::uint64_t> parse_cgroup_bytes(const std::string& text) {
  const auto v = decimal(text);
  // cgroup v1 says "no limit" with a page-rounded LONG_MAX.
  if (!v || *v >= (1ull << 62)) return std::nullopt;
  return v;
}

std::pair<int, int> kernel_version(const std::string& release) {
  int major = 0, minor = 0;
  char dot = 0;
  std::istringstream in(release);
  if (!(in >> major >> dot >> minor) || dot != '.') return {0, 0};
  return {major, minor};
}

int driver_major(const std::string& release) {
  const std::size_t dot = release.find('.');
  const auto v = decimal(release.substr(0, dot));
  return v && *v < 100000 ? static_cast<int>(*v) : 0;
}

PinLimits read_pin_limits(const PinSources& src) {
  PinLimits out;
  const std::string meminfo = text_of(src.proc_root + "/meminfo");
  out.available_bytes = meminfo_kib(meminfo, "MemAvailable") * 1024;
  // HugePages_Free is a count of pages, Hugepagesize their size in KiB.
  out.hugetlbfs_free_bytes =
      meminfo_kib(meminfo, "HugePages_Free") * meminfo_kib(meminfo, "Hugepagesize") * 1024;
  const auto [group, v2] = memory_group(text_of(src.proc_root + "/self/cgroup"));
  tightest_memory(src.cgroup_root, group, v2, out);
  if (src.memlock_given) {
    out.memlock_bytes = src.memlock_bytes;
  } else {
    rlimit r{};
    if (getrlimit(RLIMIT_MEMLOCK, &r) == 0 && r.rlim_cur != RLIM_INFINITY) {
      out.memlock_bytes = static_cast<std::uint64_t>(r.rlim_cur);
    }
  }
  out.max_map_count = decimal(text_of(src.proc_root + "/sys/vm/max_map_count"));
  out.map_count = count_lines(src.proc_root + "/self/maps");
  out.thp_mode = bracketed(text_of(src.sys_root + "/kernel/mm/transparent_hugepage/enabled"));
  out.kernel_release = src.kernel_release;
  if (out.kernel_release.empty()) {
    utsname u{};
    if (uname(&u) == 0) out.kernel_release = u.release;
  }
  out.driver_release = src.driver_release.empty()
                           ? release_in(text_of(src.proc_root + "/driver/nvidia/version"))
                           : src.driver_release;
  return out;
}

std::uint64_t PinLimits::usable_bytes() const {
  std::uint64_t usable = available_bytes;
  if (cgroup_memory_bytes) {
    const std::uint64_t used = cgroup_memory_used.value_or(0);
    const std::uint64_t left = *cgroup_memory_bytes > used ? *cgroup_memory_bytes - used : 0;
    usable = std::min(usable, left);
  }
  return usable;
}

std::vector<PinLimit> PinLimits::limits() const {
  std::vector<PinLimit> out;
  out.push_back({"memory this process may use", usable_bytes(), false, false,
                 cgroup_memory_bytes ? "MemAvailable, less what its cgroup's memory limit leaves"
                                     : "MemAvailable"});
  const auto [major, minor] = kernel_version(kernel_release);
  if (major == 6 && minor >= 11 && minor <= 13) {
    out.push_back({"kernel's per-call pin limit", 2'000'000'000ull, true, false,
                   "Linux " + kernel_release + ": 6.11 to 6.13 pin at most 2 GB in one call"});
  }
  if (driver_major(driver_release) >= 580) {
    out.push_back({"NVIDIA driver's per-call limit", 512 * kGiB, true, true,
                   "driver " + driver_release +
                       ": releases 580 and later fail one registration of 512 GiB or more"});
  }
  return out;
}

std::uint64_t default_pin_bytes(const PinLimits& limits, std::uint64_t cap) {
  const std::uint64_t half = std::min(limits.usable_bytes() / 2, cap);
  return half / kGiB * kGiB;
}

std::optional<std::string> pin_refusal(const PinLimits& limits, std::uint64_t total,
                                       std::uint64_t per_call, std::uint64_t mappings) {
  for (const PinLimit& l : limits.limits()) {
    const std::uint64_t asked = l.per_call ? per_call : total;
    const bool crosses = l.below ? asked >= l.bytes : asked > l.bytes;
    if (!crosses) continue;
    return gib_words(asked) + (l.per_call ? " in one call" : "") + " crosses the " + l.name + " (" +
           gib_words(l.bytes) + (l.below ? ", exclusive" : "") + "; " + l.why + ")";
  }
  if (limits.max_map_count && limits.map_count + mappings > *limits.max_map_count) {
    return std::to_string(mappings) + " new mappings beside the " +
           std::to_string(limits.map_count) + " this process holds cross vm.max_map_count (" +
           std::to_string(*limits.max_map_count) + ")";
  }
  return std::nullopt;
}

}  // namespace pinbench
