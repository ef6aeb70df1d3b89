// What bounds page-locked memory on this host, read before anything is pinned: the memory the
// process may use (MemAvailable, the tightest cgroup memory limit on its way to the root), the
// memory-lock limit, the number of mappings it may hold (vm.max_map_count against
// /proc/self/maps), transparent huge pages' mode, and the per-call limits that the kernel's and
// the NVIDIA driver's releases imply. A size past a limit is refused with a line that names the
// limit and its value, never attempted: a pin that fails late fails as an unrelated "out of
// memory", or falls back to pageable copies unseen.
//
// CUDA-free, so the experiment that measures pinning, the arena that pins and the health check
// all read the one set of facts. Every reader takes the root it reads under, so tests give it
// crafted files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pinbench {

// Where the facts are read: the real host by default.
struct PinSources {
  std::string proc_root = "/proc";  // meminfo, self/cgroup, self/maps, sys/vm
  std::string sys_root = "/sys";    // kernel/mm/transparent_hugepage
  std::string cgroup_root = "/sys/fs/cgroup";
  // RLIMIT_MEMLOCK's soft limit as the test gives it (nullopt: unlimited); used only where
  // memlock_given, else the process's own (getrlimit).
  std::optional<std::uint64_t> memlock_bytes;
  bool memlock_given = false;
  std::string kernel_release;  // "" reads uname(2)
  std::string driver_release;  // "" reads <proc_root>/driver/nvidia/version
};

// A limit on one call or on all the memory pinned, named as a user would look it up.
struct PinLimit {
  std::string name;         // "cgroup memory limit", "NVIDIA driver's per-call limit", ...
  std::uint64_t bytes = 0;  // the most allowed; with `below`, the first size refused
  bool per_call = false;    // bounds one pinning call (a chunk), not the total
  bool below = false;       // a call must stay below `bytes`, not reach it
  std::string why;          // where it comes from, for the refusal and the record
};

struct PinLimits {
  std::uint64_t available_bytes = 0;                 // MemAvailable
  std::uint64_t hugetlbfs_free_bytes = 0;            // HugePages_Free x Hugepagesize
  std::optional<std::uint64_t> cgroup_memory_bytes;  // tightest memory.max / limit_in_bytes
  std::optional<std::uint64_t> cgroup_memory_used;   // that group's memory.current / usage
  // RLIMIT_MEMLOCK, nullopt: unlimited. Recorded, not applied: CUDA's pinning does not count
  // against it (an unprivileged process with a limit of 1 GiB pinned 2 GiB by cudaHostAlloc and
  // by cudaHostRegister, driver 580 on an H100 host, where mlock(2) of 2 GiB failed).
  std::optional<std::uint64_t> memlock_bytes;
  std::optional<std::uint64_t> max_map_count;  // vm.max_map_count
  std::uint64_t map_count = 0;                 // mappings the process holds now
  std::string thp_mode;                        // "always", "madvise", "never", or "" when not said
  std::string kernel_release;                  // "6.12.8-..."
  std::string driver_release;                  // "580.95.05", or "" without a driver

  // The memory this process may still pin: MemAvailable, less where the cgroup leaves less.
  std::uint64_t usable_bytes() const;
  // The limits that apply, each named with its value (the record keeps them).
  std::vector<PinLimit> limits() const;
};

PinLimits read_pin_limits(const PinSources& sources = {});

// "memory.max" text ("max\n" or a byte count) to bytes; nullopt for "max" or malformed.
std::optional<std::uint64_t> parse_cgroup_bytes(const std::string& text);

// "6.12.8-arch1" -> {6, 12}; {0, 0} when unreadable.
std::pair<int, int> kernel_version(const std::string& release);

// The NVIDIA driver's major release ("580.95.05" -> 580); 0 when unreadable.
int driver_major(const std::string& release);

// The size pinned by default: half of usable_bytes(), at most `cap`, rounded down to whole GiB
// (at least 1 GiB when that much is usable, else 0).
std::uint64_t default_pin_bytes(const PinLimits& limits, std::uint64_t cap);

// Why pinning `total` bytes in calls of at most `per_call` bytes, `mappings` new mappings in all,
// would cross a limit: "1 TiB in one call crosses the NVIDIA driver's per-call limit (512 GiB,
// release 580 and later)"; nullopt when none is crossed.
std::optional<std::string> pin_refusal(const PinLimits& limits, std::uint64_t total,
                                       std::uint64_t per_call, std::uint64_t mappings);

}  // namespace pinbench
