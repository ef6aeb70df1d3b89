#include "experiments/doctor/trace.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "base/enum_names.hpp"
#include "experiments/doctor/events.hpp"
#include "framework/errors.hpp"
#include "framework/interrupt.hpp"
#include "framework/json_fields.hpp"

namespace pinbench::experiments::doctor {

using nlohmann::json;
namespace ev = events;

const DoctorSite* DoctorTrace::find_site(const std::string& id, int pid) const {
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (sites_indexed_ > sites.size()) {  // sites were taken away: start again
      site_index_.clear();
      sites_indexed_ = 0;
    }
    for (; sites_indexed_ < sites.size(); ++sites_indexed_) {
      const DoctorSite& s = sites[sites_indexed_];
      site_index_.emplace(std::make_pair(s.pid, s.id), sites_indexed_);  // the first one wins
    }
    const auto it = site_index_.find({pid, id});
    if (it == site_index_.end()) return nullptr;
    const DoctorSite& s = sites[it->second];
    if (s.id == id && s.pid == pid) return &s;
    // The site was changed in place since it was indexed: index them all again, once.
    site_index_.clear();
    sites_indexed_ = 0;
  }
  return nullptr;
}

namespace {

std::vector<std::string_view> split_tabs(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t from = 0;
  while (true) {
    const std::size_t tab = line.find('\t', from);
    out.push_back(line.substr(from, tab == std::string_view::npos ? line.npos : tab - from));
    if (tab == std::string_view::npos) break;
    from = tab + 1;
  }
  return out;
}

// A field that must be a whole number; false when it is not (the line is then skipped).
bool number(std::string_view s, std::uint64_t& out, int base = 10) {
  if (s.empty() || s.size() > 24) return false;
  const std::string text(s);
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), &end, base);
  if (errno != 0 || end != text.c_str() + text.size() || text[0] == '-') return false;
  out = v;
  return true;
}

bool signed_number(std::string_view s, int& out) {
  if (s.empty() || s.size() > 12) return false;
  const std::string text(s);
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (errno != 0 || end != text.c_str() + text.size() || v < INT_MIN || v > INT_MAX) return false;
  out = static_cast<int>(v);
  return true;
}

// The record's names for a copy's direction: the trace model's, but "other" for unknown.
constexpr EnumName<CopyDirection> kRecordDirections[] = {
    {CopyDirection::kH2D, "h2d"}, {CopyDirection::kD2H, "d2h"}, {CopyDirection::kD2D, "d2d"},
    {CopyDirection::kH2H, "h2h"}, {CopyDirection::kP2P, "p2p"}, {CopyDirection::kUnknown, "other"}};

// The record's names for an A line's direction and host side letters; "" for any other letter.
constexpr EnumName<ev::Api::Direction> kApiDirections[] = {{ev::Api::kToDevice, "h2d"},
                                                           {ev::Api::kToHost, "d2h"},
                                                           {ev::Api::kDeviceToDevice, "d2d"},
                                                           {ev::Api::kUnknown, ""}};
constexpr EnumName<ev::Api::HostSide> kApiHostSides[] = {{ev::Api::kPinned, "pinned"},
                                                         {ev::Api::kPageable, "pageable"},
                                                         {ev::Api::kManaged, "managed"},
                                                         {ev::Api::kNoHost, "none"},
                                                         {ev::Api::kUnread, ""}};

// A copy call whose activity records were lost: one copy from what the call itself said, when
// it said its direction, its bytes and where its host side lies; its times are the call's.
void copy_from_api(DoctorCall& c) {
  if ((c.kind != "copy" && c.kind != "copy_async") || c.status != 0 || c.bytes == 0) return;
  const DriverMemoryKind host =
      value_named(kDriverMemoryKindNames, c.host).value_or(DriverMemoryKind::kUnknown);
  if (host == DriverMemoryKind::kUnknown) return;
  Copy k;
  k.bytes = c.bytes;
  k.start_ns = c.start_ns;
  k.end_ns = c.end_ns;
  if (c.direction == "h2d") {
    k.direction = CopyDirection::kH2D;
    k.src_kind = host;
    k.dst_kind = DriverMemoryKind::kDevice;
  } else if (c.direction == "d2h") {
    k.direction = CopyDirection::kD2H;
    k.src_kind = DriverMemoryKind::kDevice;
    k.dst_kind = host;
  } else {
    return;
  }
  c.copies.push_back(k);
  c.from_api = true;
}

}  // namespace

namespace {

struct RawCopy {
  int pid;
  int image;  // which image of the pid (an exec starts another, its ids from the start again)
  std::uint64_t corr, rcorr;
  Copy copy;
  std::uint64_t start, end;
};

struct RawKernel {
  std::uint64_t start, end;
  std::uint32_t stream;
};

struct RawMigration {
  const char* kind;
  std::uint64_t value, start, end;
};

// What one pid's lines said of its images: started (L), collecting (H), ended unwatched (W),
// without asking for the CUDA driver or after asking for it.
struct PidSight {
  int loaded = 0, hello = 0, without_cuda = 0, cuda_unseen = 0;
};

// The event lines as read, before their times are made relative to the first process's start and
// their copies are joined to the calls that made them.
struct RawEvents {
  DoctorTrace t;
  std::vector<RawCopy> copies;
  std::vector<RawKernel> kernels;
  std::vector<RawMigration> migrations;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> call_times;  // raw start, end
  std::vector<int> call_images;                                     // each call's image
  std::map<int, int> images;         // pid -> its H lines so far: an exec'd image says hello again
  std::map<int, std::string> ended;  // pid -> how
  std::uint64_t origin = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t skipped = 0;
  std::uint32_t cupti_version = 0;
  bool truncated = false;
  std::vector<std::string> seen_notes;
  std::map<int, PidSight> pids;
  bool no_cupti = false, cupti_failed = false;
};

using Fields = std::vector<std::string_view>;

bool read_hello(const Fields& f, int pid, RawEvents& e) {
  using H = ev::Hello;
  std::uint64_t version = 0, t0 = 0;
  const bool ok = number(f[H::kCuptiVersion], version) && number(f[H::kClock], t0);
  if (ok) {
    ++e.t.processes;
    ++e.pids[pid].hello;
    ++e.images[pid];
    e.ended.emplace(pid, "");
    e.cupti_version = static_cast<std::uint32_t>(version);
    e.origin = std::min(e.origin, t0);
  }
  return ok;
}

void read_note(const Fields& f, RawEvents& e) {
  using N = ev::Note;
  const std::string note(f[N::kText]);
  if (std::find(e.seen_notes.begin(), e.seen_notes.end(), note) == e.seen_notes.end()) {
    e.seen_notes.push_back(note);
    e.t.notes.push_back(note);
  }
  const bool busy = f[N::kWhat] == N::kCuptiBusy || f[N::kWhat] == N::kCuptiFailed;
  if (busy || f[N::kWhat] == N::kNoCupti) e.t.cupti = note;
  e.no_cupti |= f[N::kWhat] == N::kNoCupti;
  e.cupti_failed |= busy;
}

bool read_unwatched(const Fields& f, int pid, RawEvents& e) {
  using W = ev::Unwatched;
  std::uint64_t asked = 0, loaded = 0;
  if (!number(f[W::kAsked], asked) || !number(f[W::kLoaded], loaded) || asked > 1 || loaded > 1) {
    return false;
  }
  PidSight& p = e.pids[pid];
  ++(asked != 0 || loaded != 0 ? p.cuda_unseen : p.without_cuda);
  return true;
}

bool read_api(const Fields& f, int pid, RawEvents& e) {
  using A = ev::Api;
  DoctorCall c;
  c.pid = pid;
  c.domain = f[A::kDomain] == std::string_view(&A::kRuntime, 1) ? "runtime" : "driver";
  c.kind = std::string(f[A::kClass]);
  std::uint64_t corr = 0, thread = 0, start = 0, end = 0, ptr = 0, bytes = 0;
  const std::string_view pointer = f[A::kPointer], site = f[A::kSite];
  const bool ok = number(f[A::kCorrelation], corr) && number(f[A::kThread], thread) &&
                  number(f[A::kStart], start) && number(f[A::kEnd], end) &&
                  signed_number(f[A::kStatus], c.status) && pointer.size() > 2 &&
                  number(pointer.substr(2), ptr, 16) && number(f[A::kBytes], bytes) &&
                  site.size() == ev::Site::kIdDigits && f[A::kDirection].size() == 1 &&
                  f[A::kHost].size() == 1 && signed_number(f[A::kNode], c.numa_node);
  if (!ok) return false;
  c.thread = static_cast<std::uint32_t>(thread);
  c.ptr = ptr;
  c.bytes = bytes;
  c.direction = name_in(kApiDirections, static_cast<A::Direction>(f[A::kDirection][0]), "");
  c.host = name_in(kApiHostSides, static_cast<A::HostSide>(f[A::kHost][0]), "");
  if (c.numa_node < 0) c.numa_node = -1;
  c.site = site == A::kNoSite ? "" : std::string(site);
  c.api = std::string(f[A::kName]);
  // A line written before the collector read the range's state ends at the name.
  if (f.size() > A::kLocked) {
    const std::string_view locked = f[A::kLocked];
    if (locked.size() != 1) return false;
    if (locked[0] == A::kLockedYes) c.locked = true;
    if (locked[0] == A::kLockedNo) c.locked = false;
  }
  // The correlation id rides in start_ns until the join (join_copies).
  c.start_ns = static_cast<std::int64_t>(corr);
  e.call_times.emplace_back(start, std::max(start, end));
  e.call_images.push_back(e.images[pid]);
  e.t.calls.push_back(std::move(c));
  return true;
}

// One frame of a call site's line; false when it is not understood (the frame is then left out).
bool read_frame(std::string_view item, DoctorFrame& fr) {
  using S = ev::Site;
  std::vector<std::string_view> parts;
  std::size_t at = 0;
  for (std::size_t k = 0; k + 1 < S::kFrameParts; ++k) {
    const std::size_t bar = item.find(S::kFramePart, at);
    if (bar == std::string_view::npos) break;
    parts.push_back(item.substr(at, bar - at));
    at = bar + 1;
  }
  parts.push_back(item.substr(std::min(at, item.size())));
  if (parts.size() != S::kFrameParts) return false;
  const std::string_view kind = parts[S::kFrameKind];
  if (kind == std::string_view(&S::kNative, 1)) {
    std::uint64_t offset = 0;
    const std::string_view at_offset = parts[S::kFrameAt];
    if (at_offset.size() < 3 || !number(at_offset.substr(2), offset, 16)) return false;
    fr.module = std::string(parts[S::kFrameWhere]);
    fr.offset = offset;
    fr.function = std::string(parts[S::kFrameName]);
  } else if (kind == std::string_view(&S::kPython, 1)) {
    fr.python = true;
    fr.file = std::string(parts[S::kFrameWhere]);
    if (!signed_number(parts[S::kFrameAt], fr.line)) fr.line = 0;
    fr.function = std::string(parts[S::kFrameName]);
  } else {
    return false;
  }
  return true;
}

void read_site(const Fields& f, int pid, RawEvents& e) {
  using S = ev::Site;
  DoctorSite s;
  s.pid = pid;
  s.id = std::string(f[S::kId]);
  for (std::size_t i = S::kFirstFrame; i < f.size(); ++i) {
    DoctorFrame fr;
    if (read_frame(f[i], fr)) s.frames.push_back(std::move(fr));
  }
  if (e.t.find_site(s.id, pid) == nullptr) e.t.sites.push_back(std::move(s));
}

bool read_memcpy(const Fields& f, int pid, RawEvents& e) {
  using M = ev::Memcpy;
  RawCopy r{};
  r.pid = pid;
  r.image = e.images[pid];
  std::uint64_t kind = 0, bytes = 0, src = 0, dst = 0, stream = 0;
  const bool ok = number(f[M::kCorrelation], r.corr) &&
                  number(f[M::kRuntimeCorrelation], r.rcorr) && number(f[M::kCopyKind], kind) &&
                  number(f[M::kBytes], bytes) && number(f[M::kSrcKind], src) &&
                  number(f[M::kDstKind], dst) && number(f[M::kStart], r.start) &&
                  number(f[M::kEnd], r.end) && number(f[M::kStream], stream);
  if (!ok) return false;
  r.copy.direction = direction_from_cupti(kind);
  r.copy.bytes = bytes;
  r.copy.src_kind = memory_kind_from_cupti(src);
  r.copy.dst_kind = memory_kind_from_cupti(dst);
  r.copy.stream = static_cast<std::uint32_t>(stream);
  r.end = std::max(r.start, r.end);
  e.copies.push_back(std::move(r));
  return true;
}

bool read_kernel(const Fields& f, RawEvents& e) {
  using K = ev::Kernel;
  std::uint64_t corr = 0, start = 0, end = 0, stream = 0;
  const bool ok = number(f[K::kCorrelation], corr) && number(f[K::kStart], start) &&
                  number(f[K::kEnd], end) && number(f[K::kStream], stream);
  if (ok) e.kernels.push_back({start, std::max(start, end), static_cast<std::uint32_t>(stream)});
  return ok;
}

bool read_unified(const Fields& f, RawEvents& e) {
  using U = ev::Unified;
  std::uint64_t kind = 0, value = 0, start = 0, end = 0;
  const bool ok = number(f[U::kCounter], kind) && number(f[U::kValue], value) &&
                  number(f[U::kStart], start) && number(f[U::kEnd], end);
  if (ok && U::counter_name(kind) != nullptr) {
    e.migrations.push_back({U::counter_name(kind), value, start, std::max(start, end)});
  }
  return ok;
}

// Reads one event line of process `pid` into `e`; false when it is not understood.
bool read_event(const Fields& f, int pid, RawEvents& e) {
  const char tag = f[ev::kTagField][0];
  if (tag == ev::Hello::kTag && f.size() >= ev::Hello::kFields) return read_hello(f, pid, e);
  if (tag == ev::Note::kTag && f.size() >= ev::Note::kFields) {
    read_note(f, e);
    return true;
  }
  if (tag == ev::Api::kTag && f.size() >= ev::Api::kFieldsBeforeLocked) {
    return read_api(f, pid, e);
  }
  if (tag == ev::Loaded::kTag && f.size() >= ev::Loaded::kFields) {
    ++e.pids[pid].loaded;
    return true;
  }
  if (tag == ev::Unwatched::kTag && f.size() >= ev::Unwatched::kFields) {
    return read_unwatched(f, pid, e);
  }
  if (tag == ev::Site::kTag && f.size() >= ev::Site::kFirstFrame) {
    read_site(f, pid, e);
    return true;
  }
  if (tag == ev::Memcpy::kTag && f.size() >= ev::Memcpy::kFields) return read_memcpy(f, pid, e);
  if (tag == ev::Kernel::kTag && f.size() > ev::Kernel::kStream) {  // the name may be cut
    return read_kernel(f, e);
  }
  if (tag == ev::Unified::kTag && f.size() >= ev::Unified::kFields) return read_unified(f, e);
  if (tag == ev::Dropped::kTag && f.size() >= ev::Dropped::kFields) {
    std::uint64_t dropped = 0;
    const bool ok = number(f[ev::Dropped::kCount], dropped);
    if (ok) e.t.dropped_records += dropped;
    return ok;
  }
  if (tag == ev::End::kTag && f.size() >= ev::End::kFields) {
    std::string& how = e.ended[pid];
    how += (how.empty() ? "" : ", ") + std::string(f[ev::End::kHow]);
    return true;
  }
  return false;
}

// Reads every whole line of the text into `e`.
void read_events(std::string_view text, RawEvents& e) {
  std::size_t from = 0;
  while (from < text.size()) {
    const std::size_t nl = text.find('\n', from);
    if (nl == std::string_view::npos) {
      e.truncated = true;  // the program died while this line was being written
      break;
    }
    const std::string_view line = text.substr(from, nl - from);
    from = nl + 1;
    if (line.empty()) continue;
    const Fields f = split_tabs(line);
    int pid = 0;
    if (f.size() <= ev::kPidField || f[ev::kTagField].size() != 1 ||
        !signed_number(f[ev::kPidField], pid) || !read_event(f, pid, e)) {
      ++e.skipped;
    }
  }
}

// The trace's clock: nanoseconds since the first process's start (or, without one, the first
// call's), never before it.
struct Origin {
  std::uint64_t ns = 0;
  std::int64_t since(std::uint64_t at) const {
    return at > ns ? static_cast<std::int64_t>(at - ns) : std::int64_t{0};
  }
};

Origin origin_of(const RawEvents& e) {
  if (e.origin != std::numeric_limits<std::uint64_t>::max()) return {e.origin};
  std::uint64_t origin = 0;
  for (const auto& [s, end] : e.call_times) origin = origin == 0 ? s : std::min(origin, s);
  return {origin};
}

// Join copies to calls: a copy's runtimeCorrelationId names the runtime call that made it,
// its correlationId the driver call; depending on the CUPTI release a runtime callback's id
// is one or the other, so both are tried.
void join_copies(RawEvents& e, const Origin& origin) {
  DoctorTrace& t = e.t;
  std::map<std::tuple<int, int, bool, std::uint64_t>, std::size_t> by_corr;
  for (std::size_t i = 0; i < t.calls.size(); ++i) {
    DoctorCall& c = t.calls[i];
    by_corr[{c.pid, e.call_images[i], c.domain == "runtime",
             static_cast<std::uint64_t>(c.start_ns)}] = i;
    c.start_ns = origin.since(e.call_times[i].first);
    c.end_ns = origin.since(e.call_times[i].second);
  }
  for (RawCopy& r : e.copies) {
    const auto find = [&](bool runtime, std::uint64_t id) -> DoctorCall* {
      if (id == 0) return nullptr;
      const auto it = by_corr.find({r.pid, r.image, runtime, id});
      return it == by_corr.end() ? nullptr : &t.calls[it->second];
    };
    DoctorCall* call = find(true, r.rcorr);
    if (call == nullptr) call = find(false, r.corr);
    if (call == nullptr) call = find(true, r.corr);
    r.copy.start_ns = origin.since(r.start);
    r.copy.end_ns = origin.since(r.end);
    if (call == nullptr) {
      ++t.unmatched_copies;
      continue;
    }
    call->copies.push_back(r.copy);
  }
  for (DoctorCall& c : t.calls) {
    std::sort(c.copies.begin(), c.copies.end(),
              [](const Copy& a, const Copy& b) { return a.start_ns < b.start_ns; });
    if (c.copies.empty()) copy_from_api(c);
  }
  std::stable_sort(t.calls.begin(), t.calls.end(), [](const DoctorCall& a, const DoctorCall& b) {
    return a.start_ns < b.start_ns;
  });
}

// The kernels (the first kMaxDoctorKernels of them, by start) and migrations on the trace's clock.
void add_kernels_and_migrations(RawEvents& e, const Origin& origin) {
  DoctorTrace& t = e.t;
  std::vector<RawKernel>& kernels = e.kernels;
  std::sort(kernels.begin(), kernels.end(),
            [](const RawKernel& a, const RawKernel& b) { return a.start < b.start; });
  t.kernels_total = kernels.size();
  for (std::size_t i = 0; i < kernels.size() && i < kMaxDoctorKernels; ++i) {
    t.kernels.push_back(
        {"", origin.since(kernels[i].start), origin.since(kernels[i].end), kernels[i].stream, 0});
  }
  if (kernels.size() > kMaxDoctorKernels) {
    t.notes.push_back(fmt::format("{} kernels seen; the record keeps the first {}", kernels.size(),
                                  kMaxDoctorKernels));
  }
  for (const RawMigration& m : e.migrations) {
    t.migrations.push_back({m.kind, m.value, origin.since(m.start), origin.since(m.end)});
  }
}

// The notes on what the collector's lines could not say: lines cut or not understood, copies
// unmatched or dropped.
void note_losses(RawEvents& e) {
  DoctorTrace& t = e.t;
  if (t.cupti.empty() && t.processes > 0) t.cupti = fmt::format("CUPTI {}", e.cupti_version);
  if (e.truncated)
    t.notes.push_back("the last event line was cut short (the program died writing it)");
  if (e.skipped > 0) {
    t.notes.push_back(fmt::format("{} event line(s) were not understood", e.skipped));
  }
  if (t.unmatched_copies > 0) {
    t.notes.push_back(fmt::format("{} copies were not matched to an API call", t.unmatched_copies));
  }
  if (t.dropped_records > 0) {
    t.notes.push_back(fmt::format("CUPTI dropped {} activity records", t.dropped_records));
  }
}

// Each process and how it ended: "signal 11" as the signal's name; an exec'd image that
// signalled says "exec, signal 11".
void list_processes(RawEvents& e) {
  DoctorTrace& t = e.t;
  for (const auto& [pid, how] : e.ended) {
    std::string end = how;
    const std::string prefix = ev::End::kSignal;
    const std::size_t at = end.find(prefix);
    int sig = 0;
    if (at != std::string::npos &&
        signed_number(std::string_view(end).substr(at + prefix.size()), sig)) {
      end = end.substr(0, at) + "signal " + describe_signal(sig);
      if (t.signal.empty()) t.signal = describe_signal(sig);
    }
    t.process_list.push_back({pid, end});
  }
}

// What the lines said of the processes: how many started, were seen to their end without CUDA,
// or asked for the driver where the collector never started; and whether the collector ran.
void tally_sight(RawEvents& e) {
  DoctorSight& s = e.t.sight;
  for (const auto& [pid, p] : e.pids) {
    // A vfork child ends unannounced, and an image that says nothing at its end (killed) still
    // started: each pid's images are at least those that said anything.
    s.started += std::max(p.loaded, p.hello + p.without_cuda + p.cuda_unseen);
    s.without_cuda += p.without_cuda;
    s.cuda_unseen += p.cuda_unseen;
  }
  s.collector = e.t.processes > 0 ? "ran"
                : e.no_cupti      ? "no-cupti"
                : e.cupti_failed  ? "cupti-failed"
                                  : "not-started";
}

// The note on copy calls judged from the call itself, without an activity record.
void note_copies_from_api(DoctorTrace& t) {
  const std::size_t lost = static_cast<std::size_t>(std::count_if(
      t.calls.begin(), t.calls.end(), [](const DoctorCall& c) { return c.from_api; }));
  if (lost > 0) {
    t.notes.push_back(fmt::format(
        "{} copy call(s) have no activity record (their process ended before it was flushed, or "
        "page-locked copies' device times were not being recorded) and were judged from the "
        "call itself: its bytes, direction and host memory as the collector saw them, its host "
        "times",
        lost));
  }
}

}  // namespace

DoctorTrace parse_doctor_events(std::string_view text) {
  RawEvents e;
  read_events(text, e);
  const Origin origin = origin_of(e);
  join_copies(e, origin);
  add_kernels_and_migrations(e, origin);
  note_losses(e);
  list_processes(e);
  note_copies_from_api(e.t);
  tally_sight(e);
  return std::move(e.t);
}

int processes_unseen(const DoctorTrace& t) {
  if (!t.sight.recorded) return 0;
  return std::max(0, t.sight.started - t.processes - t.sight.without_cuda - t.sight.cuda_unseen);
}

bool seen_without_cuda(const DoctorTrace& t) {
  const DoctorSight& s = t.sight;
  return s.recorded && s.collector == "not-started" && t.processes == 0 && t.calls.empty() &&
         s.started > 0 && s.without_cuda == s.started && t.still_running.empty();
}

std::string collector_lines(std::string_view lines, std::string_view overflow, std::uint64_t& cut) {
  std::string out;
  out.reserve(lines.size() + overflow.size());
  cut = 0;
  std::size_t from = 0;
  while (from < lines.size()) {
    const std::size_t end = lines.find_first_of(std::string_view("\n\0", 2), from);
    if (end == std::string_view::npos) {  // claimed to the end, never finished
      ++cut;
      break;
    }
    if (lines[end] == '\n') {
      out.append(lines.substr(from, end + 1 - from));
    } else if (end > from) {
      ++cut;  // a line that runs into NUL bytes: its writer died inside the copy
    }
    from = end + 1;
  }
  out.append(overflow);
  return out;
}

// --- JSON -------------------------------------------------------------------------------------

namespace {

json to_json(const Copy& c) {
  return json{{"direction", name_in(kRecordDirections, c.direction)},
              {"bytes", c.bytes},
              {"src_kind", to_string(c.src_kind)},
              {"dst_kind", to_string(c.dst_kind)},
              {"start_ns", c.start_ns},
              {"end_ns", c.end_ns},
              {"stream", c.stream}};
}

json to_json(const DoctorCall& c) {
  json copies = json::array();
  for (const Copy& k : c.copies) copies.push_back(to_json(k));
  json j{{"pid", c.pid},       {"api", c.api},           {"domain", c.domain}, {"kind", c.kind},
         {"thread", c.thread}, {"start_ns", c.start_ns}, {"end_ns", c.end_ns}, {"status", c.status},
         {"bytes", c.bytes},   {"site", c.site}};
  j["copies"] = std::move(copies);
  if (c.ptr != 0) j["ptr"] = fmt::format("0x{:x}", c.ptr);
  if (!c.direction.empty()) j["direction"] = c.direction;
  if (!c.host.empty()) j["host"] = c.host;
  if (c.from_api) j["from_api"] = true;
  if (c.numa_node >= 0) j["numa_node"] = c.numa_node;
  if (c.locked) j["locked"] = *c.locked;
  return j;
}

json to_json(const DoctorSight& s) {
  json j = json::object();
  put_driver(j, s.driver);
  j["collector"] = s.collector;
  j["processes_started"] = s.started;
  j["processes_without_cuda"] = s.without_cuda;
  j["processes_cuda_unseen"] = s.cuda_unseen;
  return j;
}

// The section's sight (DoctorSight), every field required, and no more processes accounted for
// than started.
DoctorSight sight_from_json(const JsonFields& o, int collecting) {
  DoctorSight s;
  s.recorded = true;
  s.driver = driver_from(o);
  if (!s.driver.recorded()) refuse_field(o.field("driver"), "is missing");
  s.collector = o.one_of_list("collector", kDoctorCollectorStates);
  constexpr std::int64_t kMost = 1 << 20;
  s.started = static_cast<int>(o.count("processes_started", kMost));
  s.without_cuda = static_cast<int>(o.count("processes_without_cuda", kMost));
  s.cuda_unseen = static_cast<int>(o.count("processes_cuda_unseen", kMost));
  if (collecting + s.without_cuda + s.cuda_unseen > s.started) {
    refuse_field(o.field("processes_started"),
                 fmt::format("is {}, fewer than the {} processes the record accounts for",
                             s.started, collecting + s.without_cuda + s.cuda_unseen));
  }
  if ((collecting > 0) != (s.collector == "ran")) {
    refuse_field(o.field("collector"),
                 fmt::format("is '{}', but {} process{} initialised CUDA under the collector",
                             s.collector, collecting, collecting == 1 ? "" : "es"));
  }
  return s;
}

json to_json(const DoctorFrame& f) {
  if (f.python) {
    return json{{"python", true}, {"file", f.file}, {"line", f.line}, {"function", f.function}};
  }
  json j{
      {"module", f.module}, {"offset", fmt::format("0x{:x}", f.offset)}, {"function", f.function}};
  if (!f.file.empty()) {
    j["file"] = f.file;
    j["line"] = f.line;
  }
  return j;
}

constexpr std::int64_t kMaxNs = kMostNanoseconds;

void check_interval(const JsonFields& o, std::int64_t start, std::int64_t end) {
  if (end < start)
    refuse_field(o.field("end_ns"), fmt::format("is {}, before start_ns {}", end, start));
}

// A list of strings (the command, the notes), each refused where it is not a string.
Copy copy_from_json(const JsonFields& p) {
  Copy d;
  d.direction = p.named("direction", kRecordDirections);
  d.bytes = p.bytes("bytes");
  d.src_kind = p.named("src_kind", kDriverMemoryKindNames);
  d.dst_kind = p.named("dst_kind", kDriverMemoryKindNames);
  d.start_ns = p.ns("start_ns");
  d.end_ns = p.ns("end_ns");
  check_interval(p, d.start_ns, d.end_ns);
  d.stream = static_cast<std::uint32_t>(p.whole_or("stream", 0, 0, UINT32_MAX, "a stream id"));
  return d;
}

DoctorCall call_from_json(const json& call, const JsonFields& c) {
  DoctorCall k;
  k.pid = c.pid("pid");
  k.api = c.text("api");
  if (k.api.empty()) refuse_field(c.field("api"), "is empty");
  k.domain = c.one_of("domain", {"runtime", "driver"});
  k.kind = c.one_of_list("kind", ev::kCallClassNames);
  k.thread = static_cast<std::uint32_t>(c.whole("thread", 0, UINT32_MAX, "a thread id"));
  k.start_ns = c.ns("start_ns");
  k.end_ns = c.ns("end_ns");
  check_interval(c, k.start_ns, k.end_ns);
  k.status = static_cast<int>(c.whole_or("status", 0, INT_MIN, INT_MAX, "a status"));
  k.bytes = c.bytes_or("bytes", 0);
  if (call.contains("ptr")) k.ptr = c.hex("ptr");
  k.site = c.text_or("site", "");
  if (c.has("direction")) k.direction = c.one_of("direction", {"h2d", "d2h", "d2d"});
  if (c.has("host")) k.host = c.one_of("host", {"pinned", "pageable", "managed", "none"});
  k.from_api = c.flag_or("from_api", false);
  k.numa_node = static_cast<int>(c.whole_or("numa_node", -1, 0, 1 << 16, "a NUMA node"));
  if (c.has("locked")) k.locked = c.flag_or("locked", false);
  const json& copies = c.array("copies");
  for (std::size_t n = 0; n < copies.size(); ++n) {
    k.copies.push_back(
        copy_from_json(JsonFields(copies[n], fmt::format("{}.copies[{}]", c.path(), n))));
  }
  return k;
}

// The kernels kept, each [start_ns, end_ns, stream].
std::vector<Kernel> kernels_from_json(const json& kernels) {
  std::vector<Kernel> out;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const std::string f = fmt::format("doctor.kernels[{}]", i);
    const json& k = kernels[i];
    if (!k.is_array() || k.size() != 3 || !k[0].is_number_integer() || !k[1].is_number_integer() ||
        !k[2].is_number_integer()) {
      refuse_field(f, "is not [start_ns, end_ns, stream]");
    }
    const std::int64_t s = k[0].get<std::int64_t>(), e = k[1].get<std::int64_t>();
    if (s < 0 || e < s || e > kMaxNs || k[2].get<std::int64_t>() < 0) {
      refuse_field(f, fmt::format("is {}, not an interval of times and a stream", k.dump()));
    }
    out.push_back({"", s, e, static_cast<std::uint32_t>(k[2].get<std::int64_t>()), 0});
  }
  return out;
}

DoctorMigration migration_from_json(const JsonFields& m) {
  DoctorMigration d;
  d.kind = m.one_of("kind", {"htod", "dtoh", "cpu_faults", "gpu_faults"});
  d.value = m.count("value", kMostBytes);  // bytes migrated, or faults
  d.start_ns = m.ns("start_ns");
  d.end_ns = m.ns("end_ns");
  check_interval(m, d.start_ns, d.end_ns);
  return d;
}

DoctorSite site_from_json(const JsonFields& s) {
  DoctorSite d;
  d.id = s.text("id");
  if (d.id.empty()) refuse_field(s.field("id"), "is empty");
  d.pid = s.pid("pid");
  const json& frames = s.array("frames");
  for (std::size_t n = 0; n < frames.size(); ++n) {
    const JsonFields f(frames[n], fmt::format("{}.frames[{}]", s.path(), n));
    DoctorFrame fr;
    fr.python = frames[n].contains("python") && frames[n]["python"] == true;
    fr.function = f.text_or("function", "");
    fr.file = f.text_or("file", "");
    fr.line = static_cast<int>(f.whole_or("line", 0, 0, INT_MAX, "a line number"));
    if (!fr.python) {
      fr.module = f.text("module");
      fr.offset = f.hex("offset");
    }
    d.frames.push_back(std::move(fr));
  }
  return d;
}

}  // namespace

json to_json(const DoctorTrace& t) {
  json calls = json::array(), kernels = json::array(), migrations = json::array(),
       sites = json::array();
  for (const DoctorCall& c : t.calls) calls.push_back(to_json(c));
  for (const Kernel& k : t.kernels) kernels.push_back({k.start_ns, k.end_ns, k.stream});
  for (const DoctorMigration& m : t.migrations) {
    migrations.push_back(
        {{"kind", m.kind}, {"value", m.value}, {"start_ns", m.start_ns}, {"end_ns", m.end_ns}});
  }
  json process_list = json::array();
  for (const DoctorProcess& p : t.process_list) {
    process_list.push_back({{"pid", p.pid}, {"end", p.end}});
  }
  for (const DoctorSite& s : t.sites) {
    json frames = json::array();
    for (const DoctorFrame& f : s.frames) frames.push_back(to_json(f));
    json site{{"id", s.id}, {"pid", s.pid}};
    site["frames"] = std::move(frames);
    sites.push_back(std::move(site));
  }
  json out{{"processes", t.processes},
           {"cupti", t.cupti},
           {"symbolizer", t.symbolizer},
           {"notes", t.notes},
           {"dropped_records", t.dropped_records},
           {"unmatched_copies", t.unmatched_copies},
           {"kernels_total", t.kernels_total}};
  // Moved in, not listed above: an initializer list copies, and a trace of 100,000 calls is
  // hundreds of thousands of objects.
  out["calls"] = std::move(calls);
  out["kernels"] = std::move(kernels);
  out["migrations"] = std::move(migrations);
  out["sites"] = std::move(sites);
  out["process_list"] = std::move(process_list);
  put_program_run(out, t);
  if (t.sight.recorded) out["sight"] = to_json(t.sight);
  return out;
}

DoctorTrace doctor_trace_from_json(const json& j) {
  const JsonFields o(j, "doctor");
  DoctorTrace t;
  read_program_run(o, t);
  t.processes = static_cast<int>(o.count_or("processes", 0, 1 << 20));
  t.cupti = o.text_or("cupti", "");
  t.symbolizer = o.text_or("symbolizer", "");
  if (o.has("sight"))
    t.sight = sight_from_json(JsonFields(o.at("sight"), "doctor.sight"), t.processes);
  t.notes = o.texts_or_none("notes");
  t.dropped_records = o.count_or("dropped_records", 0, kMostBytes);
  t.unmatched_copies = o.count_or("unmatched_copies", 0, kMostBytes);
  const json& calls = o.array("calls");
  for (std::size_t i = 0; i < calls.size(); ++i) {
    t.calls.push_back(
        call_from_json(calls[i], JsonFields(calls[i], fmt::format("doctor.calls[{}]", i))));
  }
  t.kernels = kernels_from_json(o.array("kernels"));
  t.kernels_total = o.count_or("kernels_total", t.kernels.size(), kMostBytes);
  if (t.kernels_total < t.kernels.size()) {
    refuse_field(o.field("kernels_total"), fmt::format("is {}, fewer than the {} kernels listed",
                                                       t.kernels_total, t.kernels.size()));
  }
  if (j.contains("migrations")) {
    const json& migrations = o.array("migrations");
    for (std::size_t i = 0; i < migrations.size(); ++i) {
      t.migrations.push_back(
          migration_from_json(JsonFields(migrations[i], fmt::format("doctor.migrations[{}]", i))));
    }
  }
  const json& sites = o.array("sites");
  for (std::size_t i = 0; i < sites.size(); ++i) {
    t.sites.push_back(site_from_json(JsonFields(sites[i], fmt::format("doctor.sites[{}]", i))));
  }
  if (j.contains("process_list")) {
    const json& processes = o.array("process_list");
    for (std::size_t i = 0; i < processes.size(); ++i) {
      const JsonFields p(processes[i], fmt::format("doctor.process_list[{}]", i));
      t.process_list.push_back({p.pid("pid"), p.text_or("end", "")});
    }
  }
  for (std::size_t i = 0; i < t.calls.size(); ++i) {
    const DoctorCall& c = t.calls[i];
    if (!c.site.empty() && t.find_site(c.site, c.pid) == nullptr) {
      refuse_field(fmt::format("doctor.calls[{}].site", i),
                   fmt::format("is '{}', a call site the record does not list", c.site));
    }
  }
  return t;
}

}  // namespace pinbench::experiments::doctor
