// The block copier's choice (pinbench/block_choice.hpp): the calibration table and rules files
// read and checked, and the method picked for a shape from either.
#include "pinbench/block_choice.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include <nlohmann/json.hpp>

#include "base/enum_names.hpp"
#include "base/slowdown_range.hpp"
#include "base/timestamp.hpp"

namespace pinbench {
namespace {

using Value = nlohmann::json;
using Kind = BlockCalibrationError::Kind;

// The kinds of JSON value the files hold, and their words for error messages.
enum class JsonKind { kNumber, kString, kArray, kObject };

bool is(const Value& v, JsonKind k) {
  switch (k) {
    case JsonKind::kNumber:
      return v.is_number();
    case JsonKind::kString:
      return v.is_string();
    case JsonKind::kArray:
      return v.is_array();
    case JsonKind::kObject:
      return v.is_object();
  }
  return false;
}

constexpr EnumName<JsonKind> kJsonKindWords[] = {{JsonKind::kNumber, "a number"},
                                                 {JsonKind::kString, "a string"},
                                                 {JsonKind::kArray, "an array"},
                                                 {JsonKind::kObject, "an object"}};

const char* kind_words(JsonKind k) {
  return name_in(kJsonKindWords, k, "a value");
}

const char* kind_words(const Value& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "true or false";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  return "an object";
}

// The member `key` of an object, or nullptr when absent (or `obj` is not an object).
const Value* find(const Value& obj, const std::string& key) {
  if (!obj.is_object()) return nullptr;
  const auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

std::string quote(const std::string& s) {
  return Value(s).dump();
}

// One JSON value (nlohmann's parser: strict, and iterative, so depth cannot exhaust the stack).
Value parse_text(std::string_view text, const std::string& where) {
  try {
    return Value::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception& e) {
    throw BlockCalibrationError(Kind::kMalformed, where + ": not JSON (" + e.what() + ")");
  }
}

constexpr const char* kTableSchema = "pinbench.block-calibration";
constexpr const char* kRulesSchema = "pinbench.blocks-recommend";
constexpr std::uint64_t kMaxExactInteger = 1ull << 53;

[[noreturn]] void malformed(const std::string& where, const std::string& what) {
  throw BlockCalibrationError(Kind::kMalformed, where + ": " + what);
}

std::string number_text(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string rate_text(double gb_per_s) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.3g GB/s", gb_per_s);
  return buf;
}

// "4 KiB", "1.5 MiB", "1000 B": sizes in the choice's reasons.
std::string size_words(std::uint64_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  double v = static_cast<double>(b);
  int u = 0;
  while (u < 3 && v >= 1024.0 && (u == 0 ? b % 1024 == 0 || v >= 10240.0 : true)) {
    v /= 1024.0;
    ++u;
  }
  char buf[40];
  if (v == std::floor(v)) {
    std::snprintf(buf, sizeof buf, "%.0f %s", v, units[u]);
  } else {
    std::snprintf(buf, sizeof buf, "%.3g %s", v, units[u]);
  }
  return buf;
}

std::string shape_words(const BlockShape& s) {
  return size_words(s.block_bytes) + " x " + std::to_string(s.count) + " (" +
         to_string(s.direction) + ", " + to_string(s.memory) + ")";
}

// --- reading fields ------------------------------------------------------------------------

const Value& member(const Value& obj, const std::string& key, JsonKind kind,
                    const std::string& where) {
  const Value* v = find(obj, key);
  if (v == nullptr) malformed(where, "\"" + key + "\" is missing");
  if (!is(*v, kind)) {
    malformed(where, "\"" + key + "\" is " + kind_words(*v) + ", not " + kind_words(kind));
  }
  return *v;
}

std::uint64_t as_count(const Value& v, const std::string& key, const std::string& where) {
  const double n = v.is_number() ? v.get<double>() : -1.0;
  if (!v.is_number() || n < 0 || n != std::floor(n) || n > static_cast<double>(kMaxExactInteger)) {
    malformed(where, "\"" + key + "\" is not a whole number of at least 0");
  }
  return static_cast<std::uint64_t>(n);
}

std::uint64_t count_member(const Value& obj, const std::string& key, const std::string& where) {
  return as_count(member(obj, key, JsonKind::kNumber, where), key, where);
}

std::optional<std::uint64_t> optional_count(const Value& obj, const std::string& key,
                                            const std::string& where) {
  const Value* v = find(obj, key);
  if (v == nullptr) return std::nullopt;
  return as_count(*v, key, where);
}

double number_member(const Value& obj, const std::string& key, const std::string& where) {
  return member(obj, key, JsonKind::kNumber, where).get<double>();
}

std::string string_member(const Value& obj, const std::string& key, const std::string& where) {
  return member(obj, key, JsonKind::kString, where).get<std::string>();
}

std::vector<std::uint64_t> grid_member(const Value& obj, const std::string& key,
                                       const std::string& where) {
  std::vector<std::uint64_t> out;
  for (const Value& v : member(obj, key, JsonKind::kArray, where)) {
    out.push_back(as_count(v, key, where));
  }
  return out;
}

// The text parsed, and refused unless it is an object of `schema`, version 1.
Value document_of(std::string_view text, const char* schema, const std::string& where) {
  Value doc = parse_text(text, where);
  if (!is(doc, JsonKind::kObject)) malformed(where, "not a JSON object");
  const std::string s = string_member(doc, "schema", where);
  if (s != schema) malformed(where, "schema \"" + s + "\", not \"" + schema + "\"");
  const double version = number_member(doc, "version", where);
  if (version != 1) malformed(where, "version " + number_text(version) + ", not 1");
  return doc;
}

BlockDeviceIdentity identity_member(const Value& doc, bool need_version, const std::string& where) {
  const Value& m = member(doc, "measured_on", JsonKind::kObject, where);
  BlockDeviceIdentity id;
  id.device = string_member(m, "device", where);
  const double driver = number_member(m, "driver_version", where);
  if (driver != std::floor(driver) || driver < 0 || driver > 1e9) {
    malformed(where, "\"driver_version\" is not a driver version");
  }
  id.driver_version = static_cast<int>(driver);
  if (need_version || find(m, "pinbench_version") != nullptr) {
    id.pinbench_version = string_member(m, "pinbench_version", where);
  }
  return id;
}

// Foreign before stale: another device's figures say nothing of this one at all.
void check_identity(const BlockDeviceIdentity& got, const BlockDeviceIdentity& want,
                    bool check_version, const std::string& where, const std::string& redo) {
  if (got.device != want.device) {
    throw BlockCalibrationError(Kind::kForeign, where + ": measured on \"" + got.device +
                                                    "\", not this device (\"" + want.device +
                                                    "\"); " + redo);
  }
  if (got.driver_version != want.driver_version) {
    throw BlockCalibrationError(
        Kind::kStale, where + ": measured with driver " + std::to_string(got.driver_version) +
                          ", this is " + std::to_string(want.driver_version) + "; " + redo);
  }
  if (check_version && got.pinbench_version != want.pinbench_version) {
    throw BlockCalibrationError(Kind::kStale, where + ": measured by pinbench " +
                                                  got.pinbench_version + ", this is " +
                                                  want.pinbench_version + "; " + redo);
  }
}

// --- the table's grid ------------------------------------------------------------------------

// Where `x` falls on an ascending grid: the two neighbours and the fraction between them, in
// log2; clamped at the ends.
struct Bracket {
  std::size_t lo = 0, hi = 0;
  double t = 0.0;
  bool on_grid = true;
  bool outside = false;
};

Bracket bracket(const std::vector<std::uint64_t>& grid, std::uint64_t x) {
  Bracket b;
  if (x <= grid.front()) {
    b.outside = x < grid.front();
    b.on_grid = !b.outside;
    return b;
  }
  if (x >= grid.back()) {
    b.lo = b.hi = grid.size() - 1;
    b.outside = x > grid.back();
    b.on_grid = !b.outside;
    return b;
  }
  // The last grid point at or below x (x lies strictly inside the grid here).
  const std::size_t i =
      static_cast<std::size_t>(std::upper_bound(grid.begin(), grid.end(), x) - grid.begin()) - 1;
  b.lo = i;
  if (grid[i] == x) return b;
  b.hi = i + 1;
  b.on_grid = false;
  b.t = (std::log2(static_cast<double>(x)) - std::log2(static_cast<double>(grid[i]))) /
        (std::log2(static_cast<double>(grid[i + 1])) - std::log2(static_cast<double>(grid[i])));
  return b;
}

// At each of two block sizes (grid indices si[0], si[1]) and two counts (ci[0], ci[1]), the point
// at (size, count) or, where that count was not measured at that size, the one at the largest
// count below it that was: found in one pass over the table's points.
struct Corners {
  const CalibrationPoint* at[2][2] = {{nullptr, nullptr}, {nullptr, nullptr}};
};

Corners corners(const CalibrationTable& t, const BlockShape& s, BlockMethod m,
                const std::size_t (&si)[2], const std::size_t (&ci)[2]) {
  Corners out;
  std::size_t found[2][2] = {{0, 0}, {0, 0}};  // the count index of what `out` holds
  for (const CalibrationPoint& p : t.points) {
    if (p.direction != s.direction || p.memory != s.memory || p.method != m) continue;
    const auto count = std::lower_bound(t.counts.begin(), t.counts.end(), p.count);
    if (count == t.counts.end() || *count != p.count) continue;
    const auto c = static_cast<std::size_t>(count - t.counts.begin());
    for (int a = 0; a < 2; ++a) {
      if (p.block_bytes != t.sizes[si[a]]) continue;
      for (int b = 0; b < 2; ++b) {
        // The first point of the largest count at or below the corner's.
        if (c <= ci[b] && (out.at[a][b] == nullptr || c > found[a][b])) {
          out.at[a][b] = &p;
          found[a][b] = c;
        }
      }
    }
  }
  return out;
}

struct Prediction {
  double gb_per_s = 0;
  std::optional<double> slowdown_pct;
};

std::optional<Prediction> predict(const CalibrationTable& t, const BlockShape& s, BlockMethod m,
                                  const Bracket& bs, const Bracket& bc) {
  const Corners k = corners(t, s, m, {bs.lo, bs.hi}, {bc.lo, bc.hi});
  const CalibrationPoint* c00 = k.at[0][0];
  const CalibrationPoint* c01 = k.at[0][1];
  const CalibrationPoint* c10 = k.at[1][0];
  const CalibrationPoint* c11 = k.at[1][1];
  if (c00 == nullptr || c01 == nullptr || c10 == nullptr || c11 == nullptr) return std::nullopt;
  const auto mix = [&](double a00, double a01, double a10, double a11) {
    const double lo = a00 + (a01 - a00) * bc.t;
    const double hi = a10 + (a11 - a10) * bc.t;
    return lo + (hi - lo) * bs.t;
  };
  Prediction p;
  p.gb_per_s = std::exp(mix(std::log(c00->gb_per_s), std::log(c01->gb_per_s),
                            std::log(c10->gb_per_s), std::log(c11->gb_per_s)));
  if (c00->slowdown_pct && c01->slowdown_pct && c10->slowdown_pct && c11->slowdown_pct) {
    p.slowdown_pct =
        mix(*c00->slowdown_pct, *c01->slowdown_pct, *c10->slowdown_pct, *c11->slowdown_pct);
  }
  return p;
}

std::vector<BlockMethod> allowed_methods(const BlockChoiceOptions& o) {
  if (!o.allowed.empty()) return o.allowed;
  std::vector<BlockMethod> all;
  for (int i = 0; i < kBlockMethods; ++i) all.push_back(static_cast<BlockMethod>(i));
  return all;
}

bool is_allowed(const BlockChoiceOptions& o, BlockMethod m) {
  return o.allowed.empty() || std::find(o.allowed.begin(), o.allowed.end(), m) != o.allowed.end();
}

void check_shape(const BlockShape& s) {
  if (s.block_bytes == 0 || s.count == 0) {
    throw std::invalid_argument("a batch of blocks to choose for has no bytes");
  }
}

// A rules file's method name as BlockCopier's method, and what was changed on the way.
std::optional<BlockMethod> rules_method(const std::string& name, std::string* note) {
  if (name == "batch-any" || name == "batch-during-call") {
    if (note != nullptr) {
      *note = name + " reads the source outside stream order, so batch-stream in its place";
    }
    return BlockMethod::kBatch;
  }
  const std::string prefix = "kernel-sms";
  if (name.size() > prefix.size() && name.compare(0, prefix.size(), prefix) == 0 &&
      name.find_first_not_of("0123456789", prefix.size()) == std::string::npos) {
    if (note != nullptr) {
      *note = name + " is the kernel at " + name.substr(prefix.size()) +
              " SMs; the copier's kernel takes its own kernel_sms";
    }
    return BlockMethod::kKernel;
  }
  return parse_block_method(name);
}

}  // namespace

// The names the calibration table and rules files carry (base/enum_names.hpp), one table per
// enum, which to_string and the parsers both read.
namespace {
constexpr EnumName<BlockDirection> kBlockDirectionNames[] = {{BlockDirection::kToDevice, "h2d"},
                                                             {BlockDirection::kToHost, "d2h"}};
constexpr EnumName<BlockMemory> kBlockMemoryNames[] = {{BlockMemory::kPinned, "pinned"},
                                                       {BlockMemory::kPageable, "pageable"}};
constexpr EnumName<BlockMethod> kBlockMethodNames[] = {
    {BlockMethod::kBatch, "batch-stream"},
    {BlockMethod::kBatchOverlap, "batch-overlap"},
    {BlockMethod::kLoop, "loop"},
    {BlockMethod::kStaged, "staged"},
    {BlockMethod::kKernel, "kernel"}};
static_assert(std::size(kBlockMethodNames) == kBlockMethods, "one name per method");
}  // namespace

const char* to_string(BlockDirection d) {
  return name_in(kBlockDirectionNames, d);
}
const char* to_string(BlockMemory m) {
  return name_in(kBlockMemoryNames, m);
}
const char* to_string(BlockMethod m) {
  return name_in(kBlockMethodNames, m);
}
std::optional<BlockDirection> parse_block_direction(std::string_view s) {
  return value_named(kBlockDirectionNames, s);
}
std::optional<BlockMemory> parse_block_memory(std::string_view s) {
  return value_named(kBlockMemoryNames, s);
}
std::optional<BlockMethod> parse_block_method(std::string_view s) {
  return value_named(kBlockMethodNames, s);
}

std::string calibration_to_json(const CalibrationTable& t) {
  std::string o = "{\n  \"schema\": \"" + std::string(kTableSchema) + "\",\n  \"version\": 1,\n";
  o += "  \"measured_on\": {\"device\": " + quote(t.identity.device) +
       ", \"driver_version\": " + std::to_string(t.identity.driver_version) +
       ", \"pinbench_version\": " + quote(t.identity.pinbench_version) + "},\n";
  o += "  \"created_utc\": " + quote(t.created_utc) + ",\n";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", t.calibration_s);
  o += "  \"calibration_s\": " + std::string(buf) + ",\n";
  o += "  \"kernel_sms\": " + std::to_string(t.kernel_sms) + ",\n";
  const auto list = [](const std::vector<std::uint64_t>& v) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
  };
  o += "  \"sizes\": " + list(t.sizes) + ",\n  \"counts\": " + list(t.counts) + ",\n";
  o += "  \"points\": [";
  for (std::size_t i = 0; i < t.points.size(); ++i) {
    const CalibrationPoint& p = t.points[i];
    std::snprintf(buf, sizeof buf, "%.9g", p.gb_per_s);
    o += std::string(i ? "," : "") + "\n    {\"direction\": \"" + to_string(p.direction) +
         "\", \"memory\": \"" + to_string(p.memory) + "\", \"method\": \"" + to_string(p.method) +
         "\", \"block_bytes\": " + std::to_string(p.block_bytes) +
         ", \"count\": " + std::to_string(p.count) + ", \"gb_per_s\": " + buf;
    if (p.slowdown_pct) {
      std::snprintf(buf, sizeof buf, "%.6g", *p.slowdown_pct);
      o += std::string(", \"slowdown_pct\": ") + buf;
    }
    o += "}";
  }
  o += "\n  ]\n}\n";
  return o;
}

void validate_calibration(const CalibrationTable& t, const std::string& where) {
  const auto ascending = [&](const std::vector<std::uint64_t>& v, const char* name) {
    if (v.empty()) malformed(where, std::string("\"") + name + "\" is empty");
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (v[i] == 0) malformed(where, std::string("\"") + name + "\" holds a 0");
      if (i > 0 && v[i] <= v[i - 1]) {
        malformed(where, std::string("\"") + name + "\" is not strictly ascending");
      }
    }
  };
  if (!rfc3339_seconds(t.created_utc)) {
    malformed(where, "\"created_utc\" is " + quote(t.created_utc) + ", not " + kTimestampWords);
  }
  ascending(t.sizes, "sizes");
  ascending(t.counts, "counts");
  if (t.points.empty()) malformed(where, "no points");
  std::set<std::tuple<int, int, int, std::uint64_t, std::uint64_t>> seen;
  std::set<std::tuple<int, int, int>> methods;
  for (const CalibrationPoint& p : t.points) {
    const std::string at = std::string(to_string(p.direction)) + " " + to_string(p.memory) + " " +
                           to_string(p.method) + " " + std::to_string(p.block_bytes) + " x " +
                           std::to_string(p.count);
    if (!std::binary_search(t.sizes.begin(), t.sizes.end(), p.block_bytes) ||
        !std::binary_search(t.counts.begin(), t.counts.end(), p.count)) {
      malformed(where, "point " + at + " is not on the grid");
    }
    if (!std::isfinite(p.gb_per_s) || p.gb_per_s <= 0) {
      malformed(where, "point " + at + " has no positive rate");
    }
    if (p.slowdown_pct && !slowdown_in_range(*p.slowdown_pct)) {
      malformed(where, "point " + at + "'s \"slowdown_pct\" is " + number_text(*p.slowdown_pct) +
                           ", not a kernel's slowdown in percent from " +
                           std::to_string(static_cast<int>(kLeastSlowdownPct)) + " to " +
                           std::to_string(static_cast<int>(kMostSlowdownPct)));
    }
    const auto key = std::make_tuple(static_cast<int>(p.direction), static_cast<int>(p.memory),
                                     static_cast<int>(p.method), p.block_bytes, p.count);
    if (!seen.insert(key).second) malformed(where, "point " + at + " appears twice");
    methods.insert(
        {static_cast<int>(p.direction), static_cast<int>(p.memory), static_cast<int>(p.method)});
  }
  // Each method measured in a group has, at every block size, counts from the grid's first on
  // without a gap: what a prediction at a larger count falls back on. The points are distinct,
  // so a method's counts at a size are the grid's first k exactly when it has k of them and the
  // largest is the k-th: counted in one pass, then checked size by size.
  struct Held {
    std::size_t points = 0, last = 0;  // how many, and the largest count's index
  };
  std::map<std::tuple<int, int, int, std::uint64_t>, Held> held;
  for (const auto& [d, m, k, size, count] : seen) {
    Held& h = held[{d, m, k, size}];
    ++h.points;
    const auto c = static_cast<std::size_t>(
        std::lower_bound(t.counts.begin(), t.counts.end(), count) - t.counts.begin());
    h.last = std::max(h.last, c);
  }
  for (const auto& [d, m, k] : methods) {
    for (std::uint64_t size : t.sizes) {
      const auto it = held.find({d, m, k, size});
      const std::string method = to_string(static_cast<BlockMethod>(k));
      if (it == held.end() || seen.count({d, m, k, size, t.counts.front()}) == 0) {
        malformed(where, "method " + method + " has no figure at " + std::to_string(size) +
                             " bytes x " + std::to_string(t.counts.front()));
      }
      if (it->second.last + 1 != it->second.points) {
        malformed(where,
                  "method " + method + " at " + std::to_string(size) + " bytes skips a count");
      }
    }
  }
}

namespace {

// An object's "direction" and "memory", each refused naming the word where it is unknown.
std::pair<BlockDirection, BlockMemory> direction_and_memory(const Value& v,
                                                            const std::string& where) {
  const std::string d = string_member(v, "direction", where);
  const std::string m = string_member(v, "memory", where);
  const auto dir = parse_block_direction(d);
  const auto mem = parse_block_memory(m);
  if (!dir) malformed(where, "unknown direction \"" + d + "\"");
  if (!mem) malformed(where, "unknown memory \"" + m + "\"");
  return {*dir, *mem};
}

}  // namespace

CalibrationTable calibration_from_json(std::string_view text, const BlockDeviceIdentity& expected,
                                       const std::string& where) {
  const Value doc = document_of(text, kTableSchema, where);
  CalibrationTable t;
  t.identity = identity_member(doc, true, where);
  t.created_utc = string_member(doc, "created_utc", where);
  t.calibration_s = number_member(doc, "calibration_s", where);
  t.kernel_sms = static_cast<unsigned>(count_member(doc, "kernel_sms", where));
  t.sizes = grid_member(doc, "sizes", where);
  t.counts = grid_member(doc, "counts", where);
  for (const Value& v : member(doc, "points", JsonKind::kArray, where)) {
    if (!is(v, JsonKind::kObject)) malformed(where, "a point is not an object");
    CalibrationPoint p;
    std::tie(p.direction, p.memory) = direction_and_memory(v, where);
    const std::string k = string_member(v, "method", where);
    const auto method = parse_block_method(k);
    if (!method) malformed(where, "unknown method \"" + k + "\"");
    p.method = *method;
    p.block_bytes = count_member(v, "block_bytes", where);
    p.count = count_member(v, "count", where);
    p.gb_per_s = number_member(v, "gb_per_s", where);
    if (const Value* s = find(v, "slowdown_pct")) {
      if (!is(*s, JsonKind::kNumber)) malformed(where, "\"slowdown_pct\" is not a number");
      p.slowdown_pct = s->get<double>();
    }
    t.points.push_back(p);
  }
  validate_calibration(t, where);
  check_identity(t.identity, expected, true, where, "it is measured again");
  return t;
}

bool BlockRule::covers(std::uint64_t block_bytes, std::uint64_t count) const {
  return (!min_block_bytes || block_bytes >= *min_block_bytes) &&
         (!max_block_bytes || block_bytes <= *max_block_bytes) &&
         (!min_blocks || count >= *min_blocks) && (!max_blocks || count <= *max_blocks);
}

BlockRules rules_from_json(std::string_view text, const BlockDeviceIdentity& expected,
                           const std::string& where) {
  const Value doc = document_of(text, kRulesSchema, where);
  BlockRules r;
  r.identity = identity_member(doc, false, where);
  if (const Value* made = find(doc, "created_utc")) {  // written by --recommend, read by no rule
    if (!made->is_string() || !rfc3339_seconds(made->get<std::string>())) {
      malformed(where, "\"created_utc\" is " + made->dump() + ", not " + kTimestampWords);
    }
  }
  if (const Value* b = find(doc, "max_slowdown_pct")) {
    if (!is(*b, JsonKind::kNumber) || !slowdown_budget_in_range(b->get<double>())) {
      malformed(where, "\"max_slowdown_pct\" is " + b->dump() + ", not " + kSlowdownBudgetWords);
    }
    r.max_slowdown_pct = b->get<double>();
  }
  const auto known = [&](const std::string& method) {
    if (!rules_method(method, nullptr)) malformed(where, "unknown method \"" + method + "\"");
  };
  std::set<std::pair<int, int>> groups;
  for (const Value& c : member(doc, "choices", JsonKind::kArray, where)) {
    if (!is(c, JsonKind::kObject)) malformed(where, "a choice is not an object");
    BlockRuleGroup g;
    std::tie(g.direction, g.memory) = direction_and_memory(c, where);
    if (!groups.insert({static_cast<int>(g.direction), static_cast<int>(g.memory)}).second) {
      malformed(where, "two choices for " + string_member(c, "direction", where) + " " +
                           string_member(c, "memory", where));
    }
    g.fallback = string_member(c, "default", where);
    known(g.fallback);
    for (const Value& rv : member(c, "rules", JsonKind::kArray, where)) {
      if (!is(rv, JsonKind::kObject)) malformed(where, "a rule is not an object");
      BlockRule rule;
      rule.method = string_member(rv, "method", where);
      known(rule.method);
      rule.min_block_bytes = optional_count(rv, "min_block_bytes", where);
      rule.max_block_bytes = optional_count(rv, "max_block_bytes", where);
      rule.min_blocks = optional_count(rv, "min_blocks", where);
      rule.max_blocks = optional_count(rv, "max_blocks", where);
      if ((rule.min_block_bytes && rule.max_block_bytes &&
           *rule.min_block_bytes > *rule.max_block_bytes) ||
          (rule.min_blocks && rule.max_blocks && *rule.min_blocks > *rule.max_blocks)) {
        malformed(where, "a rule for " + rule.method + " has bounds the wrong way round");
      }
      g.rules.push_back(rule);
    }
    r.groups.push_back(std::move(g));
  }
  if (r.groups.empty()) malformed(where, "no choices");
  check_identity(r.identity, expected, false, where,
                 "measure it again with pinbench blocks --recommend");
  return r;
}

std::optional<double> predict_block_rate(const CalibrationTable& t, const BlockShape& s,
                                         BlockMethod m) {
  check_shape(s);
  const auto p = predict(t, s, m, bracket(t.sizes, s.block_bytes), bracket(t.counts, s.count));
  if (!p) return std::nullopt;
  return p->gb_per_s;
}

BlockChoice choose_block_method(const CalibrationTable& t, const BlockShape& s,
                                const BlockChoiceOptions& o) {
  check_shape(s);
  const Bracket bs = bracket(t.sizes, s.block_bytes);
  const Bracket bc = bracket(t.counts, s.count);
  struct Candidate {
    BlockMethod method;
    Prediction p;
  };
  std::vector<Candidate> all;
  for (BlockMethod m : allowed_methods(o)) {
    if (const auto p = predict(t, s, m, bs, bc)) all.push_back({m, *p});
  }
  if (all.empty()) {
    throw std::invalid_argument(std::string("the calibration has no figures for ") +
                                to_string(s.direction) + " " + to_string(s.memory) +
                                " among the methods allowed here");
  }
  BlockChoice c;
  c.interpolated = !bs.on_grid || !bc.on_grid;
  c.outside_grid = bs.outside || bc.outside;
  std::string budget_note;
  std::vector<Candidate> pool = all;
  if (o.max_slowdown_pct) {
    const bool measured =
        std::all_of(all.begin(), all.end(), [](const Candidate& x) { return x.p.slowdown_pct; });
    if (!measured) {
      budget_note = " The slowdown budget of " + number_text(*o.max_slowdown_pct) +
                    "% is not applied: the calibration has no figures beside compute for it "
                    "(budget not measured).";
    } else {
      c.budget_applied = true;
      pool.clear();
      for (const Candidate& x : all) {
        if (*x.p.slowdown_pct <= *o.max_slowdown_pct) pool.push_back(x);
      }
      if (pool.empty()) {
        const auto least = std::min_element(
            all.begin(), all.end(),
            [](const auto& x, const auto& y) { return *x.p.slowdown_pct < *y.p.slowdown_pct; });
        pool.push_back(*least);
        budget_note = " No method holds the slowdown budget of " +
                      number_text(*o.max_slowdown_pct) + "%: this one slows the kernel least (" +
                      number_text(*least->p.slowdown_pct) + "%).";
      } else {
        budget_note = " Within the slowdown budget of " + number_text(*o.max_slowdown_pct) + "%.";
      }
    }
  }
  double best = 0;
  for (const Candidate& x : pool) best = std::max(best, x.p.gb_per_s);
  // The earliest method, in BlockMethod's order, within the tie of the fastest.
  const Candidate* pick = nullptr;
  for (const Candidate& x : pool) {
    if (x.p.gb_per_s * kBlockChoiceTie >= best &&
        (pick == nullptr || static_cast<int>(x.method) < static_cast<int>(pick->method))) {
      pick = &x;
    }
  }
  const Candidate* fastest = &pool.front();
  for (const Candidate& x : pool) {
    if (x.p.gb_per_s > fastest->p.gb_per_s) fastest = &x;
  }
  const Candidate* runner = nullptr;  // the fastest other method, over every candidate
  for (const Candidate& x : all) {
    if (x.method != pick->method && (runner == nullptr || x.p.gb_per_s > runner->p.gb_per_s)) {
      runner = &x;
    }
  }
  c.method = pick->method;
  c.predicted_gb_per_s = pick->p.gb_per_s;
  c.reason = std::string(to_string(c.method)) + ": " + rate_text(pick->p.gb_per_s) +
             " predicted for " + shape_words(s);
  if (fastest->method != pick->method) {
    c.reason += ", within 3% of " + std::string(to_string(fastest->method)) + " (" +
                rate_text(fastest->p.gb_per_s) + ") and earlier in the copier's order";
  } else if (runner != nullptr) {
    c.reason += ", " + number_text(pick->p.gb_per_s / runner->p.gb_per_s) + "x " +
                to_string(runner->method) + " (" + rate_text(runner->p.gb_per_s) + ")";
  }
  c.reason += c.outside_grid   ? "; outside the calibrated grid, the nearest edge's figures."
              : c.interpolated ? "; interpolated between grid points."
                               : "; a grid point.";
  c.reason += budget_note;
  return c;
}

BlockChoice choose_block_method(const BlockRules& r, const BlockShape& s,
                                const BlockChoiceOptions& o) {
  check_shape(s);
  BlockChoice c;
  const BlockRuleGroup* group = nullptr;
  for (const BlockRuleGroup& g : r.groups) {
    if (g.direction == s.direction && g.memory == s.memory) group = &g;
  }
  const BlockMethod first_allowed = allowed_methods(o).front();
  std::string note;
  if (group == nullptr) {
    c.method = first_allowed;
    c.reason = std::string(to_string(c.method)) + " for " + shape_words(s) +
               ": the rules have no choice for " + to_string(s.direction) + " " +
               to_string(s.memory) + " memory, so the first method in the copier's order.";
  } else {
    const BlockRule* hit = nullptr;
    for (const BlockRule& rule : group->rules) {
      if (rule.covers(s.block_bytes, s.count)) {
        hit = &rule;
        break;
      }
    }
    const std::string name = hit != nullptr ? hit->method : group->fallback;
    const BlockMethod m = *rules_method(name, &note);
    c.reason = std::string(to_string(m)) + " for " + shape_words(s) + ": " +
               (hit != nullptr ? "a rule of the rules file" : "the rules' default") + ".";
    if (!note.empty()) c.reason += " " + note + ".";
    c.method = m;
    if (!is_allowed(o, m)) {
      c.method = first_allowed;
      c.reason += std::string(" It cannot move this batch, so ") + to_string(first_allowed) + ".";
    }
  }
  if (o.max_slowdown_pct) {
    if (r.max_slowdown_pct && *r.max_slowdown_pct <= *o.max_slowdown_pct) {
      c.budget_applied = true;
      c.reason += " The rules were made for a slowdown budget of " +
                  number_text(*r.max_slowdown_pct) + "%, within the " +
                  number_text(*o.max_slowdown_pct) + "% asked.";
    } else {
      c.reason += " The slowdown budget of " + number_text(*o.max_slowdown_pct) +
                  "% is not applied: the rules were made " +
                  (r.max_slowdown_pct ? "for a budget of " + number_text(*r.max_slowdown_pct) + "%"
                                      : std::string("without one")) +
                  " (budget not measured).";
    }
  }
  return c;
}

}  // namespace pinbench
