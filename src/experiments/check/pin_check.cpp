#include "experiments/check/pin_check.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "framework/errors.hpp"
#include "framework/json_fields.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::check {
namespace {

// The most one call may pin under `l`: its bytes, or one byte less where a call must stay below.
std::uint64_t most_in_one_call(const PinLimit& l) {
  return l.below ? (l.bytes > 0 ? l.bytes - 1 : 0) : l.bytes;
}

bool crosses(const PinLimit& l, std::uint64_t asked) {
  return asked > most_in_one_call(l);
}

}  // namespace

std::vector<PinWarning> pin_warnings(const PinLimits& l, std::uint64_t pin_bytes) {
  std::vector<PinWarning> out;
  const std::uint64_t usable = l.usable_bytes();
  if (pin_bytes > 0 && usable < pin_bytes) {
    out.push_back(
        {kPinLimitMemory,
         fmt::format("the memory this process may use ({}) is {}, below the pin size of {}: "
                     "pinning that much here takes memory the host does not have free",
                     l.cgroup_memory_bytes ? "MemAvailable, less what its cgroup's memory limit "
                                             "leaves"
                                           : "MemAvailable",
                     format_size(usable), format_size(pin_bytes))});
  }
  if (pin_bytes > 0 && l.memlock_bytes && *l.memlock_bytes < pin_bytes) {
    out.push_back(
        {kPinLimitMemlock,
         fmt::format("RLIMIT_MEMLOCK is {}, below the pin size of {}: pinning through mlock(2), "
                     "and a library that checks this limit first, stops there (CUDA's own "
                     "pinning does not count against it)",
                     format_size(*l.memlock_bytes), format_size(pin_bytes))});
  }
  for (const PinLimit& limit : l.limits()) {
    if (!limit.per_call) continue;
    const bool pin_reaches = pin_bytes > 0 && crosses(limit, pin_bytes);
    const bool memory_reaches = crosses(limit, usable);
    if (!pin_reaches && !memory_reaches) continue;
    out.push_back(
        {kPinLimitPerCall,
         fmt::format("the {} applies: {}{} ({}); {}, so one cudaHostAlloc or cudaHostRegister "
                     "that large fails here: pin in calls below it",
                     limit.name, limit.below ? "below " : "at most ", format_size(limit.bytes),
                     limit.why,
                     pin_reaches ? fmt::format("the pin size of {} crosses it, and the check "
                                               "pinned less in one call",
                                               format_size(pin_bytes))
                                 : fmt::format("the memory this process may use ({}) reaches it",
                                               format_size(usable)))});
  }
  if (l.max_map_count) {
    const std::uint64_t most = *l.max_map_count;
    const std::uint64_t left = most > l.map_count ? most - l.map_count : 0;
    if (static_cast<double>(left) < kMapCountLeftShare * static_cast<double>(most)) {
      out.push_back(
          {kPinLimitMapCount,
           fmt::format("vm.max_map_count is {} and this process held {} mappings, {} left (under "
                       "{:g}%): a registration that needs a mapping past it fails",
                       most, l.map_count, left, 100 * kMapCountLeftShare)});
    }
  }
  return out;
}

CheckPinPlan check_pin_plan(const PinLimits& l, std::uint64_t asked) {
  CheckPinPlan plan;
  if (asked == 0) return plan;
  std::uint64_t bytes = asked;
  for (const PinLimit& limit : l.limits()) {
    if (limit.per_call && crosses(limit, bytes)) {
      bytes = most_in_one_call(limit) / kMiB * kMiB;
    }
  }
  if (bytes == 0) {
    plan.refused = "a per-call limit leaves less than 1 MiB to pin in one call";
    return plan;
  }
  if (const std::optional<std::string> why = pin_refusal(l, bytes, bytes, 1)) {
    plan.refused = *why;
    return plan;
  }
  plan.bytes = bytes;
  return plan;
}

nlohmann::json to_json(const std::vector<PinWarning>& warnings) {
  nlohmann::json out = nlohmann::json::array();
  for (const PinWarning& w : warnings) out.push_back({{"limit", w.limit}, {"warning", w.warning}});
  return out;
}

std::vector<PinWarning> pin_warnings_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_array()) refuse_field(where, "is not an array");
  std::vector<PinWarning> out;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const JsonFields w(j[i], fmt::format("{}[{}]", where, i));
    PinWarning p;
    p.limit = w.one_of_list("limit", kPinLimitIds);
    p.warning = w.text("warning");
    if (p.warning.empty()) refuse_field(w.field("warning"), "is empty");
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace pinbench::experiments::check
