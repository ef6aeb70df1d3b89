// Names for the trace model's enums, and the one lookup every consumer needs: which copy a call
// started.
#include "framework/trace_model.hpp"

namespace pinbench {

const char* to_string(CopyDirection d) {
  switch (d) {
    case CopyDirection::kH2D:
      return "h2d";
    case CopyDirection::kD2H:
      return "d2h";
    case CopyDirection::kD2D:
      return "d2d";
    case CopyDirection::kH2H:
      return "h2h";
    case CopyDirection::kP2P:
      return "p2p";
    case CopyDirection::kUnknown:
      break;
  }
  return "unknown";
}

const char* to_string(DriverMemoryKind k) {
  switch (k) {
    case DriverMemoryKind::kPageable:
      return "pageable";
    case DriverMemoryKind::kPinned:
      return "pinned";
    case DriverMemoryKind::kDevice:
      return "device";
    case DriverMemoryKind::kManaged:
      return "managed";
    case DriverMemoryKind::kArray:
      return "array";
    case DriverMemoryKind::kUnknown:
      break;
  }
  return "unknown";
}

DriverMemoryKind host_side(CopyDirection d, DriverMemoryKind src, DriverMemoryKind dst) {
  if (d == CopyDirection::kH2D) return src;
  if (d == CopyDirection::kD2H) return dst;
  return DriverMemoryKind::kUnknown;
}

const Copy* Trace::copy_of(const ApiCall& call) const {
  if (call.correlation == 0) return nullptr;
  for (const Copy& c : copies) {
    if (c.correlation == call.correlation) return &c;
  }
  return nullptr;
}

}  // namespace pinbench
