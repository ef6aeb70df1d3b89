#include "framework/case_builder.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "framework/errors.hpp"
#include "framework/units.hpp"

namespace pinbench {

void Timed::fail(std::string why) {
  if (failed) return;
  failed = true;
  detail = std::move(why);
}

std::string size_token(std::uint64_t bytes) {
  std::string s = format_size(bytes);
  s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
  // format_size rounds to two decimals; a name it cannot say exactly would collide with a
  // neighbouring size's, so such a size is named in bytes.
  bool exact = false;
  try {
    exact = parse_size(s) == bytes;
  } catch (const InputError&) {
  }
  if (exact) return s;
  return bytes % kKiB == 0 ? fmt::format("{}KiB", bytes / kKiB) : fmt::format("{}B", bytes);
}

std::string size_token(std::uint64_t bytes, std::uint64_t host_offset,
                       std::uint64_t device_offset) {
  if (host_offset == 0 && device_offset == 0) return size_token(bytes);
  return fmt::format("{}B@+{}/+{}", bytes, host_offset, device_offset);
}

std::string gate_name(std::initializer_list<std::string_view> parts, std::string_view size) {
  std::string out;
  for (std::string_view p : parts) {
    out.append(p);
    out.push_back('/');
  }
  out.append(size);
  return out;
}

std::string gate_name(std::initializer_list<std::string_view> parts, std::uint64_t bytes) {
  return gate_name(parts, size_token(bytes));
}

namespace {

// A case that never got to sample (its first check failed) still says why it stopped.
std::optional<StopReason> recorded_stop(const Timed& t) {
  if (t.stop != StopReason::kContinue) return t.stop;
  if (t.failed) return StopReason::kGateFailed;
  return std::nullopt;
}

}  // namespace

Case make_case(const CaseSpec& spec, const Timed& t, bool kinds_ok) {
  const std::optional<StopReason> stop = recorded_stop(t);
  const bool verified = !t.failed && kinds_ok && !t.samples_ms.empty();
  // In Case's field order; the builder's test checks every field lands where it belongs.
  return Case{spec.part,
              spec.direction,
              spec.memory,
              spec.method,
              spec.timing,
              spec.bytes,
              spec.warmups,
              t.samples_ms,
              t.call_ms,
              spec.gate,
              verified,
              stop,
              nlohmann::json::object()};
}

Gate sampled_gate(const std::string& name, const Timed& t, const std::string& passed_detail) {
  return {name, !t.failed, t.failed ? t.detail : passed_detail};
}

std::string every_sample_detail(std::size_t samples, std::uint64_t bytes) {
  return fmt::format("every one of {} samples delivered all {} bytes", samples, bytes);
}

std::string mismatch_detail(std::size_t mismatch, std::uint64_t bytes) {
  return fmt::format("first difference at byte {} of {}", mismatch, bytes);
}

Gate bytes_gate(const std::string& name, std::optional<std::size_t> mismatch, std::uint64_t bytes) {
  if (mismatch) return {name, false, mismatch_detail(*mismatch, bytes)};
  return {name, true, fmt::format("all {} bytes match", bytes)};
}

Gate kind_gate_from(const std::string& name, const std::string& seen, const std::string& expected) {
  return {name, seen == expected,
          fmt::format("cudaPointerGetAttributes says {}, expected {}", seen, expected)};
}

bool gates_passed(const std::vector<Gate>& gates, std::size_t first) {
  return std::all_of(gates.begin() + static_cast<std::ptrdiff_t>(std::min(first, gates.size())),
                     gates.end(), [](const Gate& g) { return g.passed; });
}

}  // namespace pinbench
