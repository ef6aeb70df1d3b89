// pinning-failed: a page-locking call that failed (an error, or success with a range the driver
// does not call page-locked) and copies that then went from or to that range as pageable memory.
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "experiments/doctor/findings/calls.hpp"
#include "experiments/doctor/findings/cuda_errors.hpp"
#include "experiments/doctor/findings/finding.hpp"
#include "experiments/doctor/findings/rates.hpp"
#include "experiments/doctor/findings/sites.hpp"
#include "framework/case_figures.hpp"
#include "framework/report_tables.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::doctor::findings {
namespace {

// A page-locking call that left its range (or, for an allocation that failed, nothing)
// pageable, and the copy calls that then went pageable because of it.
struct Failure {
  const DoctorCall* call = nullptr;
  bool silent = false;  // it returned success
  std::vector<const DoctorCall*> copies;
};

// Whether `c` is a page-locking call that failed: an error, unless the driver called its range
// page-locked all the same (a range registered already); or success with a range the driver does
// not call page-locked.
bool failed(const DoctorCall& c) {
  if (c.kind != "alloc" && c.kind != "register") return false;
  if (c.status != 0) return !(c.locked && *c.locked);
  return c.locked && !*c.locked;
}

// A copy call the driver (or, where its records were lost, the collector) made from or into
// pageable memory, with the host pointer it named.
bool pageable_copy(const DoctorCall& c) {
  return is_copy(c) && c.status == 0 && (has_pageable(c) || c.host == "pageable");
}

// What the failed call returned, in words: "error 1 (cudaErrorInvalidValue)", or success with
// the range left pageable.
std::string result_words(const Failure& f) {
  if (f.silent) {
    return "returned success, but the driver did not call the range page-locked after it";
  }
  return "returned " + cuda_error_words(f.call->domain == "runtime", f.call->status);
}

// The copies' own rate on the copy engine (their bytes over the time their activity records
// took), where they have such records.
std::optional<double> measured_gb_per_s(const std::vector<const DoctorCall*>& calls) {
  double bytes = 0, ns = 0;
  for (const DoctorCall* c : calls) {
    if (c->from_api) continue;
    for (const Copy& k : c->copies) {
      if (!pageable(k) || k.end_ns <= k.start_ns) continue;
      bytes += static_cast<double>(k.bytes);
      ns += static_cast<double>(k.end_ns - k.start_ns);
    }
  }
  if (ns <= 0) return std::nullopt;
  return bytes / ns;  // bytes per ns is GB/s
}

// Gives each pageable copy to the latest failure of its process that ended before it began and
// whose range holds its host pointer, else to the latest allocation of its process that failed
// outright before it and asked for at least its bytes. One sweep in time, so a record of many
// failures and copies is judged in the time of its length, not of their product.
void match_copies(const DoctorTrace& t, std::vector<Failure>& failures) {
  std::vector<std::size_t> ended(failures.size());
  for (std::size_t i = 0; i < ended.size(); ++i) ended[i] = i;
  std::stable_sort(ended.begin(), ended.end(), [&](std::size_t x, std::size_t y) {
    return failures[x].call->end_ns < failures[y].call->end_ns;
  });
  std::vector<const DoctorCall*> copies;
  for (const DoctorCall& c : t.calls) {
    if (pageable_copy(c)) copies.push_back(&c);
  }
  std::stable_sort(copies.begin(), copies.end(), [](const DoctorCall* x, const DoctorCall* y) {
    return x->start_ns < y->start_ns;
  });
  struct Process {
    std::map<std::uint64_t, Failure*> ranges;  // by start; a later failure of one start wins
    std::uint64_t largest = 0;
    // Allocations that failed outright: their bytes fall from the oldest to the newest, so the
    // newest that asked for at least n bytes is the last one of at least n (a binary search).
    std::vector<Failure*> allocations;
  };
  std::map<int, Process> by_pid;
  std::size_t next = 0;
  for (const DoctorCall* c : copies) {
    for (; next < ended.size() && failures[ended[next]].call->end_ns <= c->start_ns; ++next) {
      Failure& f = failures[ended[next]];
      Process& p = by_pid[f.call->pid];
      if (f.call->ptr != 0) {
        p.ranges[f.call->ptr] = &f;
        p.largest = std::max(p.largest, f.call->bytes);
      } else if (f.call->kind == "alloc") {
        while (!p.allocations.empty() && p.allocations.back()->call->bytes <= f.call->bytes) {
          p.allocations.pop_back();
        }
        p.allocations.push_back(&f);
      }
    }
    const auto it = by_pid.find(c->pid);
    if (it == by_pid.end()) continue;
    Process& p = it->second;
    Failure* to = nullptr;
    if (c->ptr != 0) {
      // The ranges starting at or below the pointer, nearest first, as far as the largest reaches.
      for (auto r = p.ranges.upper_bound(c->ptr); r != p.ranges.begin();) {
        --r;
        const std::uint64_t offset = c->ptr - r->first;
        if (offset >= p.largest) break;
        if (offset < r->second->call->bytes &&
            (to == nullptr || r->second->call->end_ns > to->call->end_ns)) {
          to = r->second;
        }
      }
    }
    if (to == nullptr) {
      const std::uint64_t need = call_bytes(*c);
      const auto last =
          std::partition_point(p.allocations.begin(), p.allocations.end(),
                               [&](const Failure* f) { return f->call->bytes >= need; });
      if (last != p.allocations.begin()) to = *(last - 1);
    }
    if (to != nullptr) to->copies.push_back(c);
  }
}

// The copies' own rate against the page-locked rate at the size most of them had, where the
// record has both (the calibration's, or --rates'), as a sentence of the finding's evidence.
void say_rates(const RunRecord& r, const std::string& rates_from,
               const std::vector<const DoctorCall*>& all, DoctorFinding& f) {
  const std::optional<double> rate = measured_gb_per_s(all);
  std::map<std::uint64_t, std::uint64_t> sizes;
  std::string direction;
  for (const DoctorCall* c : all) {
    ++sizes[call_bytes(*c)];
    if (direction.empty()) direction = call_direction(*c);
  }
  std::uint64_t common = 0, most = 0;
  for (const auto& [size, n] : sizes) {
    if (n > most) {
      common = size;
      most = n;
    }
  }
  const Case* locked = direction.empty() ? nullptr : nearest(r, direction, "pinned", common);
  const std::optional<double> locked_rate =
      locked != nullptr ? figures_of(*locked).gb_per_s : std::nullopt;
  if (rate && locked_rate) {
    f.evidence.push_back(fmt::format(
        "they ran at {:.2f} GB/s on the copy engine, against {:.2f} GB/s page-locked ({} at {}, "
        "from {}): {:.1f}x slower",
        *rate, *locked_rate, direction_words(direction), format_size(locked->bytes), rates_from,
        *locked_rate / *rate));
  } else if (rate) {
    f.evidence.push_back(fmt::format(
        "they ran at {:.2f} GB/s on the copy engine; the record has no page-locked rate to set it "
        "against (a calibration, or --rates)",
        *rate));
  }
}

}  // namespace

// Page-locking calls that failed, and the pageable copies from or to what they were to lock: for
// a range (a registration, or an allocation that returned one the driver does not call
// page-locked), the copies of its process whose host pointer lay in it after the call; for an
// allocation that failed outright, the pageable copies its process made after it of at most the
// size it asked for (the fallback buffer is the program's, and doctor does not see it made).
void pinning_failed(const FindingInput& in, DoctorAnalysis& a) {
  const RunRecord& r = in.record;
  const DoctorTrace& t = in.trace;
  std::vector<Failure> failures;
  for (const DoctorCall& c : t.calls) {
    if (failed(c)) failures.push_back({&c, c.status == 0, {}});
  }
  if (failures.empty()) return;
  match_copies(t, failures);
  DoctorFinding f;
  f.id = "pinning-failed";
  f.title = "Page-locking failed, and copies went pageable";
  std::map<std::string, SiteSum> sites;
  std::vector<const DoctorCall*> all;
  std::vector<const Failure*> named;
  std::uint64_t quiet = 0;
  double pinned = 0, lost = 0;
  bool all_lost = true;
  for (const Failure& fail : failures) {
    if (fail.copies.empty()) {
      ++quiet;
      continue;
    }
    named.push_back(&fail);
    for (const DoctorCall* c : fail.copies) {
      const CopyCost cost = count_copy_call(r, *c, f);
      // What the call would have held the thread for from page-locked memory: an async call
      // returns at once, a blocking one once its copies are done.
      const std::optional<double> then = c->kind == "copy" ? cost.pinned_ms : cost.pinned_call_ms;
      std::optional<double> call_lost;
      if (then && cost.pinned_ms) {
        call_lost = std::max(0.0, host_ms(*c) - *then);
        lost += *call_lost;
        pinned += *cost.pinned_ms;
      } else {
        all_lost = false;
      }
      // The row is the failed call's site: that is where the fix goes.
      add_to_site(sites, t, *fail.call, host_bytes(*c), host_ms(*c), call_lost);
      all.push_back(c);
    }
  }
  if (named.empty()) return;
  if (all_lost) {
    f.lost_ms = lost;
    f.pinned_ms = pinned;
  }
  f.sites = ranked(sites);
  for (std::size_t i = 0; i < named.size() && i < 5; ++i) {
    const Failure& fail = *named[i];
    const DoctorCall& p = *fail.call;
    std::uint64_t bytes = 0;
    for (const DoctorCall* c : fail.copies) bytes += host_bytes(*c);
    f.evidence.push_back(fmt::format(
        "{} of {} at {} {}; then {} ({}) {}", doctor_api_name(p.api), format_size(p.bytes),
        describe(t, p).first, result_words(fail),
        plural(fail.copies.size(), "copy call", "copy calls"), format_size(bytes),
        p.ptr != 0 ? "went from or to that range as pageable memory"
                   : "of at most its size went from or to pageable memory in that process"));
  }
  if (named.size() > 5) {
    f.evidence.push_back(fmt::format("and {} more such calls", named.size() - 5));
  }
  if (quiet > 0) {
    f.evidence.push_back(
        fmt::format("{} more page-locking {} failed with no copy seen to go pageable after {}",
                    quiet, quiet == 1 ? "call" : "calls", quiet == 1 ? "it" : "them"));
  }
  say_rates(in.record, a.rates_from, all, f);
  if (f.lost_ms) {
    f.evidence.push_back(fmt::format(
        "from page-locked memory they would have held the host {:.3f} ms less ({:.3f} ms of copy "
        "engine time)",
        *f.lost_ms, *f.pinned_ms));
  }
  set_fix(
      f, t,
      {"Check what the registration returned and act on it: a failed cudaHostRegister leaves "
       "the tensor pageable and every copy from it slow. Register memory the driver can lock "
       "(writable, wholly mapped, in pieces below its per-call limits), or allocate it pinned",
       "err = torch.cuda.cudart().cudaHostRegister(buf.data_ptr(), nbytes, 0)\n"
       "if int(err) != 0:\n"
       "    raise RuntimeError(f\"cudaHostRegister failed: {err}\")   # or fall back knowingly"},
      {"Check each page-locking call's result and act on it: a failed registration leaves "
       "the range pageable and every copy from it slow. Register memory the driver can lock "
       "(writable and wholly mapped, or with cudaHostRegisterReadOnly; in pieces below its "
       "per-call limits), or allocate it with cudaHostAlloc",
       "cudaError_t e = cudaHostRegister(buf, bytes, cudaHostRegisterDefault);\n"
       "if (e != cudaSuccess) {  // the range is still pageable: say so, or stop\n"
       "  fprintf(stderr, \"pinning failed: %s\\n\", cudaGetErrorString(e));\n"
       "}"});
  if (judge_on_host_page_tables(r, all, f, a)) a.findings.push_back(std::move(f));
}

}  // namespace pinbench::experiments::doctor::findings
