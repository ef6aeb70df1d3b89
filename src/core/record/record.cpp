#include "core/record/record.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#include "core/errors.hpp"
#include "core/stats.hpp"
#include "core/text_file.hpp"

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

bool RunRecord::all_gates_passed() const {
  for (const Gate& g : gates) {
    if (!g.passed) return false;
  }
  return true;
}

namespace {

json to_json(const PcieLink& p) {
  return json{{"current_gen", p.current_gen},     {"max_gen", p.max_gen},
              {"current_width", p.current_width}, {"max_width", p.max_width},
              {"current_speed", p.current_speed}, {"max_speed", p.max_speed}};
}

json to_json(const MachineInfo& m) {
  return json{{"device_name", m.device_name},
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
              {"pageable_memory_access", m.pageable_memory_access}};
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

// Reading: every field is looked up by name with its path in the message, so a foreign or
// damaged file is reported as "run record: 'cases[3].bytes' is missing", not as a crash.
class Reader {
 public:
  Reader(const json& j, std::string path) : j_(j), path_(std::move(path)) {
    if (!j_.is_object()) fail("is not an object");
  }

  template <typename T>
  T get(const char* key) const {
    const json& v = at(key);
    try {
      return v.get<T>();
    } catch (const json::exception&) {
      throw InputError(
          fmt::format("run record: '{}' has the wrong type ({})", name(key), v.type_name()));
    }
  }

  template <typename T>
  T get_or(const char* key, T fallback) const {
    return j_.contains(key) ? get<T>(key) : fallback;
  }

  Reader child(const char* key) const { return Reader(at(key), name(key)); }

  const json& array(const char* key) const {
    const json& v = at(key);
    if (!v.is_array()) fail(fmt::format("'{}' is not an array", name(key)));
    return v;
  }

  std::string name(const char* key) const { return path_.empty() ? key : path_ + "." + key; }

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(
        fmt::format("run record: {}{}", path_.empty() ? "" : "'" + path_ + "' ", what));
  }

 private:
  const json& at(const char* key) const {
    auto it = j_.find(key);
    if (it == j_.end()) throw InputError(fmt::format("run record: '{}' is missing", name(key)));
    return *it;
  }

  const json& j_;
  std::string path_;
};

MachineInfo machine_from(const Reader& r) {
  MachineInfo m;
  m.device_name = r.get<std::string>("device_name");
  const std::string cc = r.get<std::string>("compute_capability");
  if (std::sscanf(cc.c_str(), "%d.%d", &m.cc_major, &m.cc_minor) != 2) {
    r.fail(fmt::format("'compute_capability' is '{}', not MAJOR.MINOR", cc));
  }
  m.sm_count = r.get<int>("sm_count");
  m.copy_engines = r.get<int>("copy_engines");
  m.device_memory_bytes = r.get<std::uint64_t>("device_memory_bytes");
  m.pci_bus_id = r.get<std::string>("pci_bus_id");
  m.driver_version = r.get<int>("driver_version");
  m.runtime_version = r.get<int>("runtime_version");
  m.driver_release = r.get_or<std::string>("driver_release", "");
  const Reader p = r.child("pcie");
  m.pcie.current_gen = p.get<int>("current_gen");
  m.pcie.max_gen = p.get<int>("max_gen");
  m.pcie.current_width = p.get<int>("current_width");
  m.pcie.max_width = p.get<int>("max_width");
  m.pcie.current_speed = p.get<std::string>("current_speed");
  m.pcie.max_speed = p.get<std::string>("max_speed");
  m.numa_node = r.get<int>("numa_node");
  m.host_cpu = r.get<std::string>("host_cpu");
  m.host_logical_cpus = r.get<int>("host_logical_cpus");
  m.host_memory_bytes = r.get<std::uint64_t>("host_memory_bytes");
  m.os = r.get<std::string>("os");
  m.pageable_memory_access = r.get_or<int>("pageable_memory_access", 0);
  return m;
}

std::vector<double> samples_from(const Reader& r, const char* key) {
  const json& a = r.array(key);
  std::vector<double> out;
  out.reserve(a.size());
  for (const json& v : a) {
    if (!v.is_number()) r.fail(fmt::format("'{}' holds a non-number", key));
    const double x = v.get<double>();
    if (!(x >= 0.0)) r.fail(fmt::format("'{}' holds a negative or NaN time", key));
    out.push_back(x);
  }
  return out;
}

}  // namespace

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
  if (r.incomplete) j["incomplete"] = {{"interrupted_by", r.interrupted_by}};
  return j;
}

RunRecord record_from_json(const json& j) {
  if (!j.is_object() || !j.contains("schema") || j["schema"] != kRecordSchema) {
    throw InputError("not a pinbench run record (no \"schema\": \"pinbench.run\" field)");
  }
  const Reader r(j, "");
  RunRecord rec;
  rec.schema_version = r.get<int>("schema_version");
  if (rec.schema_version < 1 || rec.schema_version > kRecordSchemaVersion) {
    throw InputError(fmt::format("run record has schema version {}, this pinbench reads 1 to {}",
                                 rec.schema_version, kRecordSchemaVersion));
  }
  rec.experiment = r.get<std::string>("experiment");
  rec.pinbench_version = r.get<std::string>("pinbench_version");
  rec.created_utc = r.get<std::string>("created_utc");
  rec.source = r.get_or<std::string>("source", "measured");
  rec.note = r.get_or<std::string>("note", "");
  rec.machine = machine_from(r.child("machine"));
  rec.config = j.contains("config") ? j["config"] : json::object();
  const json& gates = r.array("gates");
  for (std::size_t i = 0; i < gates.size(); ++i) {
    const Reader g(gates[i], fmt::format("gates[{}]", i));
    rec.gates.push_back(
        {g.get<std::string>("name"), g.get<bool>("passed"), g.get_or<std::string>("detail", "")});
  }
  const json& cases = r.array("cases");
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Reader c(cases[i], fmt::format("cases[{}]", i));
    Case k;
    k.part = c.get<std::string>("part");
    k.direction = c.get<std::string>("direction");
    k.memory = c.get<std::string>("memory");
    k.method = c.get<std::string>("method");
    k.timing = c.get<std::string>("timing");
    k.bytes = c.get<std::uint64_t>("bytes");
    if (k.bytes == 0) c.fail("'bytes' is zero");
    k.warmups = c.get<int>("warmups");
    k.samples_ms = samples_from(c, "samples_ms");
    if (cases[i].contains("call_ms")) k.call_ms = samples_from(c, "call_ms");
    k.gate = c.get<std::string>("gate");
    k.verified = c.get<bool>("verified");
    if (cases[i].contains("extra")) {
      if (!cases[i]["extra"].is_object()) c.fail("'extra' is not an object");
      k.extra = cases[i]["extra"];
    }
    // Sweep records made before cases carried "stop" kept it in "extra".
    const std::string stop =
        c.get_or<std::string>("stop", k.extra.contains("stop") && k.extra["stop"].is_string()
                                          ? k.extra["stop"].get<std::string>()
                                          : "");
    if (!stop.empty()) {
      const StopReason reason = parse_stop_reason(stop);
      if (reason == StopReason::kContinue)
        c.fail(fmt::format("'stop' is '{}', not a known reason", stop));
      k.stop = reason;
    }
    rec.cases.push_back(std::move(k));
  }
  rec.wall_ms = r.get<double>("wall_ms");
  if (j.contains("incomplete")) {
    const Reader inc = r.child("incomplete");
    rec.incomplete = true;
    rec.interrupted_by = inc.get<std::string>("interrupted_by");
  }
  if (j.contains("trace") && !j["trace"].is_null()) {
    if (!j["trace"].is_object()) r.fail("'trace' is not an object");
    rec.trace = j["trace"];
  }
  return rec;
}

RunRecord load_record(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("cannot open run record '{}'", path));
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string text = buf.str();
  if (text.empty()) throw InputError(fmt::format("run record '{}' is empty", path));
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw InputError(
        fmt::format("run record '{}' is not valid JSON (truncated?) near byte {}", path, e.byte));
  }
  try {
    return record_from_json(j);
  } catch (const InputError& e) {
    throw InputError(fmt::format("'{}': {}", path, e.what()));
  }
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
