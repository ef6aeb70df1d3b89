#include "framework/config_schema.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace pinbench {
namespace {

using json = nlohmann::json;

// The staged engine's options, as the staged reports print them: one number per field.
void check_engine(const json& e, const std::string& field) {
  if (!e.is_object()) refuse_field(field, "is not an object");
  const auto scalar = [&](const json& v, const std::string& f, FieldKind kind) {
    if (v.is_structured()) refuse_type(f, v);
    check_kind(v, f, kind);
  };
  // The reports print both rings once either is there.
  if (e.contains("to_device") != e.contains("to_host")) {
    refuse_field(field, fmt::format("has '{}' but no '{}'",
                                    e.contains("to_device") ? "to_device" : "to_host",
                                    e.contains("to_device") ? "to_host" : "to_device"));
  }
  for (const char* ring : {"to_device", "to_host"}) {
    if (!e.contains(ring)) continue;
    const json& r = e[ring];
    const std::string f = field + "." + ring;
    if (!r.is_object()) refuse_field(f, "is not an object");
    if (r.contains("chunk_bytes")) scalar(r["chunk_bytes"], f + ".chunk_bytes", FieldKind::kSize);
    if (r.contains("depth")) scalar(r["depth"], f + ".depth", FieldKind::kCount);
    if (r.contains("threads")) scalar(r["threads"], f + ".threads", FieldKind::kCount);
    if (r.contains("direct_below_bytes")) {
      scalar(r["direct_below_bytes"], f + ".direct_below_bytes", FieldKind::kSizeOrZero);
    }
  }
  for (const char* key :
       {"staging_bytes", "max_staging_bytes", "edge_chunk_bytes", "direct_below_bytes"}) {
    if (e.contains(key)) scalar(e[key], field + "." + key, FieldKind::kSizeOrZero);
  }
}

}  // namespace

void check_kind(const json& v, const std::string& field, FieldKind kind) {
  switch (kind) {
    case FieldKind::kEngine:
      check_engine(v, field);
      return;
    case FieldKind::kSizes:
    case FieldKind::kCounts:
      if (v.is_array() || v.is_object()) {
        if (kind == FieldKind::kCounts && v.is_object()) refuse_type(field, v);
        std::size_t i = 0;
        for (auto it = v.begin(); it != v.end(); ++it, ++i) {
          check_kind(*it,
                     v.is_array() ? fmt::format("{}[{}]", field, i)
                                  : fmt::format("{}.{}", field, it.key()),
                     kind);
        }
        return;
      }
      check_kind(v, field, kind == FieldKind::kSizes ? FieldKind::kSize : FieldKind::kCount);
      return;
    case FieldKind::kSize:
    case FieldKind::kSizeOrZero:
      if (whole_number(v, field, 0, kMaxRecordSize, "a byte count") == 0 &&
          kind == FieldKind::kSize) {
        refuse_field(field, "is zero; a byte count must be positive");
      }
      return;
    case FieldKind::kCount:
      whole_number(v, field, 0, std::numeric_limits<int>::max(), "a count");
      return;
    case FieldKind::kBigCount:
      whole_number(v, field, 0, kMaxRecordSize, "a count");
      return;
    case FieldKind::kText:
      if (!v.is_string()) refuse_type(field, v);
      return;
    case FieldKind::kFlag:
      flag_of(v, field);
      return;
    case FieldKind::kTimes:
      if (!v.is_array()) refuse_type(field, v);
      for (std::size_t i = 0; i < v.size(); ++i) {
        const std::string item = fmt::format("{}[{}]", field, i);
        if (!v[i].is_number()) refuse_type(item, v[i]);
        const double x = v[i].get<double>();
        if (!(x >= 0.0) || !std::isfinite(x)) {
          refuse_field(item, fmt::format("is {}, not a time", shown(v[i])));
        }
      }
      return;
    case FieldKind::kTexts:
      if (!v.is_array()) refuse_type(field, v);
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (!v[i].is_string()) refuse_type(fmt::format("{}[{}]", field, i), v[i]);
      }
      return;
    case FieldKind::kRatio:
      if (!v.is_number()) refuse_type(field, v);
      if (!(v.get<double>() >= 0.0) || !std::isfinite(v.get<double>())) {
        refuse_field(field, fmt::format("is {}, not a ratio", shown(v)));
      }
      return;
    case FieldKind::kTimestamp:
      timestamp_of(v, field);
      return;
    case FieldKind::kObjects:
      if (!v.is_array()) refuse_type(field, v);
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (!v[i].is_object()) refuse_type(fmt::format("{}[{}]", field, i), v[i]);
      }
      return;
  }
}

void check_fields(const json& j, const std::string& field, const std::vector<ConfigField>& known) {
  if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) {
      check_fields(j[i], fmt::format("{}[{}]", field, i), known);
    }
    return;
  }
  if (!j.is_object()) return;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string sub = field + "." + it.key();
    const auto k = std::find_if(known.begin(), known.end(),
                                [&](const ConfigField& f) { return it.key() == f.key; });
    if (k != known.end()) {
      check_kind(*it, sub, k->kind);
      if (k->kind != FieldKind::kObjects) continue;
    }
    if (it->is_structured()) check_fields(*it, sub, known);
  }
}

std::vector<ConfigField> joined(std::initializer_list<std::vector<ConfigField>> lists) {
  std::vector<ConfigField> out;
  for (const std::vector<ConfigField>& l : lists) out.insert(out.end(), l.begin(), l.end());
  return out;
}

}  // namespace pinbench
