#include "framework/render/engine_text.hpp"

#include <cstdint>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "framework/render/text.hpp"
#include "framework/units.hpp"

namespace pinbench {
namespace {

// How the host threads drained to the host; older records do not say.
std::string drain_text(const nlohmann::json& e) {
  if (!e.contains("streaming_drain")) return "";
  if (!e.value("streaming_drain", false)) return "; drained to the host with memcpy";
  if (e.contains("streaming_stores")) {
    return e.value("streaming_stores", false)
               ? "; drained to the host with non-temporal stores"
               : "; drained to the host with memcpy (no AVX2 on this CPU)";
  }
  return "; drained to the host with non-temporal stores where the CPU has them";
}

// How the host threads filled a copy's edge chunks to the device; older records do not say.
std::string fill_text(const nlohmann::json& e) {
  if (!e.contains("streaming_fill_edges")) return "";
  if (!e.value("streaming_fill_edges", false)) return "; filled with memcpy";
  if (e.contains("streaming_stores") && !e.value("streaming_stores", false)) {
    return "; filled with memcpy (no AVX2 on this CPU)";
  }
  return "; a copy's first and last chunks filled with non-temporal stores";
}

// Which copies skip the ring: one threshold per direction, or (older records) one for both.
std::string direct_text(const nlohmann::json& e) {
  const auto below = [](const nlohmann::json& j) {
    return j.value("direct_below_bytes", std::uint64_t{0});
  };
  std::vector<std::string> parts;
  if (e.contains("direct_below_bytes")) {
    if (below(e) != 0) parts.push_back("under " + exact_size(below(e)));
  } else {
    if (below(e["to_device"]) != 0) {
      parts.push_back("to the device under " + exact_size(below(e["to_device"])));
    }
    if (below(e["to_host"]) != 0) {
      parts.push_back("to the host under " + exact_size(below(e["to_host"])));
    }
  }
  if (parts.empty()) return "every pageable copy is staged";
  return fmt::format("copies {} go straight to cudaMemcpyAsync", fmt::join(parts, " and "));
}

std::string engine_line(const nlohmann::json& e) {
  if (!e.is_object() || !e.contains("to_device")) return "";
  auto ring = [](const nlohmann::json& r) {
    return fmt::format("{} x {}, {} threads", exact_size(r.value("chunk_bytes", std::uint64_t{0})),
                       r.value("depth", 0), r.value("threads", 0));
  };
  return fmt::format(
      "Engine:  to the device {}; to the host {}; {} page-locked in all; chunks start and end at "
      "{}; {}{}{}{}\n",
      ring(e["to_device"]), ring(e["to_host"]),
      exact_size(e.value("staging_bytes", std::uint64_t{0})),
      exact_size(e.value("edge_chunk_bytes", std::uint64_t{0})), direct_text(e), fill_text(e),
      drain_text(e),
      e.contains("caller_copies") && !e.value("caller_copies", true)
          ? "; a synchronous caller only waits"
          : "");
}

}  // namespace

std::string engine_header(const RunRecord& record, const std::string& title) {
  std::string out = title + "\n\n";
  out += render_machine(record.machine);
  out += fmt::format("Record:  {} by pinbench {}; wall time {:.1f} s\n", record.created_utc,
                     record.pinbench_version, record.wall_ms / 1000.0);
  if (record.config.contains("engine")) out += engine_line(record.config["engine"]);
  return out;
}

}  // namespace pinbench
