// Fresh destinations (fresh_pages.hpp).
#include "transfer/fresh_pages.hpp"

#include <cstdint>
#include <fstream>
#include <string>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "base/chunk_plan.hpp"

namespace pinbench::transfer {
namespace {

constexpr std::uintptr_t kHugePageBytes = 2u << 20;

// Whether MADV_HUGEPAGE can give a range huge pages: the system setting is "always" or
// "madvise" (the bracketed word of the sysfs file), read once.
bool huge_pages_on_request() {
  static const bool allowed = [] {
    std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string line;
    std::getline(in, line);
    return line.find("[always]") != std::string::npos ||
           line.find("[madvise]") != std::string::npos;
  }();
  return allowed;
}

}  // namespace

Residency sample_residency(const void* dst, std::size_t bytes) {
  Residency r;
#if defined(__linux__)
  if (bytes == 0) return r;
  const auto first = reinterpret_cast<std::uintptr_t>(dst) & ~(kHostPageBytes - 1);
  const auto last = (reinterpret_cast<std::uintptr_t>(dst) + bytes - 1) & ~(kHostPageBytes - 1);
  const std::uintptr_t pages = (last - first) / kHostPageBytes + 1;
  const std::uintptr_t samples = pages < kFreshSamples ? pages : kFreshSamples;
  for (std::uintptr_t i = 0; i < samples; ++i) {
    const std::uintptr_t page = samples == 1 ? 0 : i * (pages - 1) / (samples - 1);
    unsigned char in_core = 0;
    if (mincore(reinterpret_cast<void*>(first + page * kHostPageBytes), kHostPageBytes, &in_core) !=
        0) {
      continue;  // not mapped as mincore sees it: say nothing of that page
    }
    ++r.sampled;
    if ((in_core & 1) != 0) ++r.resident;
  }
#else
  (void)dst;
  (void)bytes;
#endif
  return r;
}

FreshDestination prepare_destination(void* dst, std::size_t bytes, bool huge_pages) {
  FreshDestination out;
  const Residency r = sample_residency(dst, bytes);
  if (r.sampled == 0 || 2 * r.resident > r.sampled) return out;
  out.fresh = true;
#if defined(__linux__)
  if (!huge_pages || !huge_pages_on_request()) return out;
  const auto a = reinterpret_cast<std::uintptr_t>(dst);
  const std::uintptr_t begin = (a + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  const std::uintptr_t end = (a + bytes) & ~(kHugePageBytes - 1);
  // Advice only: memory that cannot take it (a file mapping, say) is left as it is.
  if (end > begin && madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE) == 0) {
    out.huge = true;
    out.huge_begin = begin - a;
    out.huge_end = end - a;
  }
#else
  (void)huge_pages;
#endif
  return out;
}

}  // namespace pinbench::transfer
