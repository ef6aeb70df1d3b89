// pinned-unused: page-locked allocations whose copies reach well short of their end (each
// allocation's high-water mark), by call site.
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "experiments/doctor/findings/calls.hpp"
#include "experiments/doctor/findings/finding.hpp"
#include "experiments/doctor/findings/rates.hpp"
#include "experiments/doctor/findings/sites.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::doctor::findings {
namespace {

// The power of two at or above `n` (a rounding allocator's block for n bytes).
std::uint64_t rounded_up(std::uint64_t n) {
  std::uint64_t p = 1;
  while (p < n && p < (std::uint64_t{1} << 63)) p <<= 1;
  return p;
}

}  // namespace

// Allocation sites whose page-locked bytes beyond the copies' high-water mark are at least
// kPinnedUnusedShare of what they page-locked, and at least kPinnedUnusedMinBytes.
void pinned_unused(const FindingInput& in, DoctorAnalysis& a) {
  const DoctorTrace& t = in.trace;
  const PinnedRanges& pinned = in.pinned;
  if (pinned.ranges.empty()) return;
  if (!pinned.copies_name_pointers) {
    a.not_judged.push_back(
        {"pinned-unused",
         "no copy in the record names its host pointer (a record made before doctor read them, "
         "or copies whose API does not say), so no page-locked allocation can be matched to the "
         "copies made from it"});
    return;
  }
  struct SiteUse {
    std::vector<const PinnedRange*> ranges;
    std::uint64_t held = 0, used = 0;
  };
  std::map<std::string, SiteUse> by_site;
  std::uint64_t unseen = 0, unseen_bytes = 0;
  for (const PinnedRange& r : pinned.ranges) {
    if (r.copies.empty()) {
      ++unseen;
      unseen_bytes += r.alloc->bytes;
      continue;
    }
    SiteUse& u = by_site[describe(t, *r.alloc).first];
    u.ranges.push_back(&r);
    u.held += r.alloc->bytes;
    u.used += r.high_water;
  }
  DoctorFinding f;
  f.id = "pinned-unused";
  f.title = "Page-locked memory held beyond what its copies use";
  f.counted = "allocations";
  std::map<std::string, SiteSum> sites;
  std::uint64_t held = 0, used = 0;
  bool rounded = true;
  for (const auto& [where, u] : by_site) {
    const std::uint64_t unused = u.held - u.used;
    if (unused < kPinnedUnusedMinBytes ||
        static_cast<double>(unused) < kPinnedUnusedShare * static_cast<double>(u.held)) {
      continue;
    }
    held += u.held;
    used += u.used;
    for (const PinnedRange* r : u.ranges) {
      ++f.count;
      f.host_ms += host_ms(*r->alloc);
      add_to_site(sites, t, *r->alloc, r->alloc->bytes - r->high_water, host_ms(*r->alloc),
                  std::nullopt);
      rounded = rounded && rounded_up(r->high_water) == r->alloc->bytes &&
                r->high_water != r->alloc->bytes;
    }
  }
  if (f.count == 0) return;
  f.bytes = held - used;
  f.sites = ranked(sites);
  // What is held matters here, not time: the largest waste first.
  std::stable_sort(
      f.sites.begin(), f.sites.end(),
      [](const DoctorSiteCost& x, const DoctorSiteCost& y) { return x.bytes > y.bytes; });
  f.evidence.push_back(fmt::format(
      "{} at {} page-locked {}; the copies made from {} reached {} at most (each "
      "allocation's high-water mark): {} ({:.0f}%) page-locked and never copied",
      plural(f.count, "allocation", "allocations"), plural(f.sites.size(), "site", "sites"),
      format_size(held), f.count == 1 ? "it" : "them", format_size(used), format_size(f.bytes),
      100.0 * static_cast<double>(f.bytes) / static_cast<double>(held)));
  if (rounded) {
    f.evidence.push_back(
        "each is the power of two just above what its copies used: an allocator that rounds "
        "sizes up (PyTorch's caching host allocator rounds every block to the next power of two) "
        "page-locked the difference");
  }
  if (unseen > 0) {
    f.evidence.push_back(fmt::format(
        "{} ({}) held no copy doctor could match (kernels may read them mapped, or their copies' "
        "APIs do not name a pointer) and are not judged",
        plural(unseen, "more allocation", "more allocations"), format_size(unseen_bytes)));
  }
  f.evidence.push_back(
      "no time is estimated: page-locked memory held costs the rest of the system memory it "
      "cannot swap or move, not this program time");
  set_fix(
      f, t,
      {"PyTorch's caching host allocator rounds every pinned block up to a power of two: pin "
       "one buffer of the size the copies need and reuse it, registering exactly its bytes",
       "buf = torch.empty(nbytes, dtype=torch.uint8)   # pageable, exactly nbytes, once\n"
       "torch.cuda.cudart().cudaHostRegister(buf.data_ptr(), nbytes, 0)   # pin exactly it\n"
       "buf.copy_(batch.view(-1).view(torch.uint8)); dev.copy_(buf, non_blocking=True)"},
      {"Page-lock only what is copied: size each allocation, or pool, by what its copies "
       "reach, not by a rounded-up or worst-case size; grow a pool on demand, off the "
       "critical path",
       "cudaHostAlloc(&buf, bytes_copied, cudaHostAllocDefault);  // not the next power of two"});
  a.findings.push_back(std::move(f));
}

}  // namespace pinbench::experiments::doctor::findings
