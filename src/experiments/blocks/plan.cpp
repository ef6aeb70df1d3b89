// The blocks experiment's plan (plan.hpp): names, defaults, checks, the cells within the budget,
// and the seeded placement of each cell's blocks, all before anything is allocated.
#include "experiments/blocks/plan.hpp"

#include <algorithm>
#include <limits>
#include <unordered_map>

#include <fmt/format.h>

#include "framework/case_builder.hpp"
#include "framework/config_schema.hpp"
#include "framework/errors.hpp"
#include "framework/numbers.hpp"
#include "framework/text.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::blocks {
namespace {

// A whole number of blocks, 1 to kMaxBlocks, from `text`.
std::uint64_t parse_count(std::string_view text) {
  try {
    return read_whole<std::uint64_t>(trim(text), 1, kMaxBlocks);
  } catch (const InputError&) {
    throw InputError(
        fmt::format("block count '{}' is not a whole number from 1 to {}", trim(text), kMaxBlocks));
  }
}

// splitmix64: a small generator whose output is fixed by its seed on every platform, unlike the
// standard library's distributions.
struct SplitMix {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n), n > 0, without modulo bias (rejection of the short last stretch).
  std::uint64_t below(std::uint64_t n) {
    const std::uint64_t limit =
        std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % n;
    while (true) {
      const std::uint64_t v = next();
      if (v < limit) return v % n;
    }
  }
};

// The first `count` slots of a permutation of `slots` slots (a Fisher-Yates shuffle stopped
// after `count` draws, with the slots it moved kept in a map, so the cost is the count's, not
// the arena's), each times `block_bytes`.
std::vector<std::uint64_t> draw_offsets(std::uint64_t slots, std::uint64_t count,
                                        std::uint64_t block_bytes, std::uint64_t seed) {
  SplitMix rng{seed};
  std::unordered_map<std::uint64_t, std::uint64_t> moved;
  const auto at = [&](std::uint64_t i) {
    const auto it = moved.find(i);
    return it == moved.end() ? i : it->second;
  };
  std::vector<std::uint64_t> out;
  out.reserve(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint64_t j = i + rng.below(slots - i);
    const std::uint64_t picked = at(j);
    moved[j] = at(i);
    out.push_back(picked * block_bytes);
  }
  return out;
}

}  // namespace

BlocksMethod parse_blocks_method(std::string_view name) {
  return parse_name(kBlocksMethodNames, name, "method");
}

std::vector<BlocksMethod> parse_blocks_methods(std::string_view list) {
  return parse_list<BlocksMethod>(list, "method", parse_blocks_method);
}

std::string method_not_for(BlocksMethod m, MemoryKind kind, bool pageable_access) {
  const bool locked = is_page_locked(kind);
  if (m == BlocksMethod::kKernel && !locked && !pageable_access) {
    return "the device cannot reach pageable memory from a kernel "
           "(cudaDevAttrPageableMemoryAccess is 0)";
  }
  if (m == BlocksMethod::kStaged && locked) {
    return "the staged engine sends page-locked memory straight to cudaMemcpyAsync: that is "
           "the loop";
  }
  return "";
}

std::string kernel_at_sms(int sms) {
  return fmt::format("kernel-sms{}", sms);
}

std::optional<int> sms_of_kernel_name(std::string_view method) {
  constexpr std::string_view kPrefix = "kernel-sms";
  if (method.substr(0, kPrefix.size()) != kPrefix || method.size() == kPrefix.size() ||
      method.size() > kPrefix.size() + 6) {
    return std::nullopt;
  }
  int n = 0;
  for (const char c : method.substr(kPrefix.size())) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  if (n < 1 || method[kPrefix.size()] == '0') return std::nullopt;
  return n;
}

std::string parse_beside_kernel(std::string_view name) {
  const std::string n(trim(name));
  if (n == "compute" || n == "memory" || n == "gemm") return n;
  throw InputError(
      fmt::format("--beside '{}' is not a kernel (choose compute, memory or gemm)", n));
}

std::string cell_token(const BlockCell& cell) {
  return fmt::format("{}x{}", size_token(cell.block_bytes), cell.count);
}

std::vector<std::uint64_t> parse_block_counts(std::string_view text) {
  const std::string_view t = trim(text);
  const std::size_t colon = t.find(':');
  if (colon == std::string_view::npos) {
    return parse_list<std::uint64_t>(t, "block count", parse_count);
  }
  const std::size_t colon2 = t.find(':', colon + 1);
  const std::string_view step =
      colon2 == std::string_view::npos ? std::string_view() : trim(t.substr(colon2 + 1));
  if (colon2 == std::string_view::npos || step.empty() || step[0] != 'x') {
    throw InputError(
        fmt::format("block count range '{}' is not START:END:xFACTOR (e.g. 1:4096:x4)", t));
  }
  const std::uint64_t first = parse_count(t.substr(0, colon));
  const std::uint64_t last = parse_count(t.substr(colon + 1, colon2 - colon - 1));
  if (last < first) {
    throw InputError(
        fmt::format("block count range '{}' is inverted: {} is below {}", t, last, first));
  }
  const std::uint64_t factor = parse_count(step.substr(1));
  if (factor < 2) {
    throw InputError(fmt::format("block count range '{}' needs a factor of at least 2", t));
  }
  std::vector<std::uint64_t> counts;
  for (std::uint64_t n = first; n <= last; n *= factor) counts.push_back(n);  // n <= 2^20
  return counts;
}

std::vector<MemoryKind> parse_blocks_memory(std::string_view list) {
  std::vector<MemoryKind> kinds = parse_memory_kinds(list);
  for (MemoryKind k : kinds) {
    if (k != MemoryKind::kPinned && k != MemoryKind::kPageable) {
      throw InputError(fmt::format("memory kind '{}' is not measured by blocks (pinned, pageable)",
                                   to_string(k)));
    }
  }
  return kinds;
}

BlocksConfig BlocksConfig::defaults() {
  BlocksConfig c;
  c.block_sizes = parse_sizes("4KiB:4MiB:x4");
  c.counts = parse_block_counts("1:4096:x4");
  return c;
}

void BlocksConfig::normalize() {
  for (std::vector<std::uint64_t>* v : {&block_sizes, &counts}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
}

void BlocksConfig::validate() const {
  if (block_sizes.empty()) throw InputError("no block size to measure");
  if (counts.empty()) throw InputError("no block count to measure");
  if (directions.empty()) throw InputError("no direction to measure");
  if (memory.empty()) throw InputError("no host-memory kind to measure");
  if (methods.empty()) throw InputError("no method to measure");
  for (Direction d : directions) {
    if (d == Direction::kBidir) throw InputError("blocks measures h2d and d2h, not bidir");
  }
  for (std::uint64_t n : counts) {
    if (n < 1 || n > kMaxBlocks) {
      throw InputError(fmt::format("block count {} is not from 1 to {}", n, kMaxBlocks));
    }
  }
  const std::uint64_t smallest = *std::min_element(block_sizes.begin(), block_sizes.end());
  if (smallest == 0) throw InputError("a block size of 0 bytes moves nothing");
  if (budget_bytes < smallest) {
    throw InputError(fmt::format("the budget of {} is below one block of {}",
                                 exact_size(budget_bytes), exact_size(smallest)));
  }
  if (budget_bytes > (std::uint64_t{1} << 40)) {
    throw InputError(fmt::format("the budget of {} is above 1 TiB", exact_size(budget_bytes)));
  }
  if (sms < 0) throw InputError(fmt::format("--sms {} is negative", sms));
  for (std::size_t i = 0; i < more_sms.size(); ++i) {
    if (more_sms[i] < 1) {
      throw InputError(fmt::format("--sms {}: a further SM count must be at least 1", more_sms[i]));
    }
    if (more_sms[i] == sms || std::count(more_sms.begin(), more_sms.begin() + i, more_sms[i]) > 0) {
      throw InputError(fmt::format("--sms lists {} twice", more_sms[i]));
    }
  }
  if (!beside.empty()) (void)parse_beside_kernel(beside);
  if (warmups < 0) throw InputError("warm-up count cannot be negative");
  stop.validate();
}

std::vector<BlockCell> BlocksConfig::cells() const {
  std::vector<BlockCell> out;
  for (std::uint64_t size : block_sizes) {
    for (std::uint64_t n : counts) {
      if (size <= budget_bytes / n) out.push_back({size, n});
    }
  }
  return out;
}

std::uint64_t BlocksConfig::arena_bytes() const {
  std::uint64_t largest = 0;
  for (const BlockCell& c : cells()) largest = std::max(largest, c.bytes());
  return 2 * largest;
}

nlohmann::json to_json(const BlocksConfig& c) {
  nlohmann::json j = {{"arena_bytes", c.arena_bytes()}};
  put_fields(j, c);
  put_fields(j, c.stop);
  if (!c.beside.empty()) j["beside_asked"] = c.beside;
  if (!c.more_sms.empty()) j["more_sms"] = c.more_sms;
  return j;
}

std::string blocks_fit_problem(const BlocksConfig& c, std::uint64_t device_free,
                               std::uint64_t host_total, std::uint64_t host_available) {
  const std::uint64_t arena = c.arena_bytes();
  const bool pinned =
      std::find(c.memory.begin(), c.memory.end(), MemoryKind::kPinned) != c.memory.end();
  const bool pageable =
      std::find(c.memory.begin(), c.memory.end(), MemoryKind::kPageable) != c.memory.end();
  // Device: a source and a destination arena.
  if (2 * arena > device_free) {
    return fmt::format("two device arenas of {} need {} and the device has {} free",
                       format_size(arena), format_size(2 * arena), format_size(device_free));
  }
  // Host: a source and a destination arena of each kind, the reference bytes, and the staged
  // engine's staging (96 MiB at most).
  const std::uint64_t pinned_need = pinned ? 2 * arena : 0;
  if (!c.force && host_total > 0 && pinned_need > host_total / 2) {
    return fmt::format(
        "blocks would pin {} of this host's {} (more than half); pass --force to allow it",
        format_size(pinned_need), format_size(host_total));
  }
  const std::uint64_t host_need = pinned_need + (pageable ? 2 * arena : 0) + arena + 96 * kMiB;
  if (host_available > 0 && host_need > host_available) {
    return fmt::format("blocks needs {} of host memory and {} is available", format_size(host_need),
                       format_size(host_available));
  }
  return "";
}

BlockPlacement place_blocks(const BlockCell& cell, std::uint64_t arena_bytes, std::uint64_t seed) {
  const std::uint64_t slots = arena_bytes / cell.block_bytes;
  if (cell.count > slots) {
    throw InputError(fmt::format("{} blocks of {} do not fit an arena of {}", cell.count,
                                 exact_size(cell.block_bytes), exact_size(arena_bytes)));
  }
  // One stream per arena and cell: the cell, not the order of the run, fixes its placement.
  SplitMix mix{seed ^ (cell.block_bytes * 0x100000001B3ull) ^ (cell.count << 40)};
  const std::uint64_t host_seed = mix.next();
  const std::uint64_t device_seed = mix.next();
  return {draw_offsets(slots, cell.count, cell.block_bytes, host_seed),
          draw_offsets(slots, cell.count, cell.block_bytes, device_seed)};
}

}  // namespace pinbench::experiments::blocks
