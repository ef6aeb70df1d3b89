// The CUPTI collector. CUPTI is dlopen()ed and its functions looked up through the one table
// (cuda/cupti_api.hpp), so the headers are used for types and constants only. Activity records
// arrive in buffers that CUPTI fills and hands back through two C callbacks, possibly on its own
// thread; they are converted into the core trace model at once, under a lock, and the buffer is
// freed.
//
// Record layouts: CUPTI writes each kind in the newest layout it knows. This file reads the CUDA
// 13 layouts (CUpti_ActivityAPI, CUpti_ActivityMemcpy6, CUpti_ActivityKernel10,
// CUpti_ActivityMarker2) and only their leading fields, which later versions keep in place;
// start() refuses a CUPTI whose major version is not 13.
#include "cuda/cupti_trace.hpp"

#include "framework/trace_model.hpp"

#include <cupti.h>
#include <cxxabi.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "cuda/cupti_api.hpp"

namespace pinbench::cuda {

namespace {

constexpr std::size_t kBufferBytes = 8u << 20;
constexpr std::uint32_t kCuptiMajor = 13;

const CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_MEMCPY,
                                     CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                     CUPTI_ACTIVITY_KIND_MARKER};

// framework/trace_model.cpp reads CUPTI's copy and memory kinds by number, without cupti.h.
static_assert(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD == 1 && CUPTI_ACTIVITY_MEMCPY_KIND_DTOH == 2 &&
              CUPTI_ACTIVITY_MEMCPY_KIND_HTOA == 3 && CUPTI_ACTIVITY_MEMCPY_KIND_ATOH == 4 &&
              CUPTI_ACTIVITY_MEMCPY_KIND_ATOA == 5 && CUPTI_ACTIVITY_MEMCPY_KIND_ATOD == 6 &&
              CUPTI_ACTIVITY_MEMCPY_KIND_DTOA == 7 && CUPTI_ACTIVITY_MEMCPY_KIND_DTOD == 8 &&
              CUPTI_ACTIVITY_MEMCPY_KIND_HTOH == 9 && CUPTI_ACTIVITY_MEMCPY_KIND_PTOP == 10);
static_assert(CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE == 1 && CUPTI_ACTIVITY_MEMORY_KIND_PINNED == 2 &&
              CUPTI_ACTIVITY_MEMORY_KIND_DEVICE == 3 && CUPTI_ACTIVITY_MEMORY_KIND_ARRAY == 4 &&
              CUPTI_ACTIVITY_MEMORY_KIND_MANAGED == 5 &&
              CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC == 6 &&
              CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC == 7);

std::string demangle(const char* name) {
  if (name == nullptr) return "(unnamed kernel)";
  int status = 0;
  char* plain = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = status == 0 && plain != nullptr ? plain : name;
  std::free(plain);
  return out;
}

void CUPTIAPI ignore_callback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

}  // namespace

struct CuptiTrace::State {
  CuptiApi api;
  CUpti_SubscriberHandle subscriber = nullptr;
  std::vector<CUpti_ActivityKind> enabled;
  std::uint32_t version = 0;
  std::uint64_t origin = 0;
  std::vector<std::string> notes;

  // Filled by the buffer callback.
  std::mutex mu;
  std::vector<ApiCall> calls;
  std::vector<Copy> copies;
  std::vector<std::uint32_t> runtime_correlation;  // per copy: CUPTI's runtimeCorrelationId
  std::vector<Kernel> kernels;
  struct Marker {
    std::uint32_t id = 0;
    bool start = false;
    std::uint64_t timestamp = 0;
    std::uint32_t thread = 0;
    std::string name, domain;
  };
  std::vector<Marker> markers;
  std::uint64_t dropped = 0;
  std::unordered_map<std::uint32_t, std::string> api_names;

  std::string result(CUptiResult r) const {
    const char* s = nullptr;
    if (api.result_string != nullptr && api.result_string(r, &s) == CUPTI_SUCCESS && s != nullptr) {
      return s;
    }
    return fmt::format("CUPTI error {}", static_cast<int>(r));
  }

  void take(const CUpti_Activity* record);
};

namespace {

// The trace being collected; CUPTI's callbacks carry no user pointer.
std::mutex g_active_mu;
CuptiTrace::State* g_active = nullptr;

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  // CUPTI needs 8-byte alignment (ACTIVITY_RECORD_ALIGNMENT).
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext context, std::uint32_t stream, std::uint8_t* buffer,
                               std::size_t, std::size_t valid) {
  {
    const std::lock_guard<std::mutex> active(g_active_mu);
    CuptiTrace::State* s = g_active;
    if (s != nullptr && buffer != nullptr) {
      const std::lock_guard<std::mutex> lock(s->mu);
      s->dropped += s->api.read_buffer(context, stream, buffer, valid,
                                       [&](const CUpti_Activity* record) { s->take(record); });
    }
  }
  std::free(buffer);
}

}  // namespace

void CuptiTrace::State::take(const CUpti_Activity* record) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_RUNTIME: {
      const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
      auto it = api_names.find(a->cbid);
      if (it == api_names.end()) {
        const char* name = nullptr;
        const bool named =
            api.callback_name(CUPTI_CB_DOMAIN_RUNTIME_API, a->cbid, &name) == CUPTI_SUCCESS &&
            name != nullptr;
        it = api_names
                 .emplace(a->cbid,
                          named ? api_base_name(name) : fmt::format("runtime API {}", a->cbid))
                 .first;
      }
      calls.push_back(ApiCall{it->second, static_cast<std::int64_t>(a->start),
                              static_cast<std::int64_t>(a->end), a->threadId, a->correlationId});
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      Copy c;
      c.direction = direction_from_cupti(m->copyKind);
      c.bytes = m->bytes;
      c.start_ns = static_cast<std::int64_t>(m->start);
      c.end_ns = static_cast<std::int64_t>(m->end);
      c.stream = m->streamId;
      c.src_kind = memory_kind_from_cupti(m->srcKind);
      c.dst_kind = memory_kind_from_cupti(m->dstKind);
      c.correlation = m->correlationId;
      copies.push_back(c);
      runtime_correlation.push_back(m->runtimeCorrelationId);
      break;
    }
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      kernels.push_back(Kernel{demangle(k->name), static_cast<std::int64_t>(k->start),
                               static_cast<std::int64_t>(k->end), k->streamId, k->correlationId});
      break;
    }
    case CUPTI_ACTIVITY_KIND_MARKER: {
      const auto* mk = reinterpret_cast<const CUpti_ActivityMarker2*>(record);
      const bool start = (mk->flags & CUPTI_ACTIVITY_FLAG_MARKER_START) != 0;
      const bool end = (mk->flags & CUPTI_ACTIVITY_FLAG_MARKER_END) != 0;
      if (!start && !end) break;  // instantaneous markers are not ranges
      Marker m;
      m.id = mk->id;
      m.start = start;
      m.timestamp = mk->timestamp;
      if (mk->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD) m.thread = mk->objectId.pt.threadId;
      if (mk->name != nullptr) m.name = mk->name;
      if (mk->domain != nullptr) m.domain = mk->domain;
      markers.push_back(std::move(m));
      break;
    }
    default:
      break;
  }
}

std::vector<std::string> cupti_candidates(const char* cupti_path, const char* cuda_home) {
  std::vector<std::string> out;
  if (cupti_path != nullptr && *cupti_path != '\0') {
    const std::string p = cupti_path;
    const std::string dir = p.back() == '/' ? p : p + "/";
    // A folder or a file; dlopen() of a folder fails, which is what we want to report.
    const bool looks_like_file = p.find(".so") != std::string::npos;
    if (looks_like_file) {
      out.push_back(p);
    } else {
      out.push_back(dir + "libcupti.so.13");
      out.push_back(dir + "libcupti.so");
    }
    return out;
  }
  out.push_back("libcupti.so.13");
  std::vector<std::string> homes;
  if (cuda_home != nullptr && *cuda_home != '\0') homes.push_back(cuda_home);
  homes.push_back("/usr/local/cuda");
  for (const std::string& home : homes) {
    for (const char* sub : {"/lib64/libcupti.so.13", "/extras/CUPTI/lib64/libcupti.so.13"}) {
      const std::string path = home + sub;
      if (std::find(out.begin(), out.end(), path) == out.end()) out.push_back(path);
    }
  }
  return out;
}

std::unique_ptr<CuptiTrace> CuptiTrace::start(std::string* why_not) {
  return start(cupti_candidates(std::getenv("CUPTI_PATH"), std::getenv("CUDA_HOME")), why_not);
}

std::unique_ptr<CuptiTrace> CuptiTrace::start(const std::vector<std::string>& candidates,
                                              std::string* why_not) {
  const auto fail = [&](const std::string& why) -> std::unique_ptr<CuptiTrace> {
    if (why_not != nullptr) *why_not = why;
    return nullptr;
  };
  // Nsight Systems and Nsight Compute attach through this variable and own CUPTI while they do.
  if (const char* other = std::getenv("CUDA_INJECTION64_PATH"); other != nullptr && *other) {
    return fail(fmt::format("another CUDA tool is attached (CUDA_INJECTION64_PATH={})", other));
  }
  {
    const std::lock_guard<std::mutex> active(g_active_mu);
    if (g_active != nullptr) return fail("a CUPTI trace is already running in this process");
  }

  std::unique_ptr<CuptiTrace> t(new CuptiTrace());
  t->state_ = std::make_unique<State>();
  State& s = *t->state_;
  CuptiApi& api = s.api;
  if (!api.open_first(candidates)) {
    std::string tried;
    for (const std::string& path : candidates) {
      tried += fmt::format("{}{}", tried.empty() ? "" : ", ", path);
    }
    return fail(
        fmt::format("CUPTI not found (tried {}; set CUPTI_PATH to its file or folder)", tried));
  }
  const char* missing = api.bind();
  // Where it really came from, so NVTX loads the very same library.
  Dl_info info{};
  if (api.get_version != nullptr && dladdr(reinterpret_cast<void*>(api.get_version), &info) != 0 &&
      info.dli_fname != nullptr) {
    t->library_ = info.dli_fname;
  }
  if (missing != nullptr) {
    return fail(fmt::format("{} is not a usable CUPTI (no {})", t->library_, missing));
  }
  if (api.get_version(&s.version) != CUPTI_SUCCESS || s.version / 10000 != kCuptiMajor) {
    return fail(fmt::format("{} is CUPTI API version {}; this pinbench reads CUPTI {} records",
                            t->library_, s.version, kCuptiMajor));
  }

  // CUPTI's own way of saying that a profiler or debugger already holds it.
  const CUptiResult sub = api.subscribe(&s.subscriber, ignore_callback, nullptr);
  if (sub != CUPTI_SUCCESS) {
    s.subscriber = nullptr;
    if (sub == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
      return fail(
          "CUPTI is held by another profiler (Nsight Systems, Nsight Compute or a debugger)");
    }
    return fail(fmt::format("CUPTI at {} cannot start: {}", t->library_, s.result(sub)));
  }
  CUptiResult r = api.register_callbacks(buffer_requested, buffer_completed);
  for (std::size_t i = 0; r == CUPTI_SUCCESS && i < std::size(kKinds); ++i) {
    r = api.activity_enable(kKinds[i]);
    if (r == CUPTI_SUCCESS) s.enabled.push_back(kKinds[i]);
  }
  if (r != CUPTI_SUCCESS) {
    for (CUpti_ActivityKind k : s.enabled) api.activity_disable(k);
    api.unsubscribe(s.subscriber);
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
      return fail(
          "CUPTI is held by another profiler (Nsight Systems, Nsight Compute or a debugger)");
    }
    return fail(fmt::format("CUPTI at {} cannot trace: {}", t->library_, s.result(r)));
  }

  // NVTX finds its tool through this variable at its first call in the process; with CUPTI
  // there, pinbench's ranges become marker records in this trace.
  const char* nvtx = std::getenv("NVTX_INJECTION64_PATH");
  if (nvtx == nullptr || *nvtx == '\0') {
    setenv("NVTX_INJECTION64_PATH", t->library_.c_str(), 1);
  } else if (t->library_ != nvtx) {
    s.notes.push_back(fmt::format(
        "NVTX_INJECTION64_PATH names {}, so NVTX ranges went there and not into this trace", nvtx));
  }
  api.timestamp(&s.origin);
  {
    const std::lock_guard<std::mutex> active(g_active_mu);
    g_active = &s;
  }
  t->running_ = true;
  return t;
}

void CuptiTrace::stop() noexcept {
  if (!running_) return;
  running_ = false;
  State& s = *state_;
  // Forced: hand back every buffer, including ones with records still being completed.
  s.api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  for (CUpti_ActivityKind k : s.enabled) s.api.activity_disable(k);
  s.api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  s.api.unsubscribe(s.subscriber);
  const std::lock_guard<std::mutex> active(g_active_mu);
  g_active = nullptr;
}

CuptiTrace::~CuptiTrace() {
  stop();
}

Trace CuptiTrace::finish() {
  stop();
  State& s = *state_;
  const std::lock_guard<std::mutex> lock(s.mu);
  Trace t;
  t.source = fmt::format("CUPTI {}", s.version);
  t.origin_ns = static_cast<std::int64_t>(s.origin);
  t.notes = s.notes;
  t.dropped_records = s.dropped;
  t.api_calls = std::move(s.calls);
  t.kernels = std::move(s.kernels);

  // A copy's correlationId matches the driver call that issued it and its runtimeCorrelationId
  // the runtime call; depending on the CUPTI release, runtime API records carry one or the
  // other. Join on whichever matches more of the runtime calls.
  std::unordered_set<std::uint32_t> call_ids;
  for (const ApiCall& c : t.api_calls) call_ids.insert(c.correlation);
  std::size_t by_driver = 0, by_runtime = 0;
  for (std::size_t i = 0; i < s.copies.size(); ++i) {
    by_driver += call_ids.count(s.copies[i].correlation);
    by_runtime += s.runtime_correlation[i] != 0 ? call_ids.count(s.runtime_correlation[i]) : 0;
  }
  if (by_runtime > by_driver) {
    for (std::size_t i = 0; i < s.copies.size(); ++i)
      s.copies[i].correlation = s.runtime_correlation[i];
  }
  t.copies = std::move(s.copies);

  // Push/pop ranges arrive as a start marker with the name and an end marker with the same id.
  std::map<std::uint32_t, const State::Marker*> open;
  std::sort(s.markers.begin(), s.markers.end(), [](const State::Marker& a, const State::Marker& b) {
    return a.timestamp < b.timestamp;
  });
  for (const State::Marker& m : s.markers) {
    if (m.start) {
      open[m.id] = &m;
      continue;
    }
    const auto it = open.find(m.id);
    if (it == open.end()) continue;
    const State::Marker& b = *it->second;
    t.ranges.push_back(NvtxRange{b.name, b.domain, static_cast<std::int64_t>(b.timestamp),
                                 static_cast<std::int64_t>(m.timestamp),
                                 b.thread != 0 ? b.thread : m.thread});
    open.erase(it);
  }
  if (!open.empty()) t.notes.push_back(fmt::format("{} NVTX range(s) never closed", open.size()));
  // Markers name their thread through objectId, API records through threadId. Should a CUPTI
  // release number them differently, a range would contain no call at all; then the thread is
  // left unknown, which matches any call, rather than losing every range.
  std::unordered_set<std::uint32_t> call_threads;
  for (const ApiCall& c : t.api_calls) call_threads.insert(c.thread);
  const bool any_shared = std::any_of(t.ranges.begin(), t.ranges.end(), [&](const NvtxRange& r) {
    return call_threads.count(r.thread) != 0;
  });
  if (!t.ranges.empty() && !call_threads.empty() && !any_shared) {
    for (NvtxRange& r : t.ranges) r.thread = 0;
    t.notes.push_back(
        "NVTX ranges and API calls named their threads differently; ranges were "
        "matched to calls by time alone");
  }
  std::sort(t.ranges.begin(), t.ranges.end(),
            [](const NvtxRange& a, const NvtxRange& b) { return a.start_ns < b.start_ns; });
  if (t.ranges.empty() && s.notes.empty()) {
    t.notes.push_back(
        "no NVTX ranges reached CUPTI (NVTX was already in use when the trace started?)");
  }
  if (t.dropped_records > 0) {
    t.notes.push_back(fmt::format("CUPTI dropped {} records", t.dropped_records));
  }
  return t;
}

}  // namespace pinbench::cuda
