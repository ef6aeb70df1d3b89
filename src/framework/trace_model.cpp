// CUPTI's numbers for the trace model's enums (their names are the tables in trace_model.hpp), and
// the one lookup every consumer needs: which copy a call started.
#include "framework/trace_model.hpp"

#include <algorithm>
#include <cctype>

#include "framework/text.hpp"

namespace pinbench {

DriverMemoryKind host_side(CopyDirection d, DriverMemoryKind src, DriverMemoryKind dst) {
  if (d == CopyDirection::kH2D) return src;
  if (d == CopyDirection::kD2H) return dst;
  return DriverMemoryKind::kUnknown;
}

CopyDirection direction_from_cupti(std::uint64_t copy_kind) {
  switch (copy_kind) {
    case 1:  // HTOD
    case 3:  // HTOA
      return CopyDirection::kH2D;
    case 2:  // DTOH
    case 4:  // ATOH
      return CopyDirection::kD2H;
    case 5:  // ATOA
    case 6:  // ATOD
    case 7:  // DTOA
    case 8:  // DTOD
      return CopyDirection::kD2D;
    case 9:  // HTOH
      return CopyDirection::kH2H;
    case 10:  // PTOP
      return CopyDirection::kP2P;
    default:
      return CopyDirection::kUnknown;
  }
}

DriverMemoryKind memory_kind_from_cupti(std::uint64_t memory_kind) {
  switch (memory_kind) {
    case 1:
      return DriverMemoryKind::kPageable;
    case 2:
      return DriverMemoryKind::kPinned;
    case 3:  // DEVICE
    case 6:  // DEVICE_STATIC
      return DriverMemoryKind::kDevice;
    case 4:
      return DriverMemoryKind::kArray;
    case 5:  // MANAGED
    case 7:  // MANAGED_STATIC
      return DriverMemoryKind::kManaged;
    default:
      return DriverMemoryKind::kUnknown;
  }
}

const Copy* Trace::copy_of(const ApiCall& call) const {
  if (call.correlation == 0) return nullptr;
  for (const Copy& c : copies) {
    if (c.correlation == call.correlation) return &c;
  }
  return nullptr;
}

std::string api_base_name(std::string_view name) {
  std::string s(trim(name));
  for (bool changed = true; changed;) {
    changed = false;
    const std::size_t v = s.rfind("_v");
    if (v != std::string::npos && v + 2 < s.size() &&
        std::all_of(s.begin() + static_cast<std::ptrdiff_t>(v) + 2, s.end(),
                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      s.erase(v);
      changed = true;
    }
    for (const char* suffix : {"_ptsz", "_ptds"}) {
      const std::size_t n = std::char_traits<char>::length(suffix);
      if (s.size() > n && s.compare(s.size() - n, n, suffix) == 0) {
        s.erase(s.size() - n);
        changed = true;
      }
    }
  }
  return s;
}

CopyIndex copies_by_correlation(const Trace& t) {
  CopyIndex index;
  for (const Copy& c : t.copies) {
    if (c.correlation != 0) index.emplace(c.correlation, &c);
  }
  return index;
}

const Copy* find_copy(const CopyIndex& index, const ApiCall& call) {
  if (call.correlation == 0) return nullptr;
  const auto it = index.find(call.correlation);
  return it == index.end() ? nullptr : it->second;
}

bool inside(const ApiCall& call, const NvtxRange& r) {
  // CUPTI and nsys give threads as ids; 0 means the producer did not say.
  const bool same_thread = r.thread == 0 || call.thread == 0 || r.thread == call.thread;
  return same_thread && call.start_ns >= r.start_ns && call.end_ns <= r.end_ns;
}

}  // namespace pinbench
