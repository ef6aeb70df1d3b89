#include "framework/skipped.hpp"

namespace pinbench {

std::vector<SkippedCase> skipped_from(const nlohmann::json& config) {
  std::vector<SkippedCase> out;
  const auto it = config.find("skipped");
  if (it == config.end() || !it->is_array()) return out;
  for (const nlohmann::json& s : *it) {
    SkippedCase k;
    k.memory = s.value("memory", "");
    k.method = s.value("method", "");
    k.direction = s.value("direction", "");
    k.reason = s.value("reason", "");
    k.bytes = s.value("bytes", std::uint64_t{1});
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace pinbench
