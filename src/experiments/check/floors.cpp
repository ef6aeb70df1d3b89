#include "experiments/check/floors.hpp"

#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "framework/errors.hpp"
#include "framework/json_fields.hpp"
#include "framework/numbers.hpp"

namespace pinbench::experiments::check {
namespace {

using nlohmann::json;

enum class FloorKind { kShare, kRate, kMicros, kMargin };

// A floor's key, kind and member: a plain one (always set, its default until given) or one that
// is absent until given (a rate in GB/s that replaces the share of the link's rate).
struct FloorKey {
  const char* key;
  FloorKind kind;
  double CheckFloors::*value = nullptr;
  std::optional<double> CheckFloors::*given = nullptr;
};

const FloorKey kFloorKeys[] = {
    {"pinned_share", FloorKind::kShare, &CheckFloors::pinned_share},
    {"pageable_share", FloorKind::kShare, &CheckFloors::pageable_share},
    {"pinned_h2d_gb_per_s", FloorKind::kRate, nullptr, &CheckFloors::pinned_h2d_gb_per_s},
    {"pinned_d2h_gb_per_s", FloorKind::kRate, nullptr, &CheckFloors::pinned_d2h_gb_per_s},
    {"pageable_h2d_gb_per_s", FloorKind::kRate, nullptr, &CheckFloors::pageable_h2d_gb_per_s},
    {"pageable_d2h_gb_per_s", FloorKind::kRate, nullptr, &CheckFloors::pageable_d2h_gb_per_s},
    {"round_trip_p50_us", FloorKind::kMicros, &CheckFloors::round_trip_p50_us},
    {"round_trip_p99_us", FloorKind::kMicros, &CheckFloors::round_trip_p99_us},
    {"peer_margin", FloorKind::kMargin, &CheckFloors::peer_margin},
    {"pin_gb_per_s", FloorKind::kRate, &CheckFloors::pin_gb_per_s},
};

RealRange range_of(FloorKind kind) {
  switch (kind) {
    case FloorKind::kShare:
      return {0.0, 1.0, true, false};
    case FloorKind::kMargin:
      return {0.0, 1.0, false, true};
    case FloorKind::kRate:
    case FloorKind::kMicros:
      break;
  }
  RealRange positive;
  positive.min = 0.0;
  positive.min_excluded = true;
  return positive;
}

// Empty when `v` is a good value for `kind`, else why not.
std::string refusal(FloorKind kind, double v) {
  if (!std::isfinite(v)) return "is not a finite number";
  const RealRange r = range_of(kind);
  const bool inside =
      (r.min_excluded ? v > r.min : v >= r.min) && (r.max_excluded ? v < r.max : v <= r.max);
  if (inside) return "";
  switch (kind) {
    case FloorKind::kShare:
      return "is a share of the link's rate: " + range_words(r);
    case FloorKind::kMargin:
      return "is a margin: " + range_words(r);
    case FloorKind::kRate:
    case FloorKind::kMicros:
      break;
  }
  return "must be positive";
}

void set_floor(CheckFloors& f, const std::string& key, double v) {
  for (const FloorKey& k : kFloorKeys) {
    if (key != k.key) continue;
    if (k.value != nullptr) f.*k.value = v;
    if (k.given != nullptr) f.*k.given = v;
  }
}

const FloorKey* floor_key(const std::string& key) {
  for (const FloorKey& k : kFloorKeys) {
    if (key == k.key) return &k;
  }
  return nullptr;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// One memory kind's rate floors: a share of the link's rate, or per direction where either is
// set in GB/s ("pinned h2d at least 40 GB/s, pinned d2h at least 75% of the link's rate").
std::string rate_floor_words(const char* memory, const std::optional<double>& h2d,
                             const std::optional<double>& d2h, double share) {
  const std::string of_link = fmt::format("at least {:g}% of the link's rate", 100 * share);
  if (!h2d && !d2h) return fmt::format("{} {}", memory, of_link);
  const auto one = [&](const char* direction, const std::optional<double>& v) {
    return fmt::format("{} {} {}", memory, direction,
                       v ? fmt::format("at least {:g} GB/s", *v) : of_link);
  };
  return one("h2d", h2d) + ", " + one("d2h", d2h);
}

}  // namespace

RealRange floor_range(const std::string& key) {
  const FloorKey* k = floor_key(key);
  if (k == nullptr) throw InputError(fmt::format("'{}' is not a floor", key));
  return range_of(k->kind);
}

std::string floors_words(const CheckFloors& f) {
  const bool absolute = f.pinned_h2d_gb_per_s || f.pinned_d2h_gb_per_s || f.pageable_h2d_gb_per_s ||
                        f.pageable_d2h_gb_per_s;
  const std::string rates =
      absolute ? fmt::format("{}, {} (the link's rate at its maximum generation and width)",
                             rate_floor_words("pinned", f.pinned_h2d_gb_per_s,
                                              f.pinned_d2h_gb_per_s, f.pinned_share),
                             rate_floor_words("pageable", f.pageable_h2d_gb_per_s,
                                              f.pageable_d2h_gb_per_s, f.pageable_share))
               : fmt::format(
                     "pinned at least {:g}% and pageable at least {:g}% of the link's rate at its "
                     "maximum generation and width",
                     100 * f.pinned_share, 100 * f.pageable_share);
  return fmt::format(
      "{}; 4 KiB round trip p50 at most {:g} µs, p99 at most {:g} µs; each GPU's pinned "
      "rates within {:g}% of its host's medians; pinning at least {:g} GB/s",
      rates, f.round_trip_p50_us, f.round_trip_p99_us, 100 * f.peer_margin, f.pin_gb_per_s);
}

json to_json(const CheckFloors& f) {
  json j = json::object();
  for (const FloorKey& k : kFloorKeys) {
    if (k.value != nullptr) j[k.key] = f.*k.value;
    if (k.given != nullptr && f.*k.given) j[k.key] = *(f.*k.given);
  }
  return j;
}

CheckFloors floors_from_json(const json& j) {
  CheckFloors f;
  if (!j.is_object()) refuse_field("config.floors", "is not an object");
  for (auto it = j.begin(); it != j.end(); ++it) {
    const FloorKey* k = floor_key(it.key());
    const std::string field = "config.floors." + it.key();
    if (k == nullptr) refuse_field(field, "is not a known floor");
    if (!it->is_number()) refuse_type(field, *it);
    const double v = it->get<double>();
    const std::string why = refusal(k->kind, v);
    if (!why.empty()) refuse_field(field, why);
    set_floor(f, it.key(), v);
  }
  return f;
}

void apply_floors_text(CheckFloors& floors, const std::string& text, const std::string& name) {
  std::istringstream in(text);
  std::string line;
  std::set<std::string> seen;
  for (int n = 1; std::getline(in, line); ++n) {
    const auto fail = [&](const std::string& why) {
      throw InputError(fmt::format("floors file '{}' line {}: {}", name, n, why));
    };
    const std::string body = trim(line.substr(0, line.find('#')));
    if (body.empty()) continue;
    const auto eq = body.find('=');
    if (eq == std::string::npos) fail(fmt::format("'{}' is not KEY = VALUE", body));
    const std::string key = trim(body.substr(0, eq));
    const std::string value = trim(body.substr(eq + 1));
    const FloorKey* k = floor_key(key);
    if (k == nullptr) {
      std::string known;
      for (const FloorKey& f : kFloorKeys)
        known += (known.empty() ? "" : ", ") + std::string(f.key);
      fail(fmt::format("unknown key '{}' (known: {})", key, known));
    }
    if (!seen.insert(key).second) fail(fmt::format("'{}' is set twice", key));
    double v = 0.0;
    try {
      v = read_real(value);  // decimal, finite: the command line's one reader
    } catch (const InputError&) {
      fail(fmt::format("'{}' is not a number for '{}'", value, key));
    }
    const std::string why = refusal(k->kind, v);
    if (!why.empty()) fail(fmt::format("'{}' = {}: {}", key, value, why));
    set_floor(floors, key, v);
  }
}

void apply_floor(CheckFloors& floors, const std::string& key, double value,
                 const std::string& where) {
  const FloorKey* k = floor_key(key);
  if (k == nullptr) throw InputError(fmt::format("{}: '{}' is not a floor", where, key));
  const std::string why = refusal(k->kind, value);
  if (!why.empty()) throw InputError(fmt::format("{} {}: {}", where, value, why));
  set_floor(floors, key, value);
}

}  // namespace pinbench::experiments::check
