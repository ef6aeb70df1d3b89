// The Chrome trace-event writer. "X" events carry a start and a duration; "M" events name the
// processes and tracks; an "s"/"f" pair draws a flow arrow. Flow ends sit at the middle of their
// slices, because a viewer binds a flow to the slice enclosing its timestamp and a slice's first
// instant is shared with its parent's children.
#include "framework/render/perfetto.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "framework/errors.hpp"
#include "framework/text_file.hpp"

namespace pinbench {

using nlohmann::json;

namespace {

constexpr int kHostPid = 1;
constexpr int kGpuPid = 2;

// Microseconds from `origin_ns` to `ns`. CUPTI's clock counts from the epoch (about 1.7e18 ns),
// where a double resolves only 256 ns, so the difference is taken in integers; a damaged
// trace whose difference would overflow falls back to double arithmetic.
double us(std::int64_t ns, std::int64_t origin_ns) {
  std::int64_t diff = 0;
  if (!__builtin_sub_overflow(ns, origin_ns, &diff)) return static_cast<double>(diff) / 1000.0;
  return (static_cast<double>(ns) - static_cast<double>(origin_ns)) / 1000.0;
}

double dur_us(std::int64_t start_ns, std::int64_t end_ns) {
  return end_ns > start_ns ? us(end_ns, start_ns) : 0.0;
}

json metadata(int pid, const char* what, std::int64_t tid, json args) {
  // Metadata has no time; a zero one keeps importers that want "ts" on every event content.
  json e{{"ph", "M"}, {"pid", pid}, {"name", what}, {"ts", 0}, {"args", std::move(args)}};
  if (tid >= 0) e["tid"] = tid;
  return e;
}

json slice(const std::string& name, const char* cat, std::int64_t start_ns, std::int64_t end_ns,
           std::int64_t origin_ns, int pid, std::int64_t tid, json args) {
  json e{{"name", name},
         {"cat", cat},
         {"ph", "X"},
         {"ts", us(start_ns, origin_ns)},
         {"dur", dur_us(start_ns, end_ns)},
         {"pid", pid},
         {"tid", tid}};
  if (!args.empty()) e["args"] = std::move(args);
  return e;
}

double middle_us(std::int64_t start_ns, std::int64_t end_ns, std::int64_t origin_ns) {
  if (end_ns <= start_ns) return us(start_ns, origin_ns);
  return us(start_ns, origin_ns) + dur_us(start_ns, end_ns) / 2.0;
}

std::string copy_name(const Copy& c) {
  return fmt::format("memcpy {} {}->{}", to_string(c.direction), to_string(c.src_kind),
                     to_string(c.dst_kind));
}

// Slices of one track, ordered so that a viewer nests them: earlier first, longer first.
void sort_events(std::vector<json>& events) {
  std::stable_sort(events.begin(), events.end(), [](const json& a, const json& b) {
    const auto key = [](const json& e) {
      return std::make_tuple(e["pid"].get<int>(), e["tid"].get<std::int64_t>(),
                             e["ts"].get<double>(), -e["dur"].get<double>());
    };
    return key(a) < key(b);
  });
}

}  // namespace

json perfetto_json(const Trace& t) {
  // Host threads get small track ids in the order of their CUPTI or OS ids.
  std::set<std::uint32_t> thread_ids;
  for (const ApiCall& c : t.api_calls) thread_ids.insert(c.thread);
  for (const NvtxRange& r : t.ranges) thread_ids.insert(r.thread);
  std::map<std::uint32_t, int> host_tid;
  for (std::uint32_t id : thread_ids) {
    if (id != 0) host_tid.emplace(id, static_cast<int>(host_tid.size()) + 1);
  }
  // Thread 0 means "not said": with one known thread it is that one, else a track of its own.
  if (thread_ids.count(0) != 0) {
    host_tid.emplace(
        0, host_tid.size() == 1 ? host_tid.begin()->second : static_cast<int>(host_tid.size()) + 1);
  }
  std::set<int> host_tracks;
  for (const auto& [id, tid] : host_tid) host_tracks.insert(tid);
  std::set<std::uint32_t> streams;
  for (const Copy& c : t.copies) streams.insert(c.stream);
  for (const Kernel& k : t.kernels) streams.insert(k.stream);

  std::vector<json> events;
  events.push_back(metadata(kHostPid, "process_name", -1, {{"name", "host"}}));
  events.push_back(metadata(kHostPid, "process_sort_index", -1, {{"sort_index", 0}}));
  events.push_back(metadata(kGpuPid, "process_name", -1, {{"name", "GPU"}}));
  events.push_back(metadata(kGpuPid, "process_sort_index", -1, {{"sort_index", 1}}));
  for (int tid : host_tracks) {
    const std::string name =
        host_tracks.size() == 1 ? std::string("host thread") : fmt::format("host thread {}", tid);
    events.push_back(metadata(kHostPid, "thread_name", tid, {{"name", name}}));
  }
  for (std::uint32_t s : streams) {
    events.push_back(metadata(kGpuPid, "thread_name", static_cast<std::int64_t>(s),
                              {{"name", fmt::format("stream {}", s)}}));
  }

  std::vector<json> slices;
  for (const NvtxRange& r : t.ranges) {
    json args = json::object();
    if (!r.domain.empty()) args["domain"] = r.domain;
    slices.push_back(slice(r.name, "nvtx", r.start_ns, r.end_ns, t.origin_ns, kHostPid,
                           host_tid.at(r.thread), args));
  }
  for (const ApiCall& c : t.api_calls) {
    slices.push_back(slice(c.name, "cuda_api", c.start_ns, c.end_ns, t.origin_ns, kHostPid,
                           host_tid.at(c.thread), json{{"correlation", c.correlation}}));
  }
  for (const Copy& c : t.copies) {
    slices.push_back(slice(copy_name(c), "memcpy", c.start_ns, c.end_ns, t.origin_ns, kGpuPid,
                           c.stream,
                           json{{"bytes", c.bytes},
                                {"src_kind", to_string(c.src_kind)},
                                {"dst_kind", to_string(c.dst_kind)},
                                {"correlation", c.correlation}}));
  }
  for (const Kernel& k : t.kernels) {
    slices.push_back(slice(k.name, "kernel", k.start_ns, k.end_ns, t.origin_ns, kGpuPid, k.stream,
                           json{{"correlation", k.correlation}}));
  }
  sort_events(slices);
  for (json& e : slices) events.push_back(std::move(e));

  // Arrows: from each call to what it started on the GPU, in call order.
  struct Target {
    std::int64_t start_ns, end_ns;
    std::uint32_t stream;
  };
  std::unordered_map<std::uint32_t, Target> targets;
  for (const Copy& c : t.copies) {
    if (c.correlation != 0) targets.emplace(c.correlation, Target{c.start_ns, c.end_ns, c.stream});
  }
  for (const Kernel& k : t.kernels) {
    if (k.correlation != 0) targets.emplace(k.correlation, Target{k.start_ns, k.end_ns, k.stream});
  }
  std::vector<const ApiCall*> calls;
  for (const ApiCall& c : t.api_calls) {
    if (c.correlation != 0 && targets.count(c.correlation) != 0) calls.push_back(&c);
  }
  std::stable_sort(calls.begin(), calls.end(), [](const ApiCall* a, const ApiCall* b) {
    return std::make_pair(a->start_ns, a->correlation) <
           std::make_pair(b->start_ns, b->correlation);
  });
  std::set<std::uint32_t> drawn;
  for (const ApiCall* c : calls) {
    if (!drawn.insert(c->correlation).second) continue;  // one arrow per correlation id
    const Target& to = targets.at(c->correlation);
    events.push_back(json{{"name", "launch"},
                          {"cat", "flow"},
                          {"ph", "s"},
                          {"id", c->correlation},
                          {"ts", middle_us(c->start_ns, c->end_ns, t.origin_ns)},
                          {"pid", kHostPid},
                          {"tid", host_tid.at(c->thread)}});
    events.push_back(json{{"name", "launch"},
                          {"cat", "flow"},
                          {"ph", "f"},
                          {"bp", "e"},
                          {"id", c->correlation},
                          {"ts", middle_us(to.start_ns, to.end_ns, t.origin_ns)},
                          {"pid", kGpuPid},
                          {"tid", to.stream}});
  }

  json other{{"producer", "pinbench"},
             {"source", t.source},
             {"time_origin", "the start of the run"},
             {"dropped_records", t.dropped_records},
             {"notes", t.notes}};
  return json{{"displayTimeUnit", "ms"}, {"otherData", other}, {"traceEvents", events}};
}

std::string perfetto_text(const Trace& trace) {
  const json doc = perfetto_json(trace);
  const auto dump = [](const json& j) {
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
  };
  std::string out = "{\"displayTimeUnit\":" + dump(doc["displayTimeUnit"]) +
                    ",\n\"otherData\":" + dump(doc["otherData"]) + ",\n\"traceEvents\":[\n";
  const json& events = doc["traceEvents"];
  for (std::size_t i = 0; i < events.size(); ++i) {
    out += dump(events[i]);
    out += i + 1 < events.size() ? ",\n" : "\n";
  }
  out += "]}\n";
  return out;
}

void write_perfetto(const Trace& trace, const std::string& path) {
  write_text_file(path, perfetto_text(trace));
}

Trace trace_from_perfetto(const json& doc) {
  const auto fail = [](const std::string& why) -> Trace {
    throw InputError("not a pinbench timeline: " + why);
  };
  if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array()) {
    return fail("no traceEvents array");
  }
  Trace t;
  try {
    if (doc.contains("otherData")) {
      const json& other = doc["otherData"];
      t.source = other.value("source", std::string());
      t.dropped_records = other.value("dropped_records", std::uint64_t{0});
      t.notes = other.value("notes", std::vector<std::string>());
    }
    const auto ns = [](const json& e, const char* key) {
      return static_cast<std::int64_t>(std::llround(e.at(key).get<double>() * 1000.0));
    };
    for (const json& e : doc["traceEvents"]) {
      if (e.at("ph") != "X") continue;
      const std::string cat = e.at("cat");
      const std::int64_t start = ns(e, "ts");
      const std::int64_t end = start + ns(e, "dur");
      const auto tid = e.at("tid").get<std::uint32_t>();
      const json args = e.value("args", json::object());
      const auto corr = args.value("correlation", std::uint32_t{0});
      if (cat == "nvtx") {
        t.ranges.push_back({e.at("name"), args.value("domain", std::string()), start, end, tid});
      } else if (cat == "cuda_api") {
        t.api_calls.push_back({e.at("name"), start, end, tid, corr});
      } else if (cat == "kernel") {
        t.kernels.push_back({e.at("name"), start, end, tid, corr});
      } else if (cat == "memcpy") {
        Copy c;
        const std::string name = e.at("name");  // "memcpy h2d pageable->device"
        for (CopyDirection d : {CopyDirection::kH2D, CopyDirection::kD2H, CopyDirection::kD2D,
                                CopyDirection::kH2H, CopyDirection::kP2P}) {
          if (name.rfind(std::string("memcpy ") + to_string(d) + " ", 0) == 0) c.direction = d;
        }
        const auto kind = [&](const char* key) {
          const std::string k = args.value(key, std::string());
          for (DriverMemoryKind m :
               {DriverMemoryKind::kPageable, DriverMemoryKind::kPinned, DriverMemoryKind::kDevice,
                DriverMemoryKind::kManaged, DriverMemoryKind::kArray}) {
            if (k == to_string(m)) return m;
          }
          return DriverMemoryKind::kUnknown;
        };
        c.bytes = args.value("bytes", std::uint64_t{0});
        c.start_ns = start;
        c.end_ns = end;
        c.stream = tid;
        c.src_kind = kind("src_kind");
        c.dst_kind = kind("dst_kind");
        c.correlation = corr;
        t.copies.push_back(c);
      }
    }
  } catch (const json::exception& e) {
    return fail(e.what());
  }
  return t;
}

}  // namespace pinbench
