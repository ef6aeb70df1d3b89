#include "experiments/doctor/analysis.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "framework/case_figures.hpp"
#include "framework/units.hpp"
#include "pinbench/staged_options.hpp"

namespace pinbench {
namespace {

bool host_side(const Copy& c) {
  return c.direction == CopyDirection::kH2D || c.direction == CopyDirection::kD2H;
}

bool pageable(const Copy& c) {
  return host_side(c) &&
         (c.src_kind == DriverMemoryKind::kPageable || c.dst_kind == DriverMemoryKind::kPageable);
}

bool has_pageable(const DoctorCall& c) {
  return std::any_of(c.copies.begin(), c.copies.end(), pageable);
}

bool is_copy(const DoctorCall& c) {
  return c.kind == "copy" || c.kind == "copy_async" || c.kind == "batch";
}

double host_ms(const DoctorCall& c) {
  return static_cast<double>(c.end_ns - c.start_ns) / 1e6;
}

// The record's case nearest `bytes` (in log size) of a direction and memory kind, with figures.
// The case of `direction` and `memory` whose size is nearest `bytes` (in log2), with a rate; of
// the staged engine's cases (kAccelMethod) when `engine`, else of the others.
const Case* nearest(const RunRecord& r, const std::string& direction, const std::string& memory,
                    std::uint64_t bytes, bool engine = false) {
  const Case* best = nullptr;
  double best_gap = 0;
  for (const Case& c : r.cases) {
    if (c.direction != direction || c.memory != memory || (c.method == kAccelMethod) != engine ||
        !figures_of(c).gb_per_s) {
      continue;
    }
    const double gap = std::fabs(std::log2(static_cast<double>(c.bytes)) -
                                 std::log2(static_cast<double>(std::max<std::uint64_t>(bytes, 1))));
    if (best == nullptr || gap < best_gap) {
      best = &c;
      best_gap = gap;
    }
  }
  return best;
}

// The call's host time under accel: its pageable copies at or above the engine's thresholds at
// the engine's rate, the call as it was otherwise; absent without the engine's rate.
std::optional<double> accel_call_ms(const RunRecord& r, const DoctorCall& call, double host) {
  static const StagedCopyOptions engine;
  double ms = 0;
  bool routed = false;
  for (const Copy& k : call.copies) {
    if (!host_side(k)) continue;
    const bool to_device = k.direction == CopyDirection::kH2D;
    const std::size_t below =
        to_device ? engine.to_device.direct_below_bytes : engine.to_host.direct_below_bytes;
    if (k.bytes < below) return host;  // accel passes the call on: as it was
    const Case* c = nearest(r, to_string(k.direction), "pageable", k.bytes, true);
    if (c == nullptr) return std::nullopt;
    ms += static_cast<double>(k.bytes) / (*figures_of(*c).gb_per_s * 1e6);
    routed = true;
  }
  return routed ? ms : host;
}

struct CopyCost {
  std::optional<double> pinned_ms;       // the copies' time from page-locked memory
  std::optional<double> pinned_call_ms;  // an async call from page-locked memory: its host time
};

CopyCost pinned_cost(const RunRecord& r, const DoctorCall& call) {
  CopyCost cost;
  double ms = 0, call_ms = 0;
  bool all = true, calls = true;
  for (const Copy& k : call.copies) {
    if (!host_side(k)) continue;
    const Case* c = nearest(r, to_string(k.direction), "pinned", k.bytes);
    if (c == nullptr) {
      all = false;
      continue;
    }
    const CaseFigures f = figures_of(*c);
    ms += static_cast<double>(k.bytes) / (*f.gb_per_s * 1e6);
    if (f.call_median_ms) {
      call_ms = std::max(call_ms, *f.call_median_ms);
    } else {
      calls = false;
    }
  }
  if (all) cost.pinned_ms = ms;
  if (all && calls) cost.pinned_call_ms = call_ms;
  return cost;
}

// The busy time of [a, b) covered by the union of `spans`.
double covered_ms(std::vector<std::pair<std::int64_t, std::int64_t>>& spans, std::int64_t a,
                  std::int64_t b) {
  std::sort(spans.begin(), spans.end());
  std::int64_t total = 0, reach = a;
  for (const auto& [s, e] : spans) {
    const std::int64_t lo = std::max(s, reach), hi = std::min(e, b);
    if (hi > lo) {
      total += hi - lo;
      reach = hi;
    }
  }
  return static_cast<double>(total) / 1e6;
}

// Work on streams other than `streams` that ran inside [a, b).
double other_stream_busy_ms(const DoctorTrace& t, const std::vector<std::uint32_t>& streams,
                            std::int64_t a, std::int64_t b) {
  if (b <= a) return 0;
  const auto mine = [&](std::uint32_t s) {
    return std::find(streams.begin(), streams.end(), s) != streams.end();
  };
  std::vector<std::pair<std::int64_t, std::int64_t>> spans;
  for (const Kernel& k : t.kernels) {
    if (!mine(k.stream) && k.end_ns > a && k.start_ns < b) spans.emplace_back(k.start_ns, k.end_ns);
  }
  for (const DoctorCall& c : t.calls) {
    for (const Copy& k : c.copies) {
      if (!mine(k.stream) && k.end_ns > a && k.start_ns < b) {
        spans.emplace_back(k.start_ns, k.end_ns);
      }
    }
  }
  return covered_ms(spans, a, b);
}

// The lambda a C++ library template runs, from the template's name: code of the program's own
// inlined into std::thread's (or std::function's) machinery is named by addr2line after the
// template, "std::thread::_State_impl<...<(anonymous namespace)::work()::{lambda()#1}>
// >::_M_run()", while the line is the lambda's. "" when the name holds no lambda.
std::string lambda_in(const std::string& name) {
  const std::size_t at = name.rfind("{lambda(");
  if (at == std::string::npos) return "";
  const std::size_t close = name.find('}', at);
  if (close == std::string::npos) return "";
  // Back from the lambda to where its qualified name starts: a '<', ',' or ' ' outside brackets.
  std::size_t from = at;
  int depth = 0;
  while (from > 0) {
    const char c = name[from - 1];
    if (c == ')' || c == '>') ++depth;
    if ((c == '(' || c == '<') && depth > 0) {
      --depth;
    } else if (depth == 0 && (c == '<' || c == ',' || c == ' ')) {
      break;
    }
    --from;
  }
  std::string lambda = name.substr(from, close + 1 - from);
  const std::string anonymous = "(anonymous namespace)::";
  for (std::size_t a = lambda.find(anonymous); a != std::string::npos; a = lambda.find(anonymous))
    lambda.erase(a, anonymous.size());
  return lambda;
}

// The function a native frame's line lies in, as the program calls it.
std::string function_of(const DoctorFrame& f) {
  const bool library_template = f.function.rfind("std::", 0) == 0;
  const bool own_line = f.line > 0 && f.file.rfind("/usr/", 0) != 0;
  if (library_template && own_line) {
    const std::string lambda = lambda_in(f.function);
    if (!lambda.empty()) return lambda;
  }
  return f.function.empty() ? "?" : f.function;
}

std::string frame_text(const DoctorFrame& f) {
  if (f.python)
    return fmt::format("{}:{} in {}", f.file, f.line, f.function.empty() ? "?" : f.function);
  std::string module = f.module;
  const std::size_t slash = module.rfind('/');
  if (slash != std::string::npos) module = module.substr(slash + 1);
  if (!f.file.empty()) {
    const std::string file = std::filesystem::path(f.file).lexically_normal().string();
    return fmt::format("{} ({}:{})", function_of(f), file, f.line);
  }
  if (!f.function.empty()) return fmt::format("{} ({}+0x{:x})", f.function, module, f.offset);
  return fmt::format("{}+0x{:x}", module, f.offset);
}

// The CUDA runtime's own frames (linked statically into most programs) say nothing about where
// the program made the call.
bool runtime_frame(const DoctorFrame& f) {
  if (f.python) return false;
  const std::string& fn = f.function;
  if (f.module.find("libcudart") != std::string::npos) return true;
  if (fn.rfind("cuda", 0) == 0 || fn.rfind("__cudart", 0) == 0 || fn.rfind("cudart::", 0) == 0 ||
      fn.rfind("_ZN6cudart", 0) == 0 || fn.rfind("__cuda", 0) == 0) {
    return true;
  }
  return f.module.find("libc.so") != std::string::npos ||
         f.module.find("ld-linux") != std::string::npos;
}

// Where a call was made, as one line, and the frames beneath it.
std::pair<std::string, std::vector<std::string>> describe(const DoctorTrace& t,
                                                          const DoctorCall& c) {
  const DoctorSite* s = c.site.empty() ? nullptr : t.find_site(c.site, c.pid);
  if (s == nullptr || s->frames.empty()) return {"(no call site recorded)", {}};
  std::vector<const DoctorFrame*> program;
  for (const DoctorFrame& f : s->frames) {
    if (f.python) program.push_back(&f);
  }
  if (program.empty()) {
    for (const DoctorFrame& f : s->frames) {
      if (!runtime_frame(f)) program.push_back(&f);
    }
    // Where some frames have a line of debug information, the program's code is theirs: the
    // frames before the first of them are a library's inside (a static runtime, a thread's
    // start in the C++ library), and so are headers of the system's.
    const auto own = [](const DoctorFrame* f) {
      return f->line > 0 && f->file.rfind("/usr/include/", 0) != 0 &&
             f->file.rfind("/usr/lib/", 0) != 0;
    };
    const auto first = std::find_if(program.begin(), program.end(), own);
    if (first != program.end()) program.erase(program.begin(), first);
  }
  if (program.empty()) program.push_back(&s->frames.front());
  std::vector<std::string> below;
  for (std::size_t i = 1; i < program.size() && below.size() < 4; ++i) {
    below.push_back(frame_text(*program[i]));
  }
  return {frame_text(*program.front()), below};
}

struct SiteSum {
  DoctorSiteCost cost;
  bool any_lost = false;
};

void add_to_site(std::map<std::string, SiteSum>& sites, const DoctorTrace& t, const DoctorCall& c,
                 std::uint64_t bytes, std::optional<double> lost) {
  auto [where, below] = describe(t, c);
  SiteSum& s = sites[where];
  s.cost.where = where;
  if (s.cost.frames.empty()) s.cost.frames = below;
  ++s.cost.count;
  s.cost.bytes += bytes;
  s.cost.host_ms += host_ms(c);
  if (lost) {
    s.cost.lost_ms = s.cost.lost_ms.value_or(0) + *lost;
    s.any_lost = true;
  }
}

std::vector<DoctorSiteCost> ranked(const std::map<std::string, SiteSum>& sites) {
  std::vector<DoctorSiteCost> out;
  for (const auto& [where, s] : sites) out.push_back(s.cost);
  std::stable_sort(out.begin(), out.end(), [](const DoctorSiteCost& a, const DoctorSiteCost& b) {
    const double la = a.lost_ms.value_or(-1), lb = b.lost_ms.value_or(-1);
    if (la != lb) return la > lb;
    if (a.host_ms != b.host_ms) return a.host_ms > b.host_ms;
    return a.where < b.where;  // ties: a fixed order, so output does not depend on the map
  });
  return out;
}

std::uint64_t host_bytes(const DoctorCall& c) {
  std::uint64_t b = 0;
  for (const Copy& k : c.copies) b += host_side(k) ? k.bytes : 0;
  return b;
}

// Adds a copy call to its finding (one more call, its host bytes and host time) and returns
// what its copies would cost from page-locked memory.
// The host time a finding's calls would take under `pinbench accel`, summed over them; known
// only when every call's is.
struct AccelSum {
  double ms = 0;
  bool known = true;
  void add(const std::optional<double>& call) {
    if (call) {
      ms += *call;
    } else {
      known = false;
    }
  }
  void say(DoctorFinding& f) const {
    if (!known || f.count == 0) return;
    f.accel_ms = ms;
    f.evidence.push_back(fmt::format(
        "under pinbench accel (the staged engine, at its calibrated rate here) the same calls "
        "would hold the host about {:.3f} ms, {:.3f} ms less, with the program unchanged: "
        "pinbench accel -- PROGRAM",
        ms, std::max(0.0, f.host_ms - ms)));
  }
};

CopyCost count_copy_call(const RunRecord& r, const DoctorCall& c, DoctorFinding& f) {
  ++f.count;
  f.bytes += host_bytes(c);
  f.host_ms += host_ms(c);
  return pinned_cost(r, c);
}

std::string directions_of(const std::vector<const DoctorCall*>& calls) {
  bool h2d = false, d2h = false;
  for (const DoctorCall* c : calls) {
    for (const Copy& k : c->copies) {
      if (!pageable(k)) continue;
      h2d = h2d || k.direction == CopyDirection::kH2D;
      d2h = d2h || k.direction == CopyDirection::kD2H;
    }
  }
  return h2d && d2h ? "both directions" : h2d ? "host to device" : "device to host";
}

// Where the pageable end of the calls' copies is, for a finding's title: copies to the device
// read "from pageable memory", copies to the host write "into" it.
std::string pageable_end(const std::vector<const DoctorCall*>& calls) {
  const std::string d = directions_of(calls);
  return d == "both directions"  ? "from and into pageable memory"
         : d == "host to device" ? "from pageable memory"
                                 : "into pageable memory";
}

bool python_program(const DoctorTrace& t) {
  for (const DoctorSite& s : t.sites) {
    for (const DoctorFrame& f : s.frames) {
      if (f.python) return true;
    }
  }
  return false;
}

struct Fix {
  const char* text;
  const char* code;
};

// The fix in the program's own terms: PyTorch's where a call site has a Python frame.
void set_fix(DoctorFinding& f, const DoctorTrace& t, const Fix& python, const Fix& native) {
  const Fix& fix = python_program(t) ? python : native;
  f.fix = fix.text;
  f.fix_code = fix.code;
}

void finding_pageable_async(const RunRecord& r, const DoctorTrace& t, DoctorAnalysis& a) {
  std::vector<const DoctorCall*> calls;
  for (const DoctorCall& c : t.calls) {
    if ((c.kind == "copy_async" || c.kind == "batch") && c.status == 0 && has_pageable(c)) {
      calls.push_back(&c);
    }
  }
  if (calls.empty()) return;
  DoctorFinding f;
  f.id = "pageable-async";
  f.title = "Asynchronous copies " + pageable_end(calls);
  std::map<std::string, SiteSum> sites;
  double pinned = 0, lost = 0, prevented = 0, seen = 0;
  bool all_pinned = true, all_lost = true;
  AccelSum accel;
  for (const DoctorCall* c : calls) {
    const CopyCost cost = count_copy_call(r, *c, f);
    accel.add(accel_call_ms(r, *c, host_ms(*c)));
    std::optional<double> call_lost;
    if (cost.pinned_ms) {
      pinned += *cost.pinned_ms;
    } else {
      all_pinned = false;
    }
    if (cost.pinned_call_ms) {
      call_lost = std::max(0.0, host_ms(*c) - *cost.pinned_call_ms);
      lost += *call_lost;
    } else {
      all_lost = false;
    }
    // Overlap prevented: work on other streams that began after the call let the host go and
    // ran within the copy's own length of it; had the call returned at once, it could have run
    // beside the copy. Overlap seen: other streams' work inside the call, which did run beside.
    std::vector<std::uint32_t> streams;
    std::int64_t first = 0, last = 0;
    for (const Copy& k : c->copies) {
      streams.push_back(k.stream);
      first = streams.size() == 1 ? k.start_ns : std::min(first, k.start_ns);
      last = std::max(last, k.end_ns);
    }
    const std::int64_t length = last - first;
    prevented += std::min(static_cast<double>(length) / 1e6,
                          other_stream_busy_ms(t, streams, c->end_ns, c->end_ns + length));
    seen += other_stream_busy_ms(t, streams, c->start_ns, c->end_ns);
    add_to_site(sites, t, *c, host_bytes(*c), call_lost);
  }
  if (all_pinned) f.pinned_ms = pinned;
  if (all_lost) f.lost_ms = lost;
  f.overlap_prevented_ms = prevented;
  f.sites = ranked(sites);
  f.evidence.push_back(fmt::format(
      "{} call{} ({}) held the host thread for {:.3f} ms while the driver staged {} of pageable "
      "memory through its own buffers",
      f.count, f.count == 1 ? "" : "s", directions_of(calls), f.host_ms, format_size(f.bytes)));
  if (f.pinned_ms) {
    f.evidence.push_back(fmt::format(
        "from page-locked memory the same copies take {:.3f} ms of copy-engine time and the "
        "calls return at once{}",
        *f.pinned_ms,
        f.lost_ms ? fmt::format(": {:.3f} ms of host time lost", *f.lost_ms) : std::string()));
  }
  f.evidence.push_back(fmt::format(
      "overlap prevented: {:.3f} ms of other streams' work began after these calls let the host "
      "go, within a copy's length ({:.3f} ms of other streams' work did run inside the calls)",
      prevented, seen));
  accel.say(f);
  set_fix(f, t,
          {"Copy from page-locked memory: x.pin_memory() once (reused), or "
           "DataLoader(pin_memory=True); then .to('cuda', non_blocking=True) overlaps",
           "x = x.pin_memory()            # once, outside the loop\n"
           "y = x.to('cuda', non_blocking=True)"},
          {"Allocate the host buffers page-locked (cudaMallocHost / cudaHostAlloc) or pin "
           "them once (cudaHostRegister) and reuse them; for data sets too large to pin, "
           "pinbench's staged engine (pinbench::StagedCopier) streams them through a small "
           "pinned ring",
           "cudaMallocHost(&host, bytes);  // instead of malloc, once\n"
           "cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, stream);"});
  a.findings.push_back(std::move(f));
}

void finding_pageable_sync_loop(const RunRecord& r, const DoctorTrace& t, DoctorAnalysis& a) {
  std::map<std::string, std::vector<const DoctorCall*>> by_site;
  for (const DoctorCall& c : t.calls) {
    if (c.kind == "copy" && c.status == 0 && has_pageable(c)) {
      by_site[describe(t, c).first].push_back(&c);
    }
  }
  DoctorFinding f;
  f.id = "pageable-sync-loop";
  std::map<std::string, SiteSum> sites;
  std::vector<const DoctorCall*> all;
  double lost = 0;
  bool all_lost = true;
  AccelSum accel;
  for (const auto& [where, calls] : by_site) {
    if (calls.size() < kLoopCalls) continue;
    for (const DoctorCall* c : calls) {
      const CopyCost cost = count_copy_call(r, *c, f);
      accel.add(accel_call_ms(r, *c, host_ms(*c)));
      std::optional<double> call_lost;
      if (cost.pinned_ms) {
        call_lost = std::max(0.0, host_ms(*c) - *cost.pinned_ms);
        lost += *call_lost;
        f.pinned_ms = f.pinned_ms.value_or(0) + *cost.pinned_ms;
      } else {
        all_lost = false;
      }
      add_to_site(sites, t, *c, host_bytes(*c), call_lost);
      all.push_back(c);
    }
  }
  if (f.count == 0) return;
  f.title = "Blocking copies " + pageable_end(all) + " in a loop";
  if (all_lost)
    f.lost_ms = lost;
  else
    f.pinned_ms.reset();
  f.sites = ranked(sites);
  f.evidence.push_back(fmt::format(
      "{} blocking call{} ({}) at {} call site{} repeated {} times or more moved {} through "
      "pageable memory in {:.3f} ms",
      f.count, f.count == 1 ? "" : "s", directions_of(all), f.sites.size(),
      f.sites.size() == 1 ? "" : "s", kLoopCalls, format_size(f.bytes), f.host_ms));
  if (f.lost_ms) {
    f.evidence.push_back(fmt::format("from page-locked memory they take {:.3f} ms: {:.3f} ms lost",
                                     *f.pinned_ms, *f.lost_ms));
  }
  accel.say(f);
  set_fix(f, t,
          {"Keep the host tensor page-locked (pin_memory(), once) and reuse it in the loop",
           "buf = torch.empty(shape, pin_memory=True)   # once\n"
           "buf.copy_(batch); gpu.copy_(buf, non_blocking=True)"},
          {"Pin the loop's host buffer once (cudaMallocHost, or cudaHostRegister on the "
           "buffer you have) and reuse it on every iteration",
           "cudaHostRegister(buf, bytes, cudaHostRegisterDefault);  // once\n"
           "for (...) cudaMemcpy(dev, buf, bytes, cudaMemcpyHostToDevice);"});
  a.findings.push_back(std::move(f));
}

void finding_alloc_churn(const DoctorTrace& t, DoctorAnalysis& a) {
  // Each allocation (or registration) paired with the free (or unregistration) of its pointer.
  struct Live {
    const DoctorCall* call;
  };
  std::map<std::pair<int, std::uint64_t>, const DoctorCall*> live;
  std::map<std::string, std::vector<std::pair<const DoctorCall*, const DoctorCall*>>> by_site;
  std::uint64_t held = 0, peak = 0;
  for (const DoctorCall& c : t.calls) {
    if (c.status != 0) continue;
    if ((c.kind == "alloc" || c.kind == "register") && c.ptr != 0) {
      live[{c.pid, c.ptr}] = &c;
      held += c.bytes;
      peak = std::max(peak, held);
      ++a.pinned_allocations;
    } else if ((c.kind == "free" || c.kind == "unregister") && c.ptr != 0) {
      const auto it = live.find({c.pid, c.ptr});
      if (it == live.end()) continue;
      held -= std::min(held, it->second->bytes);
      by_site[describe(t, *it->second).first].emplace_back(it->second, &c);
      live.erase(it);
    }
  }
  a.peak_pinned_bytes = peak;
  DoctorFinding f;
  f.id = "alloc-churn";
  f.title = "Page-locked memory allocated and freed in a loop";
  std::map<std::string, SiteSum> sites;
  double lost = 0;
  for (const auto& [where, pairs] : by_site) {
    if (pairs.size() < kLoopCalls) continue;
    bool first = true;
    for (const auto& [alloc, free] : pairs) {
      const double ms = host_ms(*alloc) + host_ms(*free);
      ++f.count;
      f.bytes += alloc->bytes;
      f.host_ms += ms;
      // One allocation, kept, would have served them all.
      const double call_lost = first ? 0.0 : ms;
      first = false;
      lost += call_lost;
      SiteSum& s = sites[where];
      s.cost.where = where;
      if (s.cost.frames.empty()) s.cost.frames = describe(t, *alloc).second;
      ++s.cost.count;
      s.cost.bytes += alloc->bytes;
      s.cost.host_ms += ms;
      s.cost.lost_ms = s.cost.lost_ms.value_or(0) + call_lost;
    }
  }
  if (f.count == 0) return;
  f.lost_ms = lost;
  f.sites = ranked(sites);
  f.evidence.push_back(fmt::format(
      "{} allocate/free pairs of page-locked memory ({} in all) at {} call site{} took {:.3f} ms "
      "of host time; one allocation per site, reused, would have cost {:.3f} ms",
      f.count, format_size(f.bytes), f.sites.size(), f.sites.size() == 1 ? "" : "s", f.host_ms,
      f.host_ms - lost));
  f.fix =
      "Allocate page-locked buffers once, outside the loop, and reuse them (a pool of "
      "them if sizes vary); in PyTorch, pin once and copy into the pinned tensor";
  f.fix_code =
      "void* buf; cudaMallocHost(&buf, max_bytes);   // once\n"
      "for (...) { /* fill buf, cudaMemcpyAsync from it */ }\n"
      "cudaFreeHost(buf);";
  a.findings.push_back(std::move(f));
}

void finding_over_pinning(const RunRecord& r, const DoctorTrace& t, DoctorAnalysis& a) {
  const std::uint64_t host = r.machine.host_memory_bytes;
  if (host == 0 || a.peak_pinned_bytes == 0) return;
  const double share = static_cast<double>(a.peak_pinned_bytes) / static_cast<double>(host);
  if (share <= kOverPinningShare) return;
  DoctorFinding f;
  f.id = "over-pinning";
  f.title = "Too much host memory page-locked at once";
  std::map<std::string, SiteSum> sites;
  for (const DoctorCall& c : t.calls) {
    if ((c.kind != "alloc" && c.kind != "register") || c.status != 0) continue;
    ++f.count;
    f.bytes += c.bytes;
    f.host_ms += host_ms(c);
    add_to_site(sites, t, c, c.bytes, std::nullopt);
  }
  f.sites = ranked(sites);
  f.evidence.push_back(fmt::format(
      "{} page-locked at the peak: {:.1f}% of the host's {}, above the {:.0f}% pinbench flags; "
      "page-locked memory cannot be swapped or moved, so the rest of the system runs short",
      format_size(a.peak_pinned_bytes), 100 * share, format_size(host), 100 * kOverPinningShare));
  f.fix =
      "Pin transfer buffers, not data sets: stream a large data set through a few pinned "
      "buffers (pinbench's staged engine does so), and unpin what is no longer copied";
  f.fix_code =
      "pinbench::StagedCopier copier(options);   // a small pinned ring\n"
      "copier.copy_to_device(dev, pageable_data, bytes, stream);";
  a.findings.push_back(std::move(f));
}

void finding_managed(const DoctorTrace& t, DoctorAnalysis& a) {
  std::uint64_t htod = 0, dtoh = 0, cpu_faults = 0, gpu_faults = 0, count = 0;
  std::vector<std::pair<std::int64_t, std::int64_t>> spans;
  for (const DoctorMigration& m : t.migrations) {
    if (m.kind == "htod") htod += m.value;
    if (m.kind == "dtoh") dtoh += m.value;
    if (m.kind == "cpu_faults") cpu_faults += m.value;
    if (m.kind == "gpu_faults") gpu_faults += m.value;
    if (m.kind == "htod" || m.kind == "dtoh") {
      ++count;
      spans.emplace_back(m.start_ns, m.end_ns);
    }
  }
  if (htod + dtoh == 0 && cpu_faults + gpu_faults == 0) return;
  DoctorFinding f;
  f.id = "managed-migration";
  f.title = "Managed memory migrated on demand";
  f.count = count;
  f.bytes = htod + dtoh;
  f.host_ms = covered_ms(spans, 0, std::numeric_limits<std::int64_t>::max());
  f.evidence.push_back(fmt::format(
      "{} migrations moved {} to the device and {} to the host, in {:.3f} ms of migration "
      "time; {} CPU and {} GPU page faults",
      count, format_size(htod), format_size(dtoh), f.host_ms, cpu_faults, gpu_faults));
  f.fix =
      "Prefetch managed memory to where it is used next (cudaMemPrefetchAsync) or state "
      "where it lives (cudaMemAdvise); for data that only moves, use device memory and "
      "explicit copies from page-locked buffers";
  f.fix_code = "cudaMemPrefetchAsync(ptr, bytes, device, stream);";
  a.findings.push_back(std::move(f));
}

}  // namespace

const std::vector<std::string>& doctor_finding_ids() {
  static const std::vector<std::string> ids = {"pageable-async", "pageable-sync-loop",
                                               "alloc-churn", "over-pinning", "managed-migration"};
  return ids;
}

DoctorAnalysis analyse_doctor(const RunRecord& r, const DoctorTrace& t) {
  DoctorAnalysis a;
  a.no_cuda = t.processes == 0 && t.calls.empty() && t.cupti.empty();
  a.kernels = t.kernels_total;
  std::map<std::pair<std::string, std::uint64_t>, bool> sizes;
  for (const DoctorCall& c : t.calls) {
    if (c.kind == "sync") ++a.syncs;
    if (!is_copy(c)) continue;
    ++a.copy_calls;
    for (const Copy& k : c.copies) {
      if (k.direction == CopyDirection::kH2D) a.bytes_h2d += k.bytes;
      if (k.direction == CopyDirection::kD2H) a.bytes_d2h += k.bytes;
      if (host_side(k)) sizes[{to_string(k.direction), k.bytes}] = true;
    }
    if (has_pageable(c) && c.status == 0) {
      ++a.pageable_copy_calls;
      a.pageable_blocked_ms += host_ms(c);
    }
  }
  if (t.wall_ms > 0) a.blocked_share = a.pageable_blocked_ms / t.wall_ms;
  for (const auto& [key, unused] : sizes) {
    DoctorRate rate{key.first, key.second, {}, {}, {}, {}};
    if (const Case* c = nearest(r, key.first, "pageable", key.second)) {
      rate.pageable_gb_per_s = figures_of(*c).gb_per_s;
    }
    if (const Case* c = nearest(r, key.first, "pinned", key.second)) {
      const CaseFigures f = figures_of(*c);
      rate.pinned_gb_per_s = f.gb_per_s;
      rate.pinned_call_ms = f.call_median_ms;
    }
    if (const Case* c = nearest(r, key.first, "pageable", key.second, true)) {
      rate.engine_gb_per_s = figures_of(*c).gb_per_s;
    }
    a.rates.push_back(rate);
  }
  a.rates_from = r.config.contains("rates_from") && r.config["rates_from"].is_string()
                     ? r.config["rates_from"].get<std::string>()
                     : "a calibration after the program exited";
  finding_pageable_async(r, t, a);
  finding_pageable_sync_loop(r, t, a);
  finding_alloc_churn(t, a);
  finding_over_pinning(r, t, a);
  finding_managed(t, a);
  std::stable_sort(a.findings.begin(), a.findings.end(),
                   [](const DoctorFinding& x, const DoctorFinding& y) {
                     const double lx = x.lost_ms.value_or(x.host_ms);
                     const double ly = y.lost_ms.value_or(y.host_ms);
                     return lx > ly;
                   });
  return a;
}

}  // namespace pinbench
