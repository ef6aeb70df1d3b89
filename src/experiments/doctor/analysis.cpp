#include "experiments/doctor/analysis.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "experiments/doctor/events.hpp"
#include "framework/case_figures.hpp"
#include "framework/report_tables.hpp"
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

// The item of `items` that `fits` whose size (`size_of`) is nearest `bytes` in log2, or nullptr.
template <class T, class Fits, class Size>
const T* nearest_in_size(const std::vector<T>& items, std::uint64_t bytes, const Fits& fits,
                         const Size& size_of) {
  const double want = std::log2(static_cast<double>(std::max<std::uint64_t>(bytes, 1)));
  const T* best = nullptr;
  double best_gap = 0;
  for (const T& item : items) {
    if (!fits(item)) continue;
    const double gap = std::fabs(std::log2(static_cast<double>(size_of(item))) - want);
    if (best == nullptr || gap < best_gap) {
      best = &item;
      best_gap = gap;
    }
  }
  return best;
}

// The case of `direction` and `memory` whose size is nearest `bytes` (in log2), with a rate; of
// the staged engine's cases (kAccelMethod) when `engine`, else of the others (never the
// small-copy or NUMA parts, which measure something else).
const Case* nearest(const RunRecord& r, const std::string& direction, const std::string& memory,
                    std::uint64_t bytes, bool engine = false) {
  return nearest_in_size(
      r.cases, bytes,
      [&](const Case& c) {
        return c.direction == direction && c.memory == memory &&
               (c.method == kAccelMethod) == engine && c.part != kSmallCopyPart &&
               c.part != kNumaPart && figures_of(c).gb_per_s;
      },
      [](const Case& c) { return c.bytes; });
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

// The time other streams' work kept the GPU busy inside a window, for every pageable call of a
// record: built once from the trace's kernels and copies, each question a few binary searches, so
// a record of 100,000 calls is judged in the time of its length and not its square.
class StreamBusy {
 public:
  explicit StreamBusy(const DoctorTrace& t) {
    struct Edge {
      std::int64_t at;
      std::uint32_t stream;
      int step;  // +1 a span starts, -1 one ends
    };
    std::vector<Edge> edges;
    const auto add = [&](std::int64_t from, std::int64_t to, std::uint32_t stream) {
      if (to <= from) return;
      edges.push_back({from, stream, +1});
      edges.push_back({to, stream, -1});
    };
    for (const Kernel& k : t.kernels) add(k.start_ns, k.end_ns, k.stream);
    for (const DoctorCall& c : t.calls) {
      for (const Copy& k : c.copies) add(k.start_ns, k.end_ns, k.stream);
    }
    std::sort(edges.begin(), edges.end(), [](const Edge& x, const Edge& y) { return x.at < y.at; });
    std::map<std::uint32_t, int> active;  // streams with work in flight, and how many spans
    for (std::size_t i = 0; i < edges.size();) {
      const std::int64_t at = edges[i].at;
      for (; i < edges.size() && edges[i].at == at; ++i) {
        int& n = active[edges[i].stream];
        n += edges[i].step;
        if (n == 0) active.erase(edges[i].stream);
      }
      if (i == edges.size() || active.empty()) continue;
      const std::int64_t next = edges[i].at;
      all_.add(at, next);
      if (active.size() == 1) alone_[active.begin()->first].add(at, next);
    }
  }

  // Work on streams other than `streams` inside [a, b), in ms: all the work there, less where
  // one of `streams` ran alone. A call's copies share its one stream (every CUDA copy API takes
  // one); a hand-made call whose copies name several counts the time those streams ran together,
  // and nothing else, as other streams' work.
  double others_ms(const std::vector<std::uint32_t>& streams, std::int64_t a,
                   std::int64_t b) const {
    if (b <= a) return 0;
    std::int64_t busy = all_.covered(a, b);
    std::vector<std::uint32_t> distinct = streams;
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    for (std::uint32_t s : distinct) {
      const auto it = alone_.find(s);
      if (it != alone_.end()) busy -= it->second.covered(a, b);
    }
    return static_cast<double>(std::max<std::int64_t>(busy, 0)) / 1e6;
  }

 private:
  // Disjoint spans of time in order, with the length of those before each.
  struct Spans {
    std::vector<std::int64_t> from, to, before;
    void add(std::int64_t f, std::int64_t t) {
      if (!to.empty() && to.back() == f) {
        to.back() = t;
        return;
      }
      before.push_back(before.empty() ? 0 : before.back() + (to.back() - from.back()));
      from.push_back(f);
      to.push_back(t);
    }
    // Their length up to time x.
    std::int64_t upto(std::int64_t x) const {
      const auto it = std::upper_bound(from.begin(), from.end(), x);
      if (it == from.begin()) return 0;
      const auto k = static_cast<std::size_t>(it - from.begin()) - 1;
      return before[k] + std::min(x, to[k]) - from[k];
    }
    std::int64_t covered(std::int64_t a, std::int64_t b) const { return upto(b) - upto(a); }
  };
  Spans all_;
  std::map<std::uint32_t, Spans> alone_;
};

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
  if (s == nullptr || s->frames.empty()) {
    // Copies of page-locked memory keep no site (docs/doctor.md): they are told apart by what
    // the call was, at least.
    const std::string what =
        doctor_api_name(c.api) + (c.direction.empty() ? "" : ", " + direction_words(c.direction));
    return {"(no call site recorded: " + what + ")", {}};
  }
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

// Adds one call (or allocation, or copy) to the row of the site `c` names: its bytes, host time
// and time lost.
void add_to_site(std::map<std::string, SiteSum>& sites, const DoctorTrace& t, const DoctorCall& c,
                 std::uint64_t bytes, double host, std::optional<double> lost) {
  auto [where, below] = describe(t, c);
  SiteSum& s = sites[where];
  s.cost.where = where;
  if (s.cost.frames.empty()) s.cost.frames = below;
  ++s.cost.count;
  s.cost.bytes += bytes;
  s.cost.host_ms += host;
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

// Where the GPU reads pageable memory through the host's page tables (ATS, as on Grace Hopper),
// copies from pageable memory may run near the page-locked rate, so a pageable finding there
// either says why it stands or is not judged a pitfall: when the calibration measured the
// pageable rate at kHmmNearPinned of the page-locked one or better at every size its copies used.
// Returns whether the finding is kept.
bool judge_on_host_page_tables(const RunRecord& r, const std::vector<const DoctorCall*>& calls,
                               DoctorFinding& f, DoctorAnalysis& a) {
  if (!reads_pageable_through_host_page_tables(r.machine)) return true;
  std::optional<double> worst;
  double worst_pageable = 0, worst_pinned = 0;
  bool measured = true;
  for (const DoctorCall* c : calls) {
    for (const Copy& k : c->copies) {
      if (!pageable(k)) continue;
      const Case* pg = nearest(r, to_string(k.direction), "pageable", k.bytes);
      const Case* pn = nearest(r, to_string(k.direction), "pinned", k.bytes);
      if (pg == nullptr || pn == nullptr) {
        measured = false;
        continue;
      }
      const double pageable_rate = *figures_of(*pg).gb_per_s;
      const double pinned_rate = *figures_of(*pn).gb_per_s;
      if (!worst || pageable_rate / pinned_rate < *worst) {
        worst = pageable_rate / pinned_rate;
        worst_pageable = pageable_rate;
        worst_pinned = pinned_rate;
      }
    }
  }
  const std::string why =
      "this GPU reads pageable memory through the host's page tables (HMM/ATS, as on Grace "
      "Hopper), where copies from pageable memory can run near the page-locked rate";
  if (measured && worst && *worst >= kHmmNearPinned) {
    a.not_judged.push_back(
        {f.id, fmt::format("{}; the calibration measured them at {:.2f} GB/s against {:.2f} GB/s "
                           "page-locked at the sizes used ({:.0f}%, at least the {:.0f}% doctor "
                           "takes for no pitfall): {} call{} moving {} are not a pitfall here",
                           why, worst_pageable, worst_pinned, 100 * *worst, 100 * kHmmNearPinned,
                           f.count, f.count == 1 ? "" : "s", format_size(f.bytes))});
    return false;
  }
  f.evidence.insert(
      f.evidence.begin(),
      measured && worst
          ? fmt::format("{}; here the calibration measured {:.2f} GB/s pageable against {:.2f} "
                        "GB/s page-locked ({:.0f}%, under the {:.0f}% doctor takes for no "
                        "pitfall), so the finding stands",
                        why, worst_pageable, worst_pinned, 100 * *worst, 100 * kHmmNearPinned)
          : why +
                "; no calibration measured both rates here, so the finding rests on the "
                "calls' own host time, unproven against this machine's page-locked rate");
  return true;
}

// Every pageable copy of the call goes to the host.
bool only_to_host(const DoctorCall& c) {
  return std::all_of(c.copies.begin(), c.copies.end(), [](const Copy& k) {
    return !pageable(k) || k.direction == CopyDirection::kD2H;
  });
}

// Asynchronous calls with pageable copies: to the device (pageable-async), or, when `to_host`,
// those whose pageable copies all go to the host (pageable-async-d2h), which return only once
// the data is in place whatever the API's name says.
void finding_pageable_async(const RunRecord& r, const DoctorTrace& t, DoctorAnalysis& a,
                            bool to_host) {
  std::vector<const DoctorCall*> calls;
  for (const DoctorCall& c : t.calls) {
    if ((c.kind == "copy_async" || c.kind == "batch") && c.status == 0 && has_pageable(c) &&
        only_to_host(c) == to_host) {
      calls.push_back(&c);
    }
  }
  if (calls.empty()) return;
  DoctorFinding f;
  f.id = to_host ? "pageable-async-d2h" : "pageable-async";
  f.title = to_host ? "Device-to-host copies into pageable memory requested as asynchronous"
                    : "Asynchronous copies " + pageable_end(calls);
  std::map<std::string, SiteSum> sites;
  double pinned = 0, lost = 0, prevented = 0, seen = 0;
  bool all_pinned = true, all_lost = true;
  AccelSum accel;
  const StreamBusy busy(t);
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
                          busy.others_ms(streams, c->end_ns, c->end_ns + length));
    seen += busy.others_ms(streams, c->start_ns, c->end_ns);
    add_to_site(sites, t, *c, host_bytes(*c), host_ms(*c), call_lost);
  }
  if (all_pinned) f.pinned_ms = pinned;
  if (all_lost) f.lost_ms = lost;
  f.overlap_prevented_ms = prevented;
  f.sites = ranked(sites);
  if (to_host) {
    f.evidence.push_back(fmt::format(
        "{} asynchronous call{} copied {} into pageable memory and held the host thread for "
        "{:.3f} ms: a copy into pageable memory returns only once the data is in place, so "
        "asking for it asynchronously (cudaMemcpyAsync, non_blocking=True) overlaps nothing",
        f.count, f.count == 1 ? "" : "s", format_size(f.bytes), f.host_ms));
  } else {
    f.evidence.push_back(fmt::format(
        "{} call{} ({}) held the host thread for {:.3f} ms while the driver staged {} of "
        "pageable memory through its own buffers",
        f.count, f.count == 1 ? "" : "s", directions_of(calls), f.host_ms, format_size(f.bytes)));
  }
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
  if (to_host) {
    set_fix(f, t,
            {"Copy into a page-locked tensor: .cpu() and .to('cpu') into pageable memory wait "
             "for the copy; allocate the destination pinned once, copy with non_blocking=True, "
             "and wait on an event only before reading it",
             "out = torch.empty(shape, dtype=dtype, pin_memory=True)   # once\n"
             "out.copy_(gpu_tensor, non_blocking=True)\n"
             "done = torch.cuda.Event(); done.record()\n"
             "...                                      # other work\n"
             "done.synchronize()                       # before reading out"},
            {"Copy into page-locked memory (cudaMallocHost once, or cudaHostRegister on the "
             "buffer you have) so the call returns at once, and wait on an event only when the "
             "host reads the data",
             "cudaMallocHost(&out, bytes);  // once\n"
             "cudaMemcpyAsync(out, dev, bytes, cudaMemcpyDeviceToHost, stream);  // returns at "
             "once\n"
             "cudaEventRecord(done, stream);  // cudaEventSynchronize(done) before reading out"});
  } else {
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
  }
  if (judge_on_host_page_tables(r, calls, f, a)) a.findings.push_back(std::move(f));
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
      add_to_site(sites, t, *c, host_bytes(*c), host_ms(*c), call_lost);
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
  if (judge_on_host_page_tables(r, all, f, a)) a.findings.push_back(std::move(f));
}

// Returns the call sites of the churn it found (pinning-critical-path leaves their calls to it).
std::set<std::string> finding_alloc_churn(const DoctorTrace& t, DoctorAnalysis& a) {
  // Each allocation (or registration) paired with the free (or unregistration) of its pointer.
  std::set<std::string> churn;
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
    churn.insert(where);
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
  if (f.count == 0) return churn;
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
  return churn;
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
    add_to_site(sites, t, c, c.bytes, host_ms(c), std::nullopt);
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

// --- What the findings of page-locked ranges, small copies, synchronisations and NUMA share ---

// The bytes a copy call moved: its size argument where the collector read one, else its copies'.
std::uint64_t call_bytes(const DoctorCall& c) {
  if (c.bytes > 0) return c.bytes;
  std::uint64_t b = 0;
  for (const Copy& k : c.copies) b += k.bytes;
  return b;
}

// The call's direction, as its parameters said, else as its first copy between host and device.
std::string call_direction(const DoctorCall& c) {
  if (!c.direction.empty()) return c.direction;
  for (const Copy& k : c.copies) {
    if (host_side(k)) return to_string(k.direction);
  }
  return "";
}

// The power of two at or above `n` (a rounding allocator's block for n bytes).
std::uint64_t rounded_up(std::uint64_t n) {
  std::uint64_t p = 1;
  while (p < n && p < (std::uint64_t{1} << 63)) p <<= 1;
  return p;
}

// "0.042", "12.3", "456": a time in ms to the figures worth saying.
std::string about_ms(double ms) {
  return ms < 1     ? fmt::format("{:.3f}", ms)
         : ms < 100 ? fmt::format("{:.1f}", ms)
                    : fmt::format("{:.0f}", ms);
}

std::string plural(std::uint64_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// A range the program page-locked (an allocation or a registration), alive from the call's
// return to the start of its free, and the copies whose host pointer lay in it meanwhile.
struct PinnedRange {
  const DoctorCall* alloc = nullptr;
  std::int64_t from_ns = 0;
  std::int64_t to_ns = std::numeric_limits<std::int64_t>::max();
  std::uint64_t high_water = 0;  // the furthest byte from its start that a copy reached
  std::vector<const DoctorCall*> copies;
};

struct PinnedRanges {
  std::vector<PinnedRange> ranges;    // in call order
  bool copies_name_pointers = false;  // some copy of the record carries its host pointer
};

// Matches copies to the page-locked ranges by their host pointer: same process, inside the range,
// while it was alive.
PinnedRanges pinned_ranges(const DoctorTrace& t) {
  PinnedRanges out;
  std::map<std::pair<int, std::uint64_t>, std::size_t> live;
  for (const DoctorCall& c : t.calls) {
    if (c.status != 0 || c.ptr == 0) continue;
    if (c.kind == "alloc" || c.kind == "register") {
      live[{c.pid, c.ptr}] = out.ranges.size();
      PinnedRange r;
      r.alloc = &c;
      r.from_ns = c.end_ns;
      out.ranges.push_back(std::move(r));
    } else if (c.kind == "free" || c.kind == "unregister") {
      const auto it = live.find({c.pid, c.ptr});
      if (it == live.end()) continue;
      out.ranges[it->second].to_ns = c.start_ns;
      live.erase(it);
    }
  }
  // Per process, by start address; the largest range bounds how far down a look-up walks.
  std::map<int, std::vector<std::size_t>> by_pid;
  std::map<int, std::uint64_t> largest;
  for (std::size_t i = 0; i < out.ranges.size(); ++i) {
    const DoctorCall& a = *out.ranges[i].alloc;
    by_pid[a.pid].push_back(i);
    largest[a.pid] = std::max(largest[a.pid], a.bytes);
  }
  for (auto& [pid, v] : by_pid) {
    std::stable_sort(v.begin(), v.end(), [&](std::size_t x, std::size_t y) {
      return out.ranges[x].alloc->ptr < out.ranges[y].alloc->ptr;
    });
  }
  for (const DoctorCall& c : t.calls) {
    if (!is_copy(c) || c.status != 0 || c.ptr == 0) continue;
    out.copies_name_pointers = true;
    const auto it = by_pid.find(c.pid);
    if (it == by_pid.end()) continue;
    const std::vector<std::size_t>& v = it->second;
    auto at = std::upper_bound(v.begin(), v.end(), c.ptr, [&](std::uint64_t p, std::size_t i) {
      return p < out.ranges[i].alloc->ptr;
    });
    while (at != v.begin()) {
      --at;
      PinnedRange& r = out.ranges[*at];
      const std::uint64_t offset = c.ptr - r.alloc->ptr;
      if (offset >= largest[c.pid]) break;  // no range further down reaches the pointer
      if (offset < r.alloc->bytes && c.start_ns >= r.from_ns && c.start_ns <= r.to_ns) {
        r.high_water = std::max(r.high_water, std::min(offset + call_bytes(c), r.alloc->bytes));
        r.copies.push_back(&c);
        break;
      }
    }
  }
  return out;
}

void finding_pinned_unused(const DoctorTrace& t, const PinnedRanges& pinned, DoctorAnalysis& a) {
  if (pinned.ranges.empty()) return;
  if (!pinned.copies_name_pointers) {
    a.not_judged.push_back(
        {"pinned-unused",
         "no copy in the record names its host pointer (a record made before doctor read them, "
         "or copies whose API does not say), so no page-locked allocation can be matched to the "
         "copies made from it"});
    return;
  }
  struct SiteUse {
    std::vector<const PinnedRange*> ranges;
    std::uint64_t held = 0, used = 0;
  };
  std::map<std::string, SiteUse> by_site;
  std::uint64_t unseen = 0, unseen_bytes = 0;
  for (const PinnedRange& r : pinned.ranges) {
    if (r.copies.empty()) {
      ++unseen;
      unseen_bytes += r.alloc->bytes;
      continue;
    }
    SiteUse& u = by_site[describe(t, *r.alloc).first];
    u.ranges.push_back(&r);
    u.held += r.alloc->bytes;
    u.used += r.high_water;
  }
  DoctorFinding f;
  f.id = "pinned-unused";
  f.title = "Page-locked memory held beyond what its copies use";
  f.counted = "allocations";
  std::map<std::string, SiteSum> sites;
  std::uint64_t held = 0, used = 0;
  bool rounded = true;
  for (const auto& [where, u] : by_site) {
    const std::uint64_t unused = u.held - u.used;
    if (unused < kPinnedUnusedMinBytes ||
        static_cast<double>(unused) < kPinnedUnusedShare * static_cast<double>(u.held)) {
      continue;
    }
    held += u.held;
    used += u.used;
    for (const PinnedRange* r : u.ranges) {
      ++f.count;
      f.host_ms += host_ms(*r->alloc);
      add_to_site(sites, t, *r->alloc, r->alloc->bytes - r->high_water, host_ms(*r->alloc),
                  std::nullopt);
      rounded = rounded && rounded_up(r->high_water) == r->alloc->bytes &&
                r->high_water != r->alloc->bytes;
    }
  }
  if (f.count == 0) return;
  f.bytes = held - used;
  f.sites = ranked(sites);
  // What is held matters here, not time: the largest waste first.
  std::stable_sort(
      f.sites.begin(), f.sites.end(),
      [](const DoctorSiteCost& x, const DoctorSiteCost& y) { return x.bytes > y.bytes; });
  f.evidence.push_back(fmt::format(
      "{} at {} page-locked {}; the copies made from {} reached {} at most (each "
      "allocation's high-water mark): {} ({:.0f}%) page-locked and never copied",
      plural(f.count, "allocation", "allocations"), plural(f.sites.size(), "site", "sites"),
      format_size(held), f.count == 1 ? "it" : "them", format_size(used), format_size(f.bytes),
      100.0 * static_cast<double>(f.bytes) / static_cast<double>(held)));
  if (rounded) {
    f.evidence.push_back(
        "each is the power of two just above what its copies used: an allocator that rounds "
        "sizes up (PyTorch's caching host allocator rounds every block to the next power of two) "
        "page-locked the difference");
  }
  if (unseen > 0) {
    f.evidence.push_back(fmt::format(
        "{} ({}) held no copy doctor could match (kernels may read them mapped, or their copies' "
        "APIs do not name a pointer) and are not judged",
        plural(unseen, "more allocation", "more allocations"), format_size(unseen_bytes)));
  }
  f.evidence.push_back(
      "no time is estimated: page-locked memory held costs the rest of the system memory it "
      "cannot swap or move, not this program time");
  set_fix(
      f, t,
      {"PyTorch's caching host allocator rounds every pinned block up to a power of two: pin "
       "one buffer of the size the copies need and reuse it, registering exactly its bytes",
       "buf = torch.empty(nbytes, dtype=torch.uint8)   # pageable, exactly nbytes, once\n"
       "torch.cuda.cudart().cudaHostRegister(buf.data_ptr(), nbytes, 0)   # pin exactly it\n"
       "buf.copy_(batch.view(-1).view(torch.uint8)); dev.copy_(buf, non_blocking=True)"},
      {"Page-lock only what is copied: size each allocation, or pool, by what its copies "
       "reach, not by a rounded-up or worst-case size; grow a pool on demand, off the "
       "critical path",
       "cudaHostAlloc(&buf, bytes_copied, cudaHostAllocDefault);  // not the next power of two"});
  a.findings.push_back(std::move(f));
}

// Page-locked allocations and registrations made once the process's copies had begun (its first
// copy or synchronisation), outside the sites alloc-churn already reports.
void finding_pinning_critical_path(const DoctorTrace& t, const std::set<std::string>& churn,
                                   DoctorAnalysis& a) {
  std::map<int, std::int64_t> first_work;
  for (const DoctorCall& c : t.calls) {
    if (!is_copy(c) && c.kind != "sync") continue;
    const auto it = first_work.find(c.pid);
    if (it == first_work.end() || c.start_ns < it->second) first_work[c.pid] = c.start_ns;
  }
  std::vector<const DoctorCall*> calls;
  double total = 0;
  for (const DoctorCall& c : t.calls) {
    if ((c.kind != "alloc" && c.kind != "register") || c.status != 0) continue;
    const auto it = first_work.find(c.pid);
    if (it == first_work.end() || c.start_ns < it->second || churn.count(describe(t, c).first)) {
      continue;
    }
    calls.push_back(&c);
    total += host_ms(c);
  }
  if (calls.empty() || total < kSlowPinningMs) return;
  DoctorFinding f;
  f.id = "pinning-critical-path";
  f.title = "Page-locking on the critical path";
  std::map<std::string, SiteSum> sites;
  std::vector<const DoctorCall*> slow;
  for (const DoctorCall* c : calls) {
    ++f.count;
    f.bytes += c->bytes;
    f.host_ms += host_ms(*c);
    add_to_site(sites, t, *c, c->bytes, host_ms(*c), host_ms(*c));
    if (host_ms(*c) > kSlowPinningMs) slow.push_back(c);
  }
  f.lost_ms = f.host_ms;
  f.sites = ranked(sites);
  f.evidence.push_back(fmt::format(
      "{} ({}) {} made after the program's copies had begun and held {} for {:.3f} ms; "
      "page-locking takes a driver-wide lock, so other threads' CUDA calls can wait behind it "
      "too",
      plural(f.count, "page-locked allocation or registration",
             "page-locked allocations and registrations"),
      format_size(f.bytes), f.count == 1 ? "was" : "were",
      f.count == 1 ? "its thread" : "their threads", f.host_ms));
  if (!slow.empty()) {
    std::stable_sort(slow.begin(), slow.end(), [](const DoctorCall* x, const DoctorCall* y) {
      return host_ms(*x) > host_ms(*y);
    });
    std::string named;
    for (std::size_t i = 0; i < slow.size() && i < 5; ++i) {
      named += fmt::format("{}{} ({}) at {} in {:.3f} ms", i == 0 ? "" : "; ",
                           format_size(slow[i]->bytes), doctor_api_name(slow[i]->api),
                           describe(t, *slow[i]).first, host_ms(*slow[i]));
    }
    f.evidence.push_back(fmt::format("{} took over {:g} ms: {}{}",
                                     plural(slow.size(), "call", "calls"), kSlowPinningMs, named,
                                     slow.size() > 5 ? "; ..." : ""));
  }
  f.evidence.push_back(fmt::format(
      "made once at start-up, before the first copy, or on a thread of their own, they would "
      "cost the path nothing: {:.3f} ms saved",
      f.host_ms));
  set_fix(f, t,
          {"Pin at start-up and reuse: pin_memory() in the loop page-locks anew whenever "
           "PyTorch's caching host allocator has no free block of that rounded size",
           "staging = torch.empty(shape, dtype=dtype, pin_memory=True)   # at start-up\n"
           "for batch in data:\n"
           "    staging.copy_(batch); gpu.copy_(staging, non_blocking=True)"},
          {"Page-lock at start-up, or on a background thread while the rest initialises, and "
           "reuse the buffers; a pool that grows in the middle of the work pays the pinning there",
           "cudaHostAlloc(&pool, pool_bytes, cudaHostAllocDefault);  // once, at start-up\n"
           "// in the loop: take buffers from the pool, never cudaHostAlloc"});
  a.findings.push_back(std::move(f));
}

// --- small-copy-storm ---------------------------------------------------------------------------

struct Storm {
  std::string where;
  std::vector<const DoctorCall*> calls;
};

// Call sites of at least kStormCalls copies between host and device each under kSmallCopyBytes
// (one call per copy: a batch is the fix already).
std::vector<Storm> storms(const DoctorTrace& t) {
  std::map<std::string, std::vector<const DoctorCall*>> by_site;
  for (const DoctorCall& c : t.calls) {
    if ((c.kind != "copy" && c.kind != "copy_async") || c.status != 0) continue;
    const std::string d = call_direction(c);
    const std::uint64_t b = call_bytes(c);
    if ((d != "h2d" && d != "d2h") || b == 0 || b >= kSmallCopyBytes) continue;
    by_site[describe(t, c).first].push_back(&c);
  }
  std::vector<Storm> out;
  for (auto& [where, calls] : by_site) {
    if (calls.size() >= kStormCalls) out.push_back({where, std::move(calls)});
  }
  return out;
}

std::optional<double> per_copy_ms(const Case* c, std::uint64_t copies) {
  if (c == nullptr || copies == 0) return std::nullopt;
  const std::optional<double> ms = verified_median(*c);
  if (!ms) return std::nullopt;
  return *ms / static_cast<double>(copies);
}

std::vector<DoctorSmallCopyRate> small_copy_rates(const RunRecord& r) {
  std::vector<DoctorSmallCopyRate> out;
  for (const Case& c : r.cases) {
    const std::uint64_t copies = extra_u64(c, "chunks");
    if (c.part != kSmallCopyPart || copies == 0 || c.method != kEachMethod) continue;
    DoctorSmallCopyRate rate{c.direction, c.bytes / copies, copies, {}, {}, {}};
    rate.each_ms = per_copy_ms(&c, copies);
    for (const Case& o : r.cases) {
      if (o.part != kSmallCopyPart || o.direction != c.direction || o.bytes != c.bytes ||
          extra_u64(o, "chunks") != copies) {
        continue;
      }
      if (o.method == kBatchMethod) rate.batched_ms = per_copy_ms(&o, copies);
      if (o.method == kContiguousMethod) rate.contiguous_ms = per_copy_ms(&o, copies);
    }
    out.push_back(rate);
  }
  return out;
}

// The calibrated small-copy rate of `direction` nearest `bytes` a copy (log size) that says what
// one call per copy and one batch cost.
const DoctorSmallCopyRate* nearest_small(const std::vector<DoctorSmallCopyRate>& rates,
                                         const std::string& direction, std::uint64_t bytes) {
  return nearest_in_size(
      rates, bytes,
      [&](const DoctorSmallCopyRate& r) {
        return r.direction == direction && r.each_ms && r.batched_ms;
      },
      [](const DoctorSmallCopyRate& r) { return r.copy_bytes; });
}

void finding_small_copy_storm(const DoctorTrace& t, DoctorAnalysis& a) {
  const std::vector<Storm> found = storms(t);
  if (found.empty()) return;
  DoctorFinding f;
  f.id = "small-copy-storm";
  f.title = "Storms of small copies, one call each";
  std::map<std::string, SiteSum> sites;
  double saved = 0, gathered = 0;
  bool all_saved = true, all_gathered = true;
  const DoctorSmallCopyRate* shown = nullptr;
  for (const Storm& s : found) {
    for (const DoctorCall* c : s.calls) {
      const std::uint64_t b = call_bytes(*c);
      ++f.count;
      f.bytes += b;
      f.host_ms += host_ms(*c);
      const DoctorSmallCopyRate* rate = nearest_small(a.small_copy_rates, call_direction(*c), b);
      std::optional<double> call_saved;
      if (rate != nullptr) {
        call_saved = std::max(0.0, *rate->each_ms - *rate->batched_ms);
        saved += *call_saved;
        if (rate->contiguous_ms) {
          gathered += std::max(0.0, *rate->each_ms - *rate->contiguous_ms);
        } else {
          all_gathered = false;
        }
        if (shown == nullptr) shown = rate;
      } else {
        all_saved = false;
      }
      add_to_site(sites, t, *c, b, host_ms(*c), call_saved);
    }
  }
  if (all_saved) f.lost_ms = saved;
  f.sites = ranked(sites);
  f.evidence.push_back(fmt::format(
      "{} of under {} ({} in all, {} each on average) at {} of {} or more such copies held the "
      "host for {:.3f} ms; each call pays the driver's fixed cost, and each copy the engine's",
      plural(f.count, "copy", "copies"), format_size(kSmallCopyBytes), format_size(f.bytes),
      format_size(f.bytes / f.count), plural(f.sites.size(), "site", "sites"), kStormCalls,
      f.host_ms));
  if (shown != nullptr) {
    f.evidence.push_back(fmt::format(
        "calibrated here with {} copies of {} ({}), to completion: {:.2f} us a copy at one call "
        "each, {:.2f} us in one cudaMemcpyBatchAsync{}",
        shown->copies, format_size(shown->copy_bytes), direction_words(shown->direction),
        1000 * *shown->each_ms, 1000 * *shown->batched_ms,
        shown->contiguous_ms
            ? fmt::format(", {:.2f} us as one contiguous copy", 1000 * *shown->contiguous_ms)
            : std::string()));
  }
  if (f.lost_ms) {
    f.evidence.push_back(fmt::format(
        "batched, these copies would take about {:.3f} ms less{}", *f.lost_ms,
        all_gathered ? fmt::format("; gathered into one buffer and copied once, up to {:.3f} ms "
                                   "less, before the cost of the gather",
                                   gathered)
                     : std::string()));
  } else {
    f.evidence.push_back(
        "the record holds no small-copy calibration for them, so the time saved is not "
        "estimated");
  }
  set_fix(f, t,
          {"Copy the small tensors as one: gather them into one (page-locked) buffer, copy it "
           "once with non_blocking=True, and split it on the device",
           "flat = torch.cat([t.reshape(-1) for t in small])   # or copy into one pinned buffer\n"
           "parts = flat.to('cuda', non_blocking=True).split([t.numel() for t in small])"},
          {"Make the small copies one call: cudaMemcpyBatchAsync (CUDA 12.8 and later) takes them "
           "all at once; or gather them into one contiguous page-locked buffer and copy it once",
           "cudaMemcpyAttributes attr = {};\n"
           "attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;\n"
           "size_t attr_index = 0;\n"
           "cudaMemcpyBatchAsync(dsts, srcs, sizes, count, &attr, &attr_index, 1, stream);"});
  a.findings.push_back(std::move(f));
}

// --- sync-after-copy ----------------------------------------------------------------------------

// The first start and last end of a call's copies; none without copies.
std::optional<std::pair<std::int64_t, std::int64_t>> copy_span(const DoctorCall& c) {
  if (c.copies.empty()) return std::nullopt;
  std::int64_t first = c.copies.front().start_ns, last = c.copies.front().end_ns;
  for (const Copy& k : c.copies) {
    first = std::min(first, k.start_ns);
    last = std::max(last, k.end_ns);
  }
  return std::make_pair(first, last);
}

// Asynchronous copies each followed, on their thread, by a synchronisation before the next copy,
// at a site that made at least kLoopCalls of them and never one without.
void finding_sync_after_copy(const DoctorTrace& t, DoctorAnalysis& a) {
  std::map<std::pair<int, std::uint32_t>, std::vector<const DoctorCall*>> threads;
  for (const DoctorCall& c : t.calls) {
    if (is_copy(c) || c.kind == "sync") threads[{c.pid, c.thread}].push_back(&c);
  }
  struct Waited {
    const DoctorCall* copy;
    const DoctorCall* sync;  // nullptr: the next call of its thread was not a synchronisation
  };
  std::map<std::string, std::vector<Waited>> by_site;
  for (const auto& [thread, calls] : threads) {
    for (std::size_t i = 0; i < calls.size(); ++i) {
      const DoctorCall* c = calls[i];
      if ((c->kind != "copy_async" && c->kind != "batch") || c->status != 0) continue;
      const DoctorCall* next = i + 1 < calls.size() ? calls[i + 1] : nullptr;
      by_site[describe(t, *c).first].push_back(
          {c, next != nullptr && next->kind == "sync" && next->status == 0 ? next : nullptr});
    }
  }
  DoctorFinding f;
  f.id = "sync-after-copy";
  f.title = "A synchronisation after every copy, in a loop";
  std::map<std::string, SiteSum> sites;
  double waited = 0;
  for (auto& [where, list] : by_site) {
    if (list.size() < kLoopCalls ||
        std::any_of(list.begin(), list.end(), [](const Waited& w) { return w.sync == nullptr; })) {
      continue;
    }
    std::stable_sort(list.begin(), list.end(), [](const Waited& x, const Waited& y) {
      return x.copy->start_ns < y.copy->start_ns;
    });
    for (std::size_t i = 0; i < list.size(); ++i) {
      const DoctorCall& c = *list[i].copy;
      const double sync_ms = host_ms(*list[i].sync);
      // Had the copies been queued (synchronised once, or double-buffered), what the thread did
      // between one copy's end and the next one's start would have run beside the next copy: the
      // gap, up to that copy's own length.
      std::optional<double> lost;
      if (i + 1 < list.size() && list[i + 1].copy->pid == c.pid &&
          list[i + 1].copy->thread == c.thread) {
        const auto here = copy_span(c), next = copy_span(*list[i + 1].copy);
        if (here && next) {
          const double gap =
              static_cast<double>(std::max<std::int64_t>(0, next->first - here->second));
          lost = std::min(gap, static_cast<double>(next->second - next->first)) / 1e6;
        }
      }
      ++f.count;
      f.bytes += call_bytes(c);
      f.host_ms += host_ms(c) + sync_ms;
      waited += sync_ms;
      if (lost) f.lost_ms = f.lost_ms.value_or(0) + *lost;
      add_to_site(sites, t, c, call_bytes(c), host_ms(c) + sync_ms, lost);
    }
  }
  if (f.count == 0) return;
  if (!f.lost_ms) f.lost_ms = 0.0;  // copies without device times: nothing shown to overlap
  f.sites = ranked(sites);
  f.evidence.push_back(fmt::format(
      "{} ({}) at {} {} each followed by a synchronisation before the next copy, {:.3f} ms of "
      "host time waiting in them: each copy ran alone, overlapping neither the host's work "
      "between the copies nor the next copy",
      plural(f.count, "asynchronous copy", "asynchronous copies"), format_size(f.bytes),
      plural(f.sites.size(), "site", "sites"), f.count == 1 ? "was" : "were", waited));
  f.evidence.push_back(fmt::format(
      "queued and synchronised once (or double-buffered where each result is read), the host's "
      "work between the copies would run beside them: about {:.3f} ms saved (each gap between a "
      "copy's end and the next one's start, up to the next copy's own length)",
      *f.lost_ms));
  set_fix(
      f, t,
      {"Synchronise once per step, not per copy: .cpu(), .item() and "
       "torch.cuda.synchronize() each wait; copy into page-locked tensors with "
       "non_blocking=True and wait once, where the host reads the results",
       "outs = [torch.empty(t.shape, dtype=t.dtype, pin_memory=True) for t in tensors]  # once\n"
       "for out, t in zip(outs, tensors):\n"
       "    out.copy_(t, non_blocking=True)\n"
       "torch.cuda.current_stream().synchronize()   # once, after the loop"},
      {"Queue the copies and synchronise once after the loop; where the host needs each "
       "result, double-buffer: issue copy i+1 before waiting on copy i's event",
       "for (int i = 0; i < n; ++i) {\n"
       "  cudaMemcpyAsync(dst[i], src[i], bytes, kind, stream);\n"
       "  cudaEventRecord(done[i], stream);  // wait on done[i] only where buffer i is read\n"
       "}\n"
       "cudaStreamSynchronize(stream);  // once"});
  a.findings.push_back(std::move(f));
}

// --- numa-placement -----------------------------------------------------------------------------

struct Misplaced {
  const DoctorCall* copy;
  const DoctorCall* alloc;  // the page-locked buffer the copy used; nullptr for pageable memory
  int node;
  std::string memory;  // "pinned" or "pageable"
};

struct NumaSeen {
  std::string not_judged;                  // why placement cannot be judged here, or ""
  std::vector<const DoctorCall*> buffers;  // page-locked buffers off the GPU's node
  std::vector<Misplaced> copies;
};

NumaSeen numa_seen(const MachineInfo& m, const DoctorTrace& t, const PinnedRanges& pinned) {
  NumaSeen n;
  bool anything = false, read = false;
  for (const DoctorCall& c : t.calls) {
    if (c.status != 0) continue;
    const bool buffer = c.kind == "alloc" || c.kind == "register";
    const bool large_pageable =
        is_copy(c) && has_pageable(c) && call_bytes(c) >= doctor_events::kNumaSampleBytes;
    anything = anything || buffer || large_pageable;
    read = read || ((buffer || is_copy(c)) && c.numa_node >= 0);
  }
  if (!anything) return n;
  if (m.host_numa_nodes == 1) {
    n.not_judged =
        "this host has one NUMA node, so every page lies on the GPU's node: nothing can be "
        "misplaced";
  } else if (m.numa_node < 0) {
    n.not_judged =
        "the GPU's NUMA node is unknown (the platform does not say), so no page can be said to "
        "lie off it";
  } else if (!read) {
    n.not_judged =
        "no page's NUMA node was read (a record made before doctor read them, or a kernel that "
        "refused move_pages)";
  }
  if (!n.not_judged.empty()) return n;
  for (const PinnedRange& r : pinned.ranges) {
    if (r.alloc->numa_node < 0 || r.alloc->numa_node == m.numa_node) continue;
    n.buffers.push_back(r.alloc);
    for (const DoctorCall* c : r.copies) {
      n.copies.push_back({c, r.alloc, r.alloc->numa_node, "pinned"});
    }
  }
  for (const DoctorCall& c : t.calls) {
    if (is_copy(c) && c.status == 0 && has_pageable(c) && c.numa_node >= 0 &&
        c.numa_node != m.numa_node) {
      n.copies.push_back({&c, nullptr, c.numa_node, "pageable"});
    }
  }
  return n;
}

std::vector<DoctorNumaRate> numa_rates(const RunRecord& r) {
  std::vector<DoctorNumaRate> out;
  for (const Case& c : r.cases) {
    if (c.part != kNumaPart) continue;
    const int node = extra_int(c, "host_numa_node", -1);
    out.push_back({c.direction, c.memory, c.bytes, node, node == r.machine.numa_node,
                   figures_of(c).gb_per_s});
  }
  return out;
}

// The calibrated rate of a direction and memory with the host buffer on `node`, at the size
// nearest `bytes` (log size).
std::optional<double> numa_rate(const std::vector<DoctorNumaRate>& rates, const std::string& dir,
                                const std::string& memory, int node, std::uint64_t bytes) {
  const DoctorNumaRate* best = nearest_in_size(
      rates, bytes,
      [&](const DoctorNumaRate& r) {
        return r.direction == dir && r.memory == memory && r.node == node && r.gb_per_s;
      },
      [](const DoctorNumaRate& r) { return r.bytes; });
  return best != nullptr ? best->gb_per_s : std::nullopt;
}

void finding_numa(const RunRecord& r, const DoctorTrace& t, const PinnedRanges& pinned,
                  DoctorAnalysis& a) {
  const NumaSeen n = numa_seen(r.machine, t, pinned);
  if (!n.not_judged.empty()) {
    a.not_judged.push_back({"numa-placement", n.not_judged});
    return;
  }
  if (n.buffers.empty() && n.copies.empty()) return;
  DoctorFinding f;
  f.id = "numa-placement";
  f.title = "Host memory on a NUMA node other than the GPU's";
  f.counted = "copies";
  std::map<std::string, SiteSum> sites;
  std::set<int> nodes;
  double lost = 0;
  bool all_lost = true;
  std::uint64_t pageable_copies = 0;
  std::string shown;
  for (const Misplaced& m : n.copies) {
    const std::uint64_t b = call_bytes(*m.copy);
    const std::string dir = call_direction(*m.copy);
    const std::optional<double> near =
        numa_rate(a.numa_rates, dir, m.memory, r.machine.numa_node, b);
    const std::optional<double> far = numa_rate(a.numa_rates, dir, m.memory, m.node, b);
    std::optional<double> copy_lost;
    if (near && far) {
      copy_lost = std::max(
          0.0, static_cast<double>(b) / (*far * 1e6) - static_cast<double>(b) / (*near * 1e6));
      lost += *copy_lost;
      if (shown.empty()) {
        shown = fmt::format(
            "{} {} {:.2f} GB/s with the host buffer on node {}, {:.2f} GB/s on "
            "node {}",
            direction_words(dir), m.memory, *near, r.machine.numa_node, *far, m.node);
      }
    } else {
      all_lost = false;
    }
    nodes.insert(m.node);
    pageable_copies += m.alloc == nullptr ? 1 : 0;
    ++f.count;
    f.bytes += b;
    f.host_ms += host_ms(*m.copy);
    // A page-locked buffer is fixed where it was allocated; pageable memory where it was copied.
    add_to_site(sites, t, m.alloc != nullptr ? *m.alloc : *m.copy, b, host_ms(*m.copy), copy_lost);
  }
  std::uint64_t buffer_bytes = 0;
  for (const DoctorCall* b : n.buffers) {
    buffer_bytes += b->bytes;
    nodes.insert(b->numa_node);
  }
  if (all_lost && !n.copies.empty()) f.lost_ms = lost;
  f.sites = ranked(sites);
  std::string node_list;
  for (int node : nodes) node_list += (node_list.empty() ? "" : ", ") + std::to_string(node);
  f.evidence.push_back(fmt::format(
      "page-locked buffers on NUMA node{} {}: {} ({}); pageable copies of 1 MiB or more whose "
      "pages lie there: {}; the GPU sits on node {}, so {} ({}) crossed the link between the "
      "sockets",
      nodes.size() == 1 ? "" : "s", node_list, n.buffers.size(), format_size(buffer_bytes),
      pageable_copies, r.machine.numa_node, plural(f.count, "copy", "copies"),
      format_size(f.bytes)));
  if (f.lost_ms) {
    f.evidence.push_back(
        fmt::format("calibrated here at both placements ({}): about {:.3f} ms "
                    "of copy time lost to the distance",
                    shown, *f.lost_ms));
  } else {
    f.evidence.push_back(
        "the record holds no calibration at both placements for these copies, so the time lost "
        "is not estimated");
  }
  set_fix(f, t,
          {"Run the process (and its loader workers) on the GPU's node, so pin_memory() and the "
           "caching host allocator place their pages there",
           "numactl --cpunodebind=N --membind=N python train.py   # N: the GPU's node "
           "(nvidia-smi topo -m)"},
          {"Allocate page-locked buffers from a thread bound to the GPU's node (its CPUs, so "
           "first touch puts the pages there), or bind the whole process to that node",
           "numactl --cpunodebind=N --membind=N ./program   # N: the GPU's node (nvidia-smi topo "
           "-m)\n"
           "// or, in the program: sched_setaffinity to the node's CPUs before cudaHostAlloc"});
  a.findings.push_back(std::move(f));
}

// The size whose weight (copies, or bytes moved) is the largest; the smallest such on a tie.
std::uint64_t heaviest(const std::map<std::uint64_t, std::uint64_t>& weights) {
  std::uint64_t best = 0, most = 0;
  for (const auto& [size, weight] : weights) {
    if (weight > most) {
      best = size;
      most = weight;
    }
  }
  return best;
}

// The report's first line: what fixing the findings would save, of the program's wall time.
void say_headline(const DoctorTrace& t, DoctorAnalysis& a) {
  if (a.findings.empty()) return;
  std::string ids;
  std::size_t estimated = 0;
  double saved = 0;
  for (const DoctorFinding& f : a.findings) {
    if (!f.lost_ms) continue;
    ids += (ids.empty() ? "" : ", ") + f.id;
    saved += *f.lost_ms;
    ++estimated;
  }
  const std::size_t without = a.findings.size() - estimated;
  if (estimated == 0) {
    a.headline = fmt::format("{}, none with a time estimate (no rates for {} in the record).",
                             plural(without, "finding", "findings"), without == 1 ? "it" : "them");
    return;
  }
  a.saved_ms = saved;
  a.headline = fmt::format(
      "Fix {} ({}) and save about {} ms{}{}.",
      estimated == 1 ? std::string("this finding") : fmt::format("these {} findings", estimated),
      ids, about_ms(saved),
      t.wall_ms > 0 ? fmt::format(" of the program's {} ms", about_ms(t.wall_ms)) : std::string(),
      without > 0 ? fmt::format("; {} {} no time estimate", without,
                                without == 1 ? "more has" : "more have")
                  : std::string());
}

}  // namespace

const std::vector<std::string>& doctor_finding_ids() {
  static const std::vector<std::string> ids = {
      "pageable-async", "pageable-async-d2h", "pageable-sync-loop", "alloc-churn",
      "over-pinning",   "managed-migration",  "pinned-unused",      "pinning-critical-path",
      "numa-placement", "small-copy-storm",   "sync-after-copy"};
  return ids;
}

std::string doctor_api_name(const std::string& api) {
  std::string name = api;
  const std::size_t v = name.rfind("_v");
  if (v != std::string::npos && v + 2 < name.size() &&
      std::isdigit(static_cast<unsigned char>(name[v + 2]))) {
    name.erase(v);
  }
  return name;
}

DoctorCalibrationPlan doctor_calibration_plan(const MachineInfo& m, const DoctorTrace& t) {
  DoctorCalibrationPlan plan;
  // Small copies: per direction, the size its storms copied most often.
  std::map<std::string, std::map<std::uint64_t, std::uint64_t>> sizes;
  for (const Storm& s : storms(t)) {
    for (const DoctorCall* c : s.calls) ++sizes[call_direction(*c)][call_bytes(*c)];
  }
  for (const auto& [direction, counts] : sizes) plan.small.push_back({direction, heaviest(counts)});
  // NUMA: the nodes involved, where the host has two or more and the GPU's is known.
  if (m.host_numa_nodes >= 2 && m.numa_node >= 0) {
    const PinnedRanges pinned = pinned_ranges(t);
    const NumaSeen n = numa_seen(m, t, pinned);
    std::map<std::pair<std::string, std::string>, std::map<std::uint64_t, std::uint64_t>> moved;
    std::map<std::pair<std::string, std::string>, std::set<int>> nodes;
    for (const Misplaced& x : n.copies) {
      const std::string d = call_direction(*x.copy);
      if (d != "h2d" && d != "d2h") continue;
      const std::uint64_t b = call_bytes(*x.copy);
      moved[{d, x.memory}][b] += b;
      nodes[{d, x.memory}].insert(x.node);
    }
    constexpr std::uint64_t kLeast = std::uint64_t{1} << 20, kMost = std::uint64_t{256} << 20;
    for (const auto& [key, by_size] : moved) {
      DoctorCalibrationPlan::Numa numa{
          key.first, key.second, std::clamp(heaviest(by_size), kLeast, kMost), {m.numa_node}};
      for (int node : nodes[key]) numa.nodes.push_back(node);
      plan.numa.push_back(std::move(numa));
    }
  }
  return plan;
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
  for (const DoctorProcess& p : t.process_list) a.processes.push_back({p.pid, p.end, 0, 0, 0});
  for (const DoctorCall& c : t.calls) {
    if (!is_copy(c)) continue;
    const auto it = std::find_if(a.processes.begin(), a.processes.end(),
                                 [&](const DoctorProcessCount& p) { return p.pid == c.pid; });
    if (it == a.processes.end()) continue;
    ++it->copy_calls;
    it->bytes += host_bytes(c);
    it->from_api += c.from_api ? 1 : 0;
  }
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
  a.small_copy_rates = small_copy_rates(r);
  a.numa_rates = numa_rates(r);
  if (reads_pageable_through_host_page_tables(r.machine)) {
    a.pageable_note = fmt::format(
        "This GPU reads pageable memory through the host's page tables (HMM/ATS, as on Grace "
        "Hopper), where copies from pageable memory can run near the page-locked rate: a "
        "pageable finding is kept only where this machine's calibration shows pageable copies "
        "below {:.0f}% of the page-locked rate, and says so.",
        100 * kHmmNearPinned);
  }
  finding_pageable_async(r, t, a, false);
  finding_pageable_async(r, t, a, true);
  finding_pageable_sync_loop(r, t, a);
  const std::set<std::string> churn = finding_alloc_churn(t, a);
  finding_over_pinning(r, t, a);
  finding_managed(t, a);
  const PinnedRanges pinned = pinned_ranges(t);
  finding_pinned_unused(t, pinned, a);
  finding_pinning_critical_path(t, churn, a);
  finding_numa(r, t, pinned, a);
  finding_small_copy_storm(t, a);
  finding_sync_after_copy(t, a);
  // Ranked by the time a fix saves; findings without an estimate after them, by host time.
  std::stable_sort(a.findings.begin(), a.findings.end(),
                   [](const DoctorFinding& x, const DoctorFinding& y) {
                     if (x.lost_ms.has_value() != y.lost_ms.has_value())
                       return x.lost_ms.has_value();
                     return x.lost_ms.value_or(x.host_ms) > y.lost_ms.value_or(y.host_ms);
                   });
  say_headline(t, a);
  return a;
}

}  // namespace pinbench
