// The doctor's event lines, defined once for both ends: the injection library
// (inject/inject.cpp) writes them into the program's event file and parse_doctor_events
// (trace.cpp) reads them back. A line is a one-letter tag, the writing process's pid and the
// fields of its kind, tab-separated, ended by '\n'; docs/doctor.md lists them. Each kind below
// says where its fields stand (counting the tag as field 0 and the pid as field 1) and writes
// its line with snprintf into the caller's buffer: no allocation, no fmt or JSON, nothing but
// the C library, because the injection library lives in someone else's process and writes
// lines from fatal-signal handlers too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>

namespace pinbench::experiments::doctor::events {

// The collector's file, which doctor creates and every process of the program maps shared: a
// header whose `used` counter each writer advances atomically to claim room for a whole line,
// then the lines. A line claimed but not written whole (the process was killed inside its
// copy) holds NUL bytes, and the reader drops it. Writing is a copy into memory, no system call,
// and the kernel keeps what was copied when the process dies, SIGKILL included. Lines that find
// no room left go to the overflow file beside it (kOverflowSuffix), appended with write(2).
struct EventFile {
  static constexpr std::uint64_t kMagic = 0x3176652d64626e70ull;  // "pnbd-ev1", little-endian
  static constexpr std::uint64_t kHeaderBytes = 4096;
  static constexpr std::uint64_t kCapacity = std::uint64_t{1} << 30;  // sparse: costs what is used
  static constexpr const char* kOverflowSuffix = ".more";
  struct Header {
    std::uint64_t magic;
    std::uint64_t used;  // bytes claimed after the header; may pass kCapacity
  };
};

constexpr char kSeparator = '\t';
constexpr std::size_t kTagField = 0;
constexpr std::size_t kPidField = 1;

// Makes snprintf's result a whole line in `size` bytes: a line cut at the end of the buffer
// still ends in '\n'. Returns the bytes to write (0 when snprintf failed).
inline std::size_t finish_line(char* line, std::size_t size, int n) {
  if (n <= 0 || size < 2) return 0;
  std::size_t len = static_cast<std::size_t>(n);
  if (len >= size) len = size - 1;
  line[len - 1] = '\n';
  return len;
}

// A line built field by field without snprintf, for the lines written for every call, copy and
// kernel: the collector's cost per call is the program's. It stops adding at the end of the buffer,
// and line() then ends it with '\n' as finish_line does.
class LineOut {
 public:
  LineOut(char* line, std::size_t size)
      : at_(line), begin_(line), end_(line + (size > 0 ? size - 1 : 0)) {}
  LineOut& ch(char c) {
    if (at_ < end_) *at_++ = c;
    return *this;
  }
  LineOut& tab() { return ch('\t'); }
  LineOut& text(const char* s) {
    while (*s != '\0' && at_ < end_) *at_++ = *s++;
    return *this;
  }
  LineOut& whole(std::uint64_t v) {
    char digits[20];
    int n = 0;
    do {
      digits[n++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v != 0);
    while (n > 0) ch(digits[--n]);
    return *this;
  }
  LineOut& whole_signed(std::int64_t v) {
    if (v >= 0) return whole(static_cast<std::uint64_t>(v));
    ch('-');
    return whole(static_cast<std::uint64_t>(-(v + 1)) + 1);
  }
  // Lower-case hexadecimal, at least `width` digits (at most 16).
  LineOut& hex(std::uint64_t v, int width = 1) {
    char digits[16];
    int n = 0;
    do {
      digits[n++] = "0123456789abcdef"[v & 15];
      v >>= 4;
    } while (v != 0);
    while (n < width && n < 16) digits[n++] = '0';
    while (n > 0) ch(digits[--n]);
    return *this;
  }
  // The line's length with its '\n'; 0 when the buffer holds no line.
  std::size_t line() {
    if (end_ <= begin_ || at_ == begin_) return 0;
    *at_++ = '\n';  // room was kept for it
    return static_cast<std::size_t>(at_ - begin_);
  }

 private:
  char* at_;
  char* begin_;
  char* end_;
};

// H: a process initialised CUDA and CUPTI is collecting.
struct Hello {
  static constexpr char kTag = 'H';
  enum Field : std::size_t { kCuptiVersion = 2, kClock, kFields };  // kClock: CUPTI's, in ns
  static std::size_t write(char* line, std::size_t size, int pid, std::uint32_t cupti_version,
                           std::uint64_t clock_ns) {
    return finish_line(line, size,
                       std::snprintf(line, size, "%c\t%d\t%u\t%llu\n", kTag, pid, cupti_version,
                                     static_cast<unsigned long long>(clock_ns)));
  }
};

// L: doctor's library was loaded into a process image (at its start, or in a forked child), so
// every process of the program says it, whether or not it uses CUDA.
struct Loaded {
  static constexpr char kTag = 'L';
  enum Field : std::size_t { kFields = 2 };
  static std::size_t write(char* line, std::size_t size, int pid) {
    return finish_line(line, size, std::snprintf(line, size, "%c\t%d\n", kTag, pid));
  }
};

// W: a process image ended (its exit handlers ran, _exit, or exec) without the collector having
// started in it, and whether it asked to load the CUDA driver (cuda/driver_watch.hpp) and had it
// loaded at its end. One that did neither made no CUDA call; one that did was not seen.
struct Unwatched {
  static constexpr char kTag = 'W';
  enum Field : std::size_t { kAsked = 2, kLoaded, kFields };
  static std::size_t write(char* line, std::size_t size, int pid, bool asked, bool loaded) {
    return finish_line(
        line, size,
        std::snprintf(line, size, "%c\t%d\t%d\t%d\n", kTag, pid, asked ? 1 : 0, loaded ? 1 : 0));
  }
};

// N: what the collector could not do, as a tag and a sentence.
struct Note {
  static constexpr char kTag = 'N';
  enum Field : std::size_t { kWhat = 2, kText, kFields };
  static constexpr const char* kNoCupti = "no-cupti";      // none found, or one lacking functions
  static constexpr const char* kCuptiBusy = "cupti-busy";  // another profiler holds it
  static constexpr const char* kCuptiFailed = "cupti-failed";  // subscribing failed otherwise
  static constexpr const char* kNoUnifiedMemory = "no-um";
  static constexpr const char* kActivity = "activity";  // an activity kind was not enabled
  static constexpr const char* kQuiet = "quiet";        // page-locked copies' records were paused
  static std::size_t write(char* line, std::size_t size, int pid, const char* what,
                           const char* text) {
    return finish_line(line, size,
                       std::snprintf(line, size, "%c\t%d\t%s\t%s\n", kTag, pid, what, text));
  }
};

// A copy from or to pageable memory at least this large has the NUMA node of its host pages
// read at the call (the A line's kNode).
constexpr std::uint64_t kNumaSampleBytes = std::uint64_t{1} << 20;

// A copy smaller than this can be part of a storm of small copies (analysis.hpp): the collector
// keeps its call site even when it is page-locked.
constexpr std::uint64_t kSmallCopyBytes = std::uint64_t{64} << 10;

// The class of an API call, as an A line names it and the record's calls keep it ("kind").
enum CallClass : std::int8_t {
  kIgnore = 0,
  kCopy,
  kCopyAsync,
  kBatch,
  kSync,
  kAlloc,
  kFree,
  kRegister,
  kUnregister,
  kCallClasses
};
// Indexed by CallClass, from kCopy.
constexpr const char* kCallClassNames[] = {"copy",  "copy_async", "batch",    "sync",
                                           "alloc", "free",       "register", "unregister"};
constexpr const char* call_class_name(int c) {
  return c > kIgnore && c < kCallClasses ? kCallClassNames[c - 1] : "other";
}

// A: one API call, written when it returns.
struct Api {
  static constexpr char kTag = 'A';
  enum Field : std::size_t {
    kDomain = 2,  // kRuntime or kDriver
    kClass,       // call_class_name()
    kCorrelation,
    kThread,
    kStart,  // CUPTI's clock, ns
    kEnd,
    kStatus,   // the call's return value
    kPointer,  // 0x..., the host pointer of an allocation, registration or free
    kBytes,
    kSite,       // the call site's id (Site), or kNoSite
    kDirection,  // copies: a Direction letter
    kHost,       // copies: a HostSide letter
    kNode,       // the NUMA node of the host pages (DoctorCall::numa_node), -1 unread
    kName,       // as CUPTI names the function: cudaMemcpyAsync_v3020
    kLocked,     // alloc, register: the driver's word on the range after the call (a Locked)
    kFields,
    // The fields of a line written before the collector wrote kLocked: such a line still reads.
    kFieldsBeforeLocked = kLocked
  };
  // Whether the driver calls a page-locking call's range page-locked once the call has returned
  // (cuPointerGetAttribute on its first and last byte): a call can fail and leave its range
  // pageable, or return success and still leave it so; or the range was page-locked already.
  enum Locked : char {
    kLockedYes = 'L',    // both bytes are page-locked host memory
    kLockedNo = 'U',     // the driver does not call them page-locked
    kLockedUnread = '-'  // not a page-locking call, no range, or no driver to ask
  };
  static constexpr char kRuntime = 'R';
  static constexpr char kDriver = 'D';
  static constexpr const char* kNoSite = "0000000000000000";
  // A copy's direction as its parameters say (kUnknown: cudaMemcpyDefault, or not a copy).
  enum Direction : char { kToDevice = 'h', kToHost = 'd', kDeviceToDevice = 'x', kUnknown = '-' };
  // Where a copy's host side lies, as the collector found it at the call.
  enum HostSide : char {
    kPinned = 'P',    // a range the process page-locked or registered, or the driver says so
    kPageable = 'p',  // the driver knows nothing of it
    kManaged = 'm',
    kNoHost = 'n',  // device to device
    kUnread = '-'
  };
  static std::size_t write(char* line, std::size_t size, int pid, bool runtime, int call_class,
                           std::uint32_t correlation, int thread, std::uint64_t start_ns,
                           std::uint64_t end_ns, int status, std::uintptr_t pointer,
                           std::uint64_t bytes, std::uint64_t site, char direction, char host,
                           int node, const char* name, char locked) {
    LineOut out(line, size);
    out.ch(kTag).tab().whole_signed(pid).tab().ch(runtime ? kRuntime : kDriver).tab();
    out.text(call_class_name(call_class)).tab().whole(correlation).tab().whole_signed(thread);
    out.tab().whole(start_ns).tab().whole(end_ns).tab().whole_signed(status).tab();
    out.text("0x").hex(pointer).tab().whole(bytes).tab().hex(site, 16).tab().ch(direction);
    out.tab().ch(host).tab().whole_signed(node).tab().text(name).tab().ch(locked);
    return out.line();
  }
};

// S: a call site's frames, once per site and process: the id, then one field per frame, its
// parts split by kFramePart: native "N|module|0xoffset|symbol" (the offset from the module's
// load address, as addr2line reads it), then Python "P|file|line|function", innermost first.
struct Site {
  static constexpr char kTag = 'S';
  enum Field : std::size_t { kId = 2, kFirstFrame };
  static constexpr std::size_t kIdDigits = 16;  // hexadecimal
  static constexpr char kFramePart = '|';
  static constexpr char kNative = 'N';
  static constexpr char kPython = 'P';
  enum FramePart : std::size_t { kFrameKind, kFrameWhere, kFrameAt, kFrameName, kFrameParts };
  // The line's start, up to its first frame.
  static std::size_t write_head(char* line, std::size_t size, int pid, std::uint64_t id) {
    const int n = std::snprintf(line, size, "%c\t%d\t%016llx", kTag, pid,
                                static_cast<unsigned long long>(id));
    return n > 0 && static_cast<std::size_t>(n) < size ? static_cast<std::size_t>(n) : 0;
  }
  // A frame's field with the tab before it; the caller cleans the text after the tab.
  static int write_native(char* item, std::size_t size, const char* module, std::size_t offset,
                          const char* symbol) {
    return std::snprintf(item, size, "\t%c|%s|0x%zx|%s", kNative, module, offset, symbol);
  }
  static int write_python(char* item, std::size_t size, const char* file, int line_number,
                          const char* function) {
    return std::snprintf(item, size, "\t%c|%s|%d|%s", kPython, file, line_number, function);
  }
};

// M: one copy the driver made (CUPTI's memcpy activity record). The kinds are CUPTI's numbers
// (CUpti_ActivityMemcpyKind, CUpti_ActivityMemoryKind), which framework/trace_model.hpp reads.
struct Memcpy {
  static constexpr char kTag = 'M';
  enum Field : std::size_t {
    kCorrelation = 2,     // the driver call's
    kRuntimeCorrelation,  // the runtime call's
    kCopyKind,
    kBytes,
    kSrcKind,
    kDstKind,
    kStart,
    kEnd,
    kStream,
    kDevice,
    kFlags,
    kFields
  };
  static std::size_t write(char* line, std::size_t size, int pid, std::uint32_t correlation,
                           std::uint32_t runtime_correlation, unsigned copy_kind,
                           std::uint64_t bytes, unsigned src_kind, unsigned dst_kind,
                           std::uint64_t start_ns, std::uint64_t end_ns, std::uint32_t stream,
                           std::uint32_t device, unsigned flags) {
    LineOut out(line, size);
    out.ch(kTag).tab().whole_signed(pid).tab().whole(correlation).tab().whole(runtime_correlation);
    out.tab().whole(copy_kind).tab().whole(bytes).tab().whole(src_kind).tab().whole(dst_kind);
    out.tab().whole(start_ns).tab().whole(end_ns).tab().whole(stream).tab().whole(device).tab();
    out.whole(flags);
    return out.line();
  }
};

// K: one kernel. Its name is the last field; the parser needs none of it.
struct Kernel {
  static constexpr char kTag = 'K';
  enum Field : std::size_t { kCorrelation = 2, kStart, kEnd, kStream, kName, kFields };
  static std::size_t write(char* line, std::size_t size, int pid, std::uint32_t correlation,
                           std::uint64_t start_ns, std::uint64_t end_ns, std::uint32_t stream,
                           const char* name) {
    LineOut out(line, size);
    out.ch(kTag).tab().whole_signed(pid).tab().whole(correlation).tab().whole(start_ns).tab();
    out.whole(end_ns).tab().whole(stream).tab().text(name);
    return out.line();
  }
};

// U: a unified-memory counter record.
struct Unified {
  static constexpr char kTag = 'U';
  enum Field : std::size_t { kCounter = 2, kValue, kStart, kEnd, kFields };
  // CUPTI's counter kinds (CUpti_ActivityUnifiedMemoryCounterKind) that doctor enables.
  enum Counter : unsigned { kBytesToDevice = 1, kBytesToHost = 2, kCpuFaults = 3, kGpuFaults = 4 };
  // The record's names for them ("migrations"), or nullptr for another counter.
  static constexpr const char* counter_name(std::uint64_t kind) {
    return kind == kBytesToDevice ? "htod"
           : kind == kBytesToHost ? "dtoh"
           : kind == kCpuFaults   ? "cpu_faults"
           : kind == kGpuFaults   ? "gpu_faults"
                                  : nullptr;
  }
  static std::size_t write(char* line, std::size_t size, int pid, unsigned counter,
                           std::uint64_t value, std::uint64_t start_ns, std::uint64_t end_ns) {
    return finish_line(line, size,
                       std::snprintf(line, size, "%c\t%d\t%u\t%llu\t%llu\t%llu\n", kTag, pid,
                                     counter, static_cast<unsigned long long>(value),
                                     static_cast<unsigned long long>(start_ns),
                                     static_cast<unsigned long long>(end_ns)));
  }
};

// X: activity records CUPTI dropped.
struct Dropped {
  static constexpr char kTag = 'X';
  enum Field : std::size_t { kCount = 2, kFields };
  static std::size_t write(char* line, std::size_t size, int pid, std::size_t count) {
    return finish_line(line, size, std::snprintf(line, size, "%c\t%d\t%zu\n", kTag, pid, count));
  }
};

// E: how the process ended: kExit (its exit handlers ran), kQuickExit (_exit: none ran),
// kExec (the image was replaced; the same pid may say more), or kSignal followed by the
// signal's number.
struct End {
  static constexpr char kTag = 'E';
  enum Field : std::size_t { kHow = 2, kFields };
  static constexpr const char* kExit = "exit";
  static constexpr const char* kQuickExit = "_exit";
  static constexpr const char* kExec = "exec";
  static constexpr const char* kExecFailed = "exec failed";
  static constexpr const char* kSignal = "signal ";
  static std::size_t write(char* line, std::size_t size, int pid, const char* how) {
    return finish_line(line, size, std::snprintf(line, size, "%c\t%d\t%s\n", kTag, pid, how));
  }
  static std::size_t write_exit(char* line, std::size_t size, int pid) {
    return write(line, size, pid, kExit);
  }
  // Only snprintf of numbers: safe enough in a fatal-signal handler.
  static std::size_t write_signal(char* line, std::size_t size, int pid, int signal_number) {
    return finish_line(
        line, size, std::snprintf(line, size, "%c\t%d\t%s%d\n", kTag, pid, kSignal, signal_number));
  }
};

}  // namespace pinbench::experiments::doctor::events
