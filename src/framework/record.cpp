#include "framework/record.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>
#include <map>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "framework/config_schema.hpp"
#include "framework/errors.hpp"
#include "framework/input_limits.hpp"
#include "framework/json_fields.hpp"
#include "framework/printable.hpp"
#include "framework/stats.hpp"
#include "framework/text_file.hpp"

namespace pinbench {

using nlohmann::json;

const Case* RunRecord::find(const std::string& part, const std::string& direction,
                            const std::string& memory, std::uint64_t bytes) const {
  for (const Case& c : cases) {
    if (c.part == part && c.direction == direction && c.memory == memory && c.bytes == bytes) {
      return &c;
    }
  }
  return nullptr;
}

Case* RunRecord::find(const std::string& part, const std::string& direction,
                      const std::string& memory, std::uint64_t bytes) {
  return const_cast<Case*>(std::as_const(*this).find(part, direction, memory, bytes));
}

std::vector<std::reference_wrapper<const Case>> RunRecord::cases_of(std::string_view part) const {
  std::vector<std::reference_wrapper<const Case>> of;
  for (const Case& c : cases) {
    if (c.part == part) of.emplace_back(c);
  }
  return of;
}

bool RunRecord::all_gates_passed() const {
  for (const Gate& g : gates) {
    if (!g.passed) return false;
  }
  return true;
}

const json& RunRecord::section(const std::string& key) const {
  static const json none;
  const auto it = sections.find(key);
  return it == sections.end() ? none : it->second;
}

namespace {

json to_json(const PcieLink& p) {
  return json{{"current_gen", p.current_gen},     {"max_gen", p.max_gen},
              {"current_width", p.current_width}, {"max_width", p.max_width},
              {"current_speed", p.current_speed}, {"max_speed", p.max_speed}};
}

json to_json(const GpuInfo& g) {
  json j{{"index", g.index},           {"name", g.name},           {"uuid", g.uuid},
         {"pci_bus_id", g.pci_bus_id}, {"numa_node", g.numa_node}, {"cpu_list", g.cpu_list},
         {"pcie", to_json(g.pcie)}};
  if (g.loaded_read) j["pcie_loaded"] = to_json(g.pcie_loaded);
  return j;
}

json to_json(const MachineInfo& m) {
  json j{{"hostname", m.hostname},
         {"device_index", m.device_index},
         {"device_uuid", m.device_uuid},
         {"cpu_list", m.cpu_list},
         {"device_name", m.device_name},
         {"compute_capability", fmt::format("{}.{}", m.cc_major, m.cc_minor)},
         {"sm_count", m.sm_count},
         {"copy_engines", m.copy_engines},
         {"device_memory_bytes", m.device_memory_bytes},
         {"pci_bus_id", m.pci_bus_id},
         {"driver_version", m.driver_version},
         {"runtime_version", m.runtime_version},
         {"driver_release", m.driver_release},
         {"pcie", to_json(m.pcie)},
         {"numa_node", m.numa_node},
         {"host_cpu", m.host_cpu},
         {"host_logical_cpus", m.host_logical_cpus},
         {"host_memory_bytes", m.host_memory_bytes},
         {"os", m.os},
         {"pageable_memory_access", m.pageable_memory_access},
         {"pageable_memory_access_uses_host_page_tables",
          m.pageable_memory_access_uses_host_page_tables},
         {"host_numa_nodes", m.host_numa_nodes}};
  if (!m.no_device.empty()) j["no_device"] = m.no_device;
  if (!m.gpus.empty()) {
    json gpus = json::array();
    for (const GpuInfo& g : m.gpus) gpus.push_back(to_json(g));
    j["gpus"] = std::move(gpus);
  }
  return j;
}

json to_json(const Gate& g) {
  return json{{"name", g.name}, {"passed", g.passed}, {"detail", g.detail}};
}

// Times are kept to the nanosecond: finer than any timer pinbench reads, and short in JSON.
std::vector<double> to_ns_resolution(const std::vector<double>& ms) {
  std::vector<double> out;
  out.reserve(ms.size());
  for (double x : ms) out.push_back(std::round(x * 1e6) / 1e6);
  return out;
}

json to_json(const Case& c) {
  json j{{"part", c.part},        {"direction", c.direction},   {"memory", c.memory},
         {"method", c.method},    {"timing", c.timing},         {"bytes", c.bytes},
         {"warmups", c.warmups},  {"samples_ms", c.samples_ms}, {"gate", c.gate},
         {"verified", c.verified}};
  if (!c.call_ms.empty()) j["call_ms"] = to_ns_resolution(c.call_ms);
  if (c.stop) j["stop"] = to_string(*c.stop);
  // Derived from the samples, written for readers of the JSON alone; never read back.
  j["spread"] = std::round(relative_spread(c.samples_ms) * 1e6) / 1e6;
  const StabilityCheck st = check_stability(c.samples_ms);
  j["stability"] = to_string(st.stability);
  if (!st.detail.empty()) j["stability_detail"] = st.detail;
  if (!c.extra.empty()) j["extra"] = c.extra;
  return j;
}

// ---- Reading ----
//
// One validation, on the one path every reader takes (record_from_json, and load_record over
// it): a record passes whole or is refused with one line naming the field, and load_record adds
// the file. The rules are listed in docs/record-schema.md, "Validation".

// A timed sample shorter than the nanosecond records are kept to, or longer than a day, is not
// a copy pinbench timed: it is a damaged or hand-edited record.
constexpr double kMinSampleMs = 1e-6;
constexpr double kMaxSampleMs = 86400e3;

// Every field is looked up by name with its path in the message (JsonFields, the one way records
// are checked: json_fields.hpp), so a foreign or damaged file is reported as "run record:
// 'cases[3].bytes' is missing", not as a crash.

// A count that a record's common part holds as an int: 0 (or `lo`) to `hi`.
int count_of(const JsonFields& r, const char* key, int lo = 0,
             int hi = std::numeric_limits<int>::max()) {
  return static_cast<int>(r.whole(key, lo, hi));
}
int count_or(const JsonFields& r, const char* key, int fallback, int lo = 0,
             int hi = std::numeric_limits<int>::max()) {
  return r.has(key) ? count_of(r, key, lo, hi) : fallback;
}

// Digits only, so "9.0abc" and "-1.5" are not capabilities.
bool parse_capability(const std::string& cc, int* major, int* minor) {
  const std::size_t dot = cc.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == cc.size() || dot > 3 ||
      cc.size() - dot - 1 > 3) {
    return false;
  }
  for (std::size_t i = 0; i < cc.size(); ++i) {
    if (i != dot && !std::isdigit(static_cast<unsigned char>(cc[i]))) return false;
  }
  *major = std::stoi(cc.substr(0, dot));
  *minor = std::stoi(cc.substr(dot + 1));
  return true;
}

PcieLink link_from(const JsonFields& p) {
  PcieLink link;
  link.current_gen = count_of(p, "current_gen", 0, kMaxLinkCount);
  link.max_gen = count_of(p, "max_gen", 0, kMaxLinkCount);
  link.current_width = count_of(p, "current_width", 0, kMaxLinkCount);
  link.max_width = count_of(p, "max_width", 0, kMaxLinkCount);
  link.current_speed = p.text("current_speed");
  link.max_speed = p.text("max_speed");
  return link;
}

GpuInfo gpu_from(const JsonFields& r) {
  GpuInfo g;
  g.index = count_of(r, "index", 0, kMaxGpuIndex);
  g.name = r.text("name");
  g.uuid = r.text("uuid");
  g.pci_bus_id = r.text("pci_bus_id");
  g.numa_node = count_of(r, "numa_node", -1);
  g.cpu_list = r.text_or("cpu_list", "");
  g.pcie = link_from(r.child("pcie"));
  if (r.has("pcie_loaded")) {
    g.pcie_loaded = link_from(r.child("pcie_loaded"));
    g.loaded_read = true;
  }
  return g;
}

MachineInfo machine_from(const JsonFields& r) {
  MachineInfo m;
  m.hostname = r.text_or("hostname", "");
  m.device_index = count_or(r, "device_index", 0, 0, 1 << 16);
  m.device_uuid = r.text_or("device_uuid", "");
  m.cpu_list = r.text_or("cpu_list", "");
  if (r.has("gpus")) {
    const json& gpus = r.array("gpus");
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      m.gpus.push_back(gpu_from(JsonFields(gpus[i], r.field(fmt::format("gpus[{}]", i)))));
    }
    for (std::size_t i = 0; i < m.gpus.size(); ++i) {
      for (std::size_t k = 0; k < i; ++k) {
        if (m.gpus[k].index == m.gpus[i].index) {
          refuse_field(r.field(fmt::format("gpus[{}].index", i)),
                       fmt::format("is {}, as gpus[{}] is: one entry per GPU", m.gpus[i].index, k));
        }
      }
    }
  }
  m.device_name = r.text("device_name");
  const std::string cc = r.text("compute_capability");
  if (!parse_capability(cc, &m.cc_major, &m.cc_minor)) {
    refuse_field(r.field("compute_capability"), fmt::format("is '{}', not MAJOR.MINOR", cc));
  }
  m.sm_count = count_of(r, "sm_count");
  m.copy_engines = count_of(r, "copy_engines");
  // 0 where the source does not say (published records).
  m.device_memory_bytes = r.bytes("device_memory_bytes");
  m.pci_bus_id = r.text("pci_bus_id");
  m.driver_version = count_of(r, "driver_version");
  m.runtime_version = count_of(r, "runtime_version");
  m.driver_release = r.text_or("driver_release", "");
  m.pcie = link_from(r.child("pcie"));
  m.numa_node = count_of(r, "numa_node", -1);
  m.host_cpu = r.text("host_cpu");
  m.host_logical_cpus = count_of(r, "host_logical_cpus");
  m.host_memory_bytes = r.bytes("host_memory_bytes");
  m.os = r.text("os");
  m.pageable_memory_access = count_or(r, "pageable_memory_access", 0, 0, 1);
  m.pageable_memory_access_uses_host_page_tables =
      count_or(r, "pageable_memory_access_uses_host_page_tables", 0, 0, 1);
  m.host_numa_nodes = count_or(r, "host_numa_nodes", 0, 0, 1 << 16);
  m.no_device = r.text_or("no_device", "");
  if (!m.no_device.empty() && !m.device_name.empty()) {
    refuse_field(r.field("no_device"),
                 fmt::format("says why no GPU is described, but one is ('{}')", m.device_name));
  }
  return m;
}

// Timed samples: at least one, each a finite time of 1 ns to a day.
std::vector<double> times_from(const JsonFields& r, const char* key) {
  const json& a = r.array(key);
  const std::string field = r.field(key);
  if (a.empty()) refuse_field(field, "is empty: a case without samples has no figure to show");
  std::vector<double> out;
  out.reserve(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    const json& v = a[i];
    // The item's name is made only for a refusal: a fleet reads millions of samples.
    const auto item = [&] { return fmt::format("{}[{}]", field, i); };
    if (!v.is_number()) refuse_type(item(), v);
    const double x = v.get<double>();
    if (!(x > 0.0)) {
      refuse_field(item(), fmt::format("is {} ms; a timed sample takes a positive time", shown(v)));
    }
    if (x < kMinSampleMs) refuse_field(item(), fmt::format("is {} ms, less than 1 ns", shown(v)));
    if (x > kMaxSampleMs) refuse_field(item(), fmt::format("is {} ms, more than a day", shown(v)));
    out.push_back(x);
  }
  return out;
}

const std::vector<ConfigField>& trace_fields() {
  static const std::vector<ConfigField> fields = {
      {"api_calls", FieldKind::kBigCount},
      {"copies", FieldKind::kBigCount},
      {"kernels", FieldKind::kBigCount},
      {"nvtx_ranges", FieldKind::kBigCount},
      {"dropped_records", FieldKind::kBigCount},
      {"bytes", FieldKind::kSize},
      {"warmups", FieldKind::kCount},
      {"call_ns", FieldKind::kTimes},
      {"source", FieldKind::kText},
      {"file", FieldKind::kText},
      {"selection", FieldKind::kText},
      {"unusable", FieldKind::kText},
      {"notes", FieldKind::kTexts},
  };
  return fields;
}

// Builds the document like nlohmann's own parser, but knows where it is, so a number past a
// double ("bytes": 1e400) is named by its field, and nesting is bounded.
class PathSax : public nlohmann::json_sax<json> {
 public:
  PathSax(json* root, std::string what) : root_(root), what_(std::move(what)) {}

  bool null() override { return scalar(json(nullptr)); }
  bool boolean(bool v) override { return scalar(json(v)); }
  bool number_integer(number_integer_t v) override { return scalar(json(v)); }
  bool number_unsigned(number_unsigned_t v) override { return scalar(json(v)); }
  bool number_float(number_float_t v, const string_t&) override { return scalar(json(v)); }
  bool string(string_t& v) override { return scalar(json(std::move(v))); }
  bool binary(binary_t&) override { return fail_here("holds binary data"); }
  bool start_object(std::size_t) override { return open(json::object(), false); }
  bool key(string_t& k) override {
    frames_.back().key = k;
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(json::array(), true); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t position, const std::string& token,
                   const nlohmann::detail::exception& e) override {
    byte_ = position;
    if (e.id == 406) {
      // The lexer refused a number too large for a double: name the field it was for.
      error_ = fmt::format("{}: '{}' is {}, a number out of range", what_, next_path(),
                           token.size() > 40 ? token.substr(0, 37) + "..." : token);
    }
    // The lexer's words for a byte that no UTF-8 sequence allows.
    not_utf8_ = std::string_view(e.what()).find("ill-formed UTF-8") != std::string_view::npos;
    // The text stopped before the JSON did: the one case "truncated?" is a fair guess.
    ended_ = std::string_view(e.what()).find("unexpected end of input") != std::string_view::npos;
    return false;
  }

  const std::string& error() const { return error_; }
  bool not_utf8() const { return not_utf8_; }
  bool ended() const { return ended_; }
  std::size_t byte() const { return byte_; }

 private:
  bool not_utf8_ = false;
  bool ended_ = false;
  struct Frame {
    json* value;
    bool array;
    std::size_t next = 0;  // arrays: the index of the next element
    std::string key;       // objects: the key of the value coming
  };

  json* put(json v) {
    if (frames_.empty()) {
      *root_ = std::move(v);
      return root_;
    }
    Frame& f = frames_.back();
    if (f.array) {
      f.value->push_back(std::move(v));
      ++f.next;
      return &f.value->back();
    }
    json& slot = (*f.value)[f.key];
    slot = std::move(v);
    return &slot;
  }
  bool scalar(json v) {
    put(std::move(v));
    return true;
  }

  bool open(json v, bool array) {
    if (frames_.size() >= static_cast<std::size_t>(kMaxJsonDepth)) {
      return fail_here(fmt::format("is nested deeper than {} levels", kMaxJsonDepth));
    }
    json* p = put(std::move(v));
    frames_.push_back(Frame{p, array, 0, std::string()});
    return true;
  }
  bool close() {
    frames_.pop_back();
    return true;
  }
  bool fail_here(const std::string& what) {
    error_ = fmt::format("{}: '{}' {}", what_, next_path(), what);
    return false;
  }

  // The path of the value being read: "cases[3].bytes".
  std::string next_path() const {
    std::string p;
    for (std::size_t k = 0; k < frames_.size(); ++k) {
      const Frame& f = frames_[k];
      const bool last = k + 1 == frames_.size();
      if (f.array) {
        // Inside an array the element being read is the next one, unless a deeper frame is.
        p += fmt::format("[{}]", last ? f.next : f.next - 1);
      } else {
        p += (p.empty() ? "" : ".") + f.key;
      }
    }
    return p.empty() ? "(top level)" : p;
  }

  json* root_;
  std::string what_;
  std::vector<Frame> frames_;
  std::string error_;
  std::size_t byte_ = 0;
};

// The checks that span fields: every case's gate exists, a verified case's gate passed, and an
// unverified case has a failed gate somewhere in the record. Names may repeat (a gate run at
// several points); then every gate of that name must have passed.
void check_consistency(const RunRecord& rec) {
  std::map<std::string, std::size_t> failed_at;  // the first failed gate of each name
  std::map<std::string, std::size_t> first_at;
  for (std::size_t i = 0; i < rec.gates.size(); ++i) {
    first_at.emplace(rec.gates[i].name, i);
    if (!rec.gates[i].passed) failed_at.emplace(rec.gates[i].name, i);
  }
  for (std::size_t i = 0; i < rec.cases.size(); ++i) {
    const Case& c = rec.cases[i];
    if (first_at.count(c.gate) == 0) {
      refuse_field(fmt::format("cases[{}].gate", i),
                   fmt::format("names '{}', which is not in 'gates'", c.gate));
    }
    const auto failed = failed_at.find(c.gate);
    if (c.verified && failed != failed_at.end()) {
      refuse_field(
          fmt::format("cases[{}].verified", i),
          fmt::format("is true, but its gate '{}' (gates[{}]) failed", c.gate, failed->second));
    }
    // Else the report would print dashes for it under "all gates passed".
    if (!c.verified && failed_at.empty()) {
      refuse_field(fmt::format("cases[{}].verified", i),
                   "is false, yet no gate in the record failed");
    }
    if (!c.call_ms.empty() && c.call_ms.size() != c.samples_ms.size()) {
      refuse_field(
          fmt::format("cases[{}].call_ms", i),
          fmt::format("has {} entries for {} samples", c.call_ms.size(), c.samples_ms.size()));
    }
  }
}

}  // namespace

const std::vector<ConfigField>& framework_extra_fields() {
  static const std::vector<ConfigField> fields = {{"host_numa_node", FieldKind::kCount},
                                                  {"stop", FieldKind::kText}};
  return fields;
}

json to_json(const RunRecord& r) {
  json cases = json::array();
  for (const Case& c : r.cases) cases.push_back(to_json(c));
  json gates = json::array();
  for (const Gate& g : r.gates) gates.push_back(to_json(g));
  json j{{"schema", kRecordSchema},
         {"schema_version", r.schema_version},
         {"experiment", r.experiment},
         {"pinbench_version", r.pinbench_version},
         {"created_utc", r.created_utc},
         {"source", r.source},
         {"note", r.note},
         {"machine", to_json(r.machine)},
         {"config", r.config},
         {"gates", gates},
         {"cases", cases},
         {"wall_ms", r.wall_ms}};
  if (!r.trace.is_null()) j["trace"] = r.trace;
  for (const auto& [key, section] : r.sections) {
    if (!section.is_null()) j[key] = section;
  }
  if (r.incomplete) j["incomplete"] = {{"interrupted_by", r.interrupted_by}};
  return j;
}

RunRecord common_record_from_json(const json& j) {
  if (!j.is_object() || !j.contains("schema") || j["schema"] != kRecordSchema) {
    throw InputError("not a pinbench run record (no \"schema\": \"pinbench.run\" field)");
  }
  const JsonFields r(j, "");
  RunRecord rec;
  const json& version = r.at("schema_version");
  if (!version.is_number_integer() || version.get<std::int64_t>() < 1 ||
      version.get<std::int64_t>() > kRecordSchemaVersion) {
    throw InputError(fmt::format("run record has schema version {}, this pinbench reads 1 to {}",
                                 shown(version), kRecordSchemaVersion));
  }
  rec.schema_version = version.get<int>();
  rec.experiment = r.name_text("experiment");
  rec.pinbench_version = r.text("pinbench_version");
  rec.created_utc = r.text("created_utc");
  if (!rfc3339_seconds(rec.created_utc)) {
    refuse_field("created_utc",
                 fmt::format("is {}, not {}", shown(r.at("created_utc")), kTimestampWords));
  }
  rec.source = r.text_or("source", "measured");
  if (rec.source != "measured" && rec.source != "published") {
    refuse_field("source",
                 fmt::format("is {}, not \"measured\" or \"published\"", shown(r.at("source"))));
  }
  rec.note = r.text_or("note", "");
  rec.machine = machine_from(r.child("machine"));
  if (j.contains("config")) {
    if (!j["config"].is_object()) refuse_field("config", "is not an object");
    rec.config = j["config"];  // its keys are its experiment's (framework/by_experiment.cpp)
  }
  const json& gates = r.array("gates");
  for (std::size_t i = 0; i < gates.size(); ++i) {
    const JsonFields g(gates[i], fmt::format("gates[{}]", i));
    rec.gates.push_back({g.name_text("name"), g.flag("passed"), g.text_or("detail", "")});
  }
  const json& cases = r.array("cases");
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const JsonFields c(cases[i], fmt::format("cases[{}]", i));
    Case k;
    // The case's words, in the order they are checked.
    for (const auto& [key, word] : {std::pair{"part", &Case::part},
                                    {"direction", &Case::direction},
                                    {"memory", &Case::memory},
                                    {"method", &Case::method},
                                    {"timing", &Case::timing}}) {
      k.*word = c.name_text(key);
    }
    k.bytes = c.size("bytes");
    k.warmups = count_of(c, "warmups");
    k.samples_ms = times_from(c, "samples_ms");
    if (c.has("call_ms")) k.call_ms = times_from(c, "call_ms");
    k.gate = c.name_text("gate");
    k.verified = c.flag("verified");
    if (c.has("extra")) {
      const json& extra = c.at("extra");
      if (!extra.is_object()) refuse_field(c.field("extra"), "is not an object");
      check_fields(extra, c.field("extra"), framework_extra_fields());
      k.extra = extra;
    }
    // Sweep records made before cases carried "stop" kept it in "extra".
    const std::string stop =
        c.text_or("stop", k.extra.contains("stop") ? k.extra["stop"].get<std::string>() : "");
    if (!stop.empty()) {
      const StopReason reason = parse_stop_reason(stop);
      if (reason == StopReason::kContinue)
        refuse_field(c.field("stop"), fmt::format("is '{}', not a known reason", stop));
      k.stop = reason;
    }
    rec.cases.push_back(std::move(k));
  }
  rec.wall_ms = r.number("wall_ms");
  if (!std::isfinite(rec.wall_ms) || rec.wall_ms < 0.0) {
    refuse_field("wall_ms", fmt::format("is {}; a wall time is finite and not negative",
                                        shown(r.at("wall_ms"))));
  }
  if (j.contains("incomplete")) {
    const JsonFields inc = r.child("incomplete");
    rec.incomplete = true;
    rec.interrupted_by = inc.text("interrupted_by");
    if (rec.interrupted_by.empty()) refuse_field("incomplete.interrupted_by", "is empty");
  }
  if (j.contains("trace") && !j["trace"].is_null()) {
    if (!j["trace"].is_object()) refuse_field("trace", "is not an object");
    check_fields(j["trace"], "trace", trace_fields());
    rec.trace = j["trace"];
  }
  check_consistency(rec);
  return rec;
}

json parse_json_text(std::string_view text, const std::string& what) {
  json j;
  PathSax sax(&j, what);
  if (json::sax_parse(text, &sax, json::input_format_t::json, true, false)) return j;
  if (!sax.error().empty()) throw InputError(sax.error());
  if (sax.not_utf8()) {
    const std::size_t at = first_non_utf8(text);
    throw InputError(fmt::format("is not valid UTF-8 at byte {} (JSON text is UTF-8)",
                                 at != std::string_view::npos ? at : sax.byte()));
  }
  throw InputError(fmt::format("is not valid JSON{} near byte {}",
                               sax.ended() ? " (truncated?)" : "", sax.byte()));
}

json parse_record_text(std::string_view text) {
  return parse_json_text(text, "run record");
}

void save_record(const RunRecord& record, const std::string& path) {
  write_text_file(path, to_json(record).dump(1) + "\n");
}

std::string utc_now_iso8601() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace pinbench
