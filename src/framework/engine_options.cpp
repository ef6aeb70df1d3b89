#include "framework/engine_options.hpp"

#include <string>

#include <fmt/format.h>

#include "framework/errors.hpp"
#include "framework/numbers.hpp"
#include "framework/text.hpp"

namespace pinbench {

std::vector<int> parse_counts(std::string_view list, const char* what, int min, int max) {
  return parse_list<int>(list, what, [&](std::string_view item) {
    try {
      return read_whole<int>(item, min, max);
    } catch (const InputError&) {
      throw InputError(
          fmt::format("{} '{}' is not a whole number between {} and {}", what, item, min, max));
    }
  });
}

void check_engine_options(const StagedCopyOptions& o) {
  if (const std::string p = staged_options_problem(o); !p.empty()) {
    throw InputError("staged engine: " + p);
  }
}

nlohmann::json to_json(const StagedCopyOptions& o) {
  auto ring = [](const StagingRing& r) {
    return nlohmann::json{{"chunk_bytes", r.chunk_bytes},
                          {"depth", r.depth},
                          {"threads", r.threads},
                          {"direct_below_bytes", r.direct_below_bytes}};
  };
  return {{"to_device", ring(o.to_device)},
          {"to_host", ring(o.to_host)},
          {"edge_chunk_bytes", o.edge_chunk_bytes},
          {"max_staging_bytes", o.max_staging_bytes},
          {"staging_bytes", staging_bytes(o)},
          {"streaming_drain", o.streaming_drain},
          {"caller_copies", o.caller_copies},
          {"streaming_fill_edges", o.streaming_fill_edges},
          {"caller_drives", o.caller_drives},
          {"host_threads", o.host_threads},
          {"prefault_from_bytes", o.prefault_from_bytes},
          {"fresh_huge_pages", o.fresh_huge_pages}};
}

}  // namespace pinbench
