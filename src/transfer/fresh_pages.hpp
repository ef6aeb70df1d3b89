// Destinations never written before (`.cpu()`, a new numpy.empty): their pages do not exist yet,
// and the first write to each faults it in. A drain thread that writes such a page waits for the
// kernel to find and zero it, one 4 KiB page at a time; on the H200 machine one thread made
// 64 MiB of fresh memory writable at 2.2 GB/s and eight at 12.8, far below the 55 GB/s the copy
// engine delivers. With transparent huge pages allowed for the range (MADV_HUGEPAGE), one fault
// maps 2 MiB, and eight threads made the same memory writable at 30-39 GB/s.
//
// So a copy to the host whose destination looks fresh (most of a sample of its pages is not
// resident) gets its 2 MiB-aligned interior marked MADV_HUGEPAGE, where the system allows huge
// pages on request, and the host threads fault each chunk's destination in while its DMA runs
// (HostCopyPool::publish_touch), so the drain that follows writes to pages that exist. No byte
// of the caller's memory changes, nothing outside the copy's range is touched, and the caller's
// pages outside the aligned interior keep their page size. The advice stays on the range after
// the copy: the memory is the caller's, and the kernel may back it with huge pages later too.
#pragma once

#include <cstddef>

namespace pinbench::transfer {

// The span a touch slice covers (whole page-table pages: see Lane::look_at_destination).
constexpr std::size_t kTouchAlignment = std::size_t{2} << 20;

struct FreshDestination {
  bool fresh = false;  // most sampled pages were not resident: prefault while the DMA runs
  bool huge = false;   // MADV_HUGEPAGE was applied to the range's aligned interior
  // That interior, as offsets from dst: [huge_begin, huge_end). Outside it (at most 2 MiB at
  // each end) pages stay 4 KiB, and the drain's threads fault them in as they write, many at a
  // time; one thread touching them ahead would fault them one by one.
  std::size_t huge_begin = 0;
  std::size_t huge_end = 0;
};

// Looks at up to `kFreshSamples` pages of [dst, dst + bytes) with mincore() and, when most are
// not resident and `huge_pages` is true, asks for huge pages on the range's 2 MiB-aligned
// interior (when the system's transparent huge pages are not "never"). Linux only; elsewhere
// nothing is fresh.
FreshDestination prepare_destination(void* dst, std::size_t bytes, bool huge_pages);

// How many of the pages sampled over [dst, dst + bytes) are resident, and how many were
// sampled (at most kFreshSamples, spread evenly, the first and last included).
struct Residency {
  int sampled = 0;
  int resident = 0;
};
constexpr int kFreshSamples = 8;
Residency sample_residency(const void* dst, std::size_t bytes);

}  // namespace pinbench::transfer
