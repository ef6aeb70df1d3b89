// pinbench's injection library for `pinbench doctor`: the CUDA driver loads it into the program
// under test through CUDA_INJECTION64_PATH and calls InitializeInjection at cuInit. It only
// collects. It subscribes to CUPTI callbacks for the copy, synchronisation and page-locked
// allocation APIs (runtime and driver, every thread) and enables activity records for copies
// (with the memory kinds the driver saw), kernels and unified-memory counters. Every event is
// written as it happens, one tab-separated line per write(2) on an O_APPEND file that doctor
// named in PINBENCH_DOCTOR_EVENTS, so a program that dies loses none of its API events; activity
// buffers are flushed every 100 ms, at exit and, best effort, from fatal-signal handlers that
// chain to the program's own. The lines are defined in experiments/doctor/events.hpp, which
// doctor's parser (experiments/doctor/trace.cpp) reads them with; docs/doctor.md lists them.
//
// Preloaded, it also says what it saw of every process that never started the collector: an L
// line as each process image starts, and a W line as it ends (exit, _exit, exec) saying whether
// it asked to load the CUDA driver (cuda/driver_watch.hpp, whose dlopen this library defines).
// So doctor can tell a process that made no CUDA call from one it could not see: one on a machine
// without a driver, one killed before its end, one whose CUDA failed before the collector started.
//
// No fmt, JSON or C++ runtime beyond what the collector needs: it lives in someone else's
// process. CUPTI is dlopen()ed from the paths doctor passed in PINBENCH_DOCTOR_CUPTI, through
// the table the tool's own trace uses too (cuda/cupti_api.hpp, header-only).
#include <cupti.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <unordered_set>

#include "cuda/cupti_api.hpp"
#include "cuda/driver_watch.hpp"
#include "experiments/doctor/events.hpp"

namespace {

namespace events = pinbench::experiments::doctor::events;
using events::CallClass;
using events::kAlloc;
using events::kBatch;
using events::kCopy;
using events::kCopyAsync;
using events::kFree;
using events::kIgnore;
using events::kRegister;
using events::kSync;
using events::kUnregister;

// The U lines carry CUPTI's numbers for the counters; the parser reads them without cupti.h.
static_assert(CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD ==
                  static_cast<int>(events::Unified::kBytesToDevice) &&
              CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH ==
                  static_cast<int>(events::Unified::kBytesToHost) &&
              CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT ==
                  static_cast<int>(events::Unified::kCpuFaults) &&
              CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT ==
                  static_cast<int>(events::Unified::kGpuFaults));

constexpr std::size_t kBufferBytes = 4u << 20;
constexpr int kMaxFrames = 16;
constexpr int kMaxPythonFrames = 8;

pinbench::cuda::CuptiApi g_cupti;
int g_pid = 0;
// Set once the collector said hello in process g_pid: a forked child of it is not collecting.
std::atomic<bool> g_collecting{false};
// The pid whose W line this image wrote (its end, as far as doctor is told), else 0. A pid, not a
// flag: a vfork child shares its parent's memory until it execs.
std::atomic<int> g_said_unwatched{0};
std::atomic<bool> g_flushing{false};
std::atomic<bool> g_ended{false};
bool g_python_gil = true;
std::uintptr_t g_self_base = 0;
std::mutex g_sites_mu;
std::unordered_set<std::uint64_t>* g_sites = nullptr;  // leaked: used until the very end

// The class of each callback id, filled at start-up.
std::int8_t g_runtime_class[CUPTI_RUNTIME_TRACE_CBID_SIZE];
std::int8_t g_driver_class[CUPTI_DRIVER_TRACE_CBID_SIZE];
// Whether the size of a copy is the third parameter (cudaMemcpy, cudaMemcpyAsync, cuMemcpyHtoD,
// cuMemcpyDtoH and their variants): then the API line carries its bytes even if the activity
// record is lost.
bool g_runtime_sized[CUPTI_RUNTIME_TRACE_CBID_SIZE];
bool g_driver_sized[CUPTI_DRIVER_TRACE_CBID_SIZE];

bool starts(const std::string& s, const char* prefix);
bool open_events();

// Page-locked host ranges (start -> bytes) as the program's own calls made them. A copy whose
// host side lies in one cannot end up in a finding, so it keeps no call site: unwinding the
// stack is the collector's largest cost per call, and a program that does it right should not
// pay for it.
std::mutex g_pinned_mu;
std::map<std::uintptr_t, std::uint64_t>* g_pinned = nullptr;  // leaked, like g_sites

bool in_pinned(std::uintptr_t p) {
  if (p == 0) return false;
  const std::lock_guard<std::mutex> lock(g_pinned_mu);
  auto it = g_pinned->upper_bound(p);
  if (it == g_pinned->begin()) return false;
  --it;
  return p < it->first + it->second;
}

// A copy as its parameters say, for the APIs whose third parameter is its size: the direction,
// the host pointer, and where that pointer lies.
struct HostSide {
  char direction = events::Api::kUnknown;
  char host = events::Api::kUnread;
  std::uintptr_t pointer = 0;
};

// The driver's word on a host pointer the process did not page-lock through a call the collector
// saw: managed, page-locked (by someone else, or before the collector started) or pageable (the
// driver knows nothing of it). Only copies outside the collector's own ranges ask, and those are
// the slow copies already.
using PointerAttribute = int (*)(void* data, int attribute, std::uintptr_t pointer);
PointerAttribute g_pointer_attribute = nullptr;
constexpr int kAttrMemoryType = 2;  // CU_POINTER_ATTRIBUTE_MEMORY_TYPE
constexpr int kAttrIsManaged = 8;   // CU_POINTER_ATTRIBUTE_IS_MANAGED
constexpr unsigned kMemoryTypeHost = 1;

// The driver's word on a page-locking call's range once the call has returned: page-locked when
// it calls both its first and its last byte host memory it knows (cuPointerGetAttribute), not
// when it does not, unread without a range or a driver function to ask.
char range_locked(std::uintptr_t p, std::uint64_t bytes) {
  if (p == 0 || bytes == 0 || g_pointer_attribute == nullptr) return events::Api::kLockedUnread;
  for (const std::uintptr_t at : {p, p + bytes - 1}) {
    unsigned type = 0;
    if (g_pointer_attribute(&type, kAttrMemoryType, at) != 0 || type != kMemoryTypeHost) {
      return events::Api::kLockedNo;
    }
  }
  return events::Api::kLockedYes;
}

char host_kind(std::uintptr_t p) {
  if (p == 0) return events::Api::kUnread;
  if (in_pinned(p)) return events::Api::kPinned;
  if (g_pointer_attribute == nullptr) return events::Api::kUnread;
  unsigned managed = 0, type = 0;
  if (g_pointer_attribute(&managed, kAttrIsManaged, p) == 0 && managed != 0) {
    return events::Api::kManaged;
  }
  if (g_pointer_attribute(&type, kAttrMemoryType, p) == 0) {
    return type == kMemoryTypeHost ? events::Api::kPinned : events::Api::kUnread;
  }
  return events::Api::kPageable;
}

// How a copy API's parameters say what it copies: worked out once per callback id at start-up,
// so a call reads its parameters without comparing names.
enum class Shape : std::int8_t {
  kUnsaid,          // not a copy whose parameters the collector reads
  kRuntimeKind,     // cudaMemcpy, cudaMemcpyAsync: (dst, src, count, kind, ...)
  kToDevice,        // cuMemcpyHtoD*: (dst, src, count, ...)
  kToHost,          // cuMemcpyDtoH*
  kDeviceToDevice,  // cuMemcpyDtoD*
  kUnified          // cuMemcpy, cuMemcpyAsync: the pointers say
};

Shape shape_of(const std::string& name) {
  if (name == "cudaMemcpy" || name == "cudaMemcpyAsync") return Shape::kRuntimeKind;
  if (starts(name, "cuMemcpyHtoD")) return Shape::kToDevice;
  if (starts(name, "cuMemcpyDtoH")) return Shape::kToHost;
  if (starts(name, "cuMemcpyDtoD")) return Shape::kDeviceToDevice;
  if (name == "cuMemcpy" || name == "cuMemcpyAsync") return Shape::kUnified;
  return Shape::kUnsaid;
}

HostSide host_side_of(Shape shape, const std::uintptr_t* params) {
  using A = events::Api;
  HostSide h;
  switch (shape) {
    case Shape::kRuntimeKind: {
      // The kind is an enum, 4 bytes in its 8-byte slot: the rest is padding, not zero.
      const auto kind = static_cast<std::uint32_t>(params[3]);
      if (kind == 1) {  // cudaMemcpyHostToDevice
        h.direction = A::kToDevice;
        h.pointer = params[1];
      } else if (kind == 2) {  // cudaMemcpyDeviceToHost
        h.direction = A::kToHost;
        h.pointer = params[0];
      } else if (kind == 3) {  // cudaMemcpyDeviceToDevice
        h.direction = A::kDeviceToDevice;
        h.host = A::kNoHost;
        return h;
      } else {  // cudaMemcpyDefault: a pinned end is enough to skip the site
        if (in_pinned(params[0]) || in_pinned(params[1])) h.host = A::kPinned;
        return h;
      }
      break;
    }
    case Shape::kToDevice:
      h.direction = A::kToDevice;
      h.pointer = params[1];
      break;
    case Shape::kToHost:
      h.direction = A::kToHost;
      h.pointer = params[0];
      break;
    case Shape::kDeviceToDevice:
      h.direction = A::kDeviceToDevice;
      h.host = A::kNoHost;
      return h;
    default:
      if (in_pinned(params[0]) || in_pinned(params[1])) h.host = A::kPinned;
      return h;
  }
  h.host = host_kind(h.pointer);
  return h;
}

// The NUMA node most of [p, p + bytes)'s pages lie on, from up to kNodeSamples pages spread
// over it (move_pages(2) without target nodes only reports); -1 when no page says (none
// present, no NUMA, or refused).
constexpr int kNodeSamples = 16;
int numa_node_of(std::uintptr_t p, std::uint64_t bytes) {
  if (p == 0 || bytes == 0) return -1;
  static const long page = sysconf(_SC_PAGESIZE);
  const std::uintptr_t first = p & ~static_cast<std::uintptr_t>(page - 1);
  const std::uint64_t span = p + bytes - first;
  const int count = static_cast<int>(std::min<std::uint64_t>(
      kNodeSamples,
      (span + static_cast<std::uint64_t>(page) - 1) / static_cast<std::uint64_t>(page)));
  void* pages[kNodeSamples];
  int status[kNodeSamples];
  for (int i = 0; i < count; ++i) {
    const std::uint64_t at =
        span * static_cast<std::uint64_t>(i) / static_cast<std::uint64_t>(count);
    pages[i] = reinterpret_cast<void*>((first + at) & ~static_cast<std::uintptr_t>(page - 1));
    status[i] = -1;
  }
  if (syscall(SYS_move_pages, 0, static_cast<unsigned long>(count), pages, nullptr, status, 0) !=
      0) {
    return -1;
  }
  int votes[64] = {};
  int best = -1;
  for (int i = 0; i < count; ++i) {
    if (status[i] < 0 || status[i] >= 64) continue;
    ++votes[status[i]];
    if (best < 0 || votes[status[i]] > votes[best]) best = status[i];
  }
  return best;
}

Shape g_runtime_shape[CUPTI_RUNTIME_TRACE_CBID_SIZE];
Shape g_driver_shape[CUPTI_DRIVER_TRACE_CBID_SIZE];

thread_local int t_tid = 0;
thread_local int t_in_runtime = 0;

int tid() {
  if (t_tid == 0) t_tid = static_cast<int>(syscall(SYS_gettid));
  return t_tid;
}

// The collector's file (events.hpp, EventFile), mapped shared: a line is claimed by advancing the
// header's counter and copied in, so lines of every thread and process stay whole and apart, and
// survive the process. Without the mapping (or once it is full), lines are appended to the
// overflow file with one write(2) each.
events::EventFile::Header* g_header = nullptr;
char* g_lines = nullptr;
int g_overflow_fd = -1;
std::string* g_overflow_path = nullptr;

void append(int fd, const char* data, std::size_t len) {
  while (len > 0) {
    const ssize_t n = ::write(fd, data, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    data += n;
    len -= static_cast<std::size_t>(n);
  }
}

void write_all(const char* data, std::size_t len) {
  if (len == 0) return;
  if (g_header != nullptr) {
    const std::uint64_t at = __atomic_fetch_add(&g_header->used, len, __ATOMIC_RELAXED);
    if (at + len <= events::EventFile::kCapacity) {
      std::memcpy(g_lines + at, data, len);
      return;
    }
  }
  if (g_overflow_fd < 0 && g_overflow_path != nullptr) {
    g_overflow_fd =
        ::open(g_overflow_path->c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  }
  if (g_overflow_fd >= 0) append(g_overflow_fd, data, len);
}

// Tabs and newlines would split a field or a line.
void clean(char* s) {
  for (; *s != '\0'; ++s) {
    if (*s == '\t' || *s == '\n' || *s == '\r') *s = ' ';
  }
}

// Writes one line that `format` (an events.hpp writer, bound to its fields) puts in a buffer.
template <typename Format>
void emit(const Format& format) {
  char line[8192];
  write_all(line, format(line, sizeof line));
}

// An N line, its sentence formatted first.
void note(const char* what, const char* format, ...) __attribute__((format(printf, 2, 3)));
void note(const char* what, const char* format, ...) {
  char text[8192];
  va_list args;
  va_start(args, format);
  const int n = std::vsnprintf(text, sizeof text, format, args);
  va_end(args);
  if (n < 0) return;
  emit([&](char* line, std::size_t size) {
    return events::Note::write(line, size, g_pid, what, text);
  });
}

std::uint64_t now_ns() {
  std::uint64_t t = 0;
  if (g_cupti.timestamp != nullptr) g_cupti.timestamp(&t);
  return t;
}

std::string base_name(const char* name) {
  std::string s = name;
  for (const char* suffix : {"_ptds", "_ptsz"}) {
    const std::size_t at = s.rfind(suffix);
    if (at != std::string::npos && at + std::strlen(suffix) == s.size()) s.erase(at);
  }
  const std::size_t v = s.rfind("_v");
  if (v != std::string::npos && v + 2 < s.size() && s[v + 2] >= '0' && s[v + 2] <= '9') {
    s.erase(v);
  }
  for (const char* suffix : {"_ptds", "_ptsz"}) {
    const std::size_t at = s.rfind(suffix);
    if (at != std::string::npos && at + std::strlen(suffix) == s.size()) s.erase(at);
  }
  return s;
}

bool starts(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

CallClass classify(const std::string& n) {
  if (starts(n, "cudaMemcpy") || starts(n, "cuMemcpy")) {
    if (n.find("Batch") != std::string::npos) return kBatch;
    return n.find("Async") != std::string::npos ? kCopyAsync : kCopy;
  }
  if (n == "cudaDeviceSynchronize" || n == "cudaStreamSynchronize" || n == "cudaEventSynchronize" ||
      n == "cuCtxSynchronize" || n == "cuStreamSynchronize" || n == "cuEventSynchronize") {
    return kSync;
  }
  if (n == "cudaMallocHost" || n == "cudaHostAlloc" || n == "cuMemAllocHost" ||
      n == "cuMemHostAlloc") {
    return kAlloc;
  }
  if (n == "cudaFreeHost" || n == "cuMemFreeHost") return kFree;
  if (n == "cudaHostRegister" || n == "cuMemHostRegister") return kRegister;
  if (n == "cudaHostUnregister" || n == "cuMemHostUnregister") return kUnregister;
  return kIgnore;
}

bool size_third(const std::string& n) {
  return n == "cudaMemcpy" || n == "cudaMemcpyAsync" || n == "cuMemcpy" || n == "cuMemcpyAsync" ||
         starts(n, "cuMemcpyHtoD") || starts(n, "cuMemcpyDtoH") || starts(n, "cuMemcpyDtoD");
}

// --- call sites -------------------------------------------------------------------------------

using PyObj = void;
struct Python {
  bool looked = false;
  bool usable = false;
  int (*is_initialized)() = nullptr;
  int (*is_finalizing)() = nullptr;
  int (*gil_check)() = nullptr;
  void* (*this_thread_state)() = nullptr;
  int (*gil_ensure)() = nullptr;
  void (*gil_release)(int) = nullptr;
  PyObj* (*get_frame)() = nullptr;
  PyObj* (*frame_code)(PyObj*) = nullptr;
  int (*frame_line)(PyObj*) = nullptr;
  PyObj* (*frame_back)(PyObj*) = nullptr;
  PyObj* (*get_attr)(PyObj*, const char*) = nullptr;
  const char* (*utf8)(PyObj*) = nullptr;
  void (*dec_ref)(PyObj*) = nullptr;
};
Python g_py;
std::mutex g_py_mu;

template <typename F>
void bind_py(F& fn, const char* name) {
  fn = reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name));
}

// The CPython C API, found in the process without linking libpython: a program that is not
// Python has none of it, and then there are no Python frames.
const Python& python() {
  const std::lock_guard<std::mutex> lock(g_py_mu);
  if (g_py.looked) return g_py;
  g_py.looked = true;
  bind_py(g_py.is_initialized, "Py_IsInitialized");
  bind_py(g_py.is_finalizing, "Py_IsFinalizing");
  if (g_py.is_finalizing == nullptr) bind_py(g_py.is_finalizing, "_Py_IsFinalizing");
  bind_py(g_py.gil_check, "PyGILState_Check");
  bind_py(g_py.this_thread_state, "PyGILState_GetThisThreadState");
  bind_py(g_py.gil_ensure, "PyGILState_Ensure");
  bind_py(g_py.gil_release, "PyGILState_Release");
  bind_py(g_py.get_frame, "PyEval_GetFrame");
  bind_py(g_py.frame_code, "PyFrame_GetCode");
  bind_py(g_py.frame_line, "PyFrame_GetLineNumber");
  bind_py(g_py.frame_back, "PyFrame_GetBack");
  bind_py(g_py.get_attr, "PyObject_GetAttrString");
  bind_py(g_py.utf8, "PyUnicode_AsUTF8");
  bind_py(g_py.dec_ref, "Py_DecRef");
  g_py.usable = g_py.is_initialized && g_py.gil_check && g_py.get_frame && g_py.frame_code &&
                g_py.frame_line && g_py.frame_back && g_py.get_attr && g_py.utf8 && g_py.dec_ref;
  return g_py;
}

std::uint64_t fnv(std::uint64_t h, const void* data, std::size_t len) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < len; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

// Appends "\tP|file|line|function" for each Python frame of the calling thread, innermost first.
// Read under the GIL only: held already, or taken for the walk when the thread released it in C
// (PyTorch releases it around its copies) and the interpreter is neither starting nor ending.
void python_frames(std::string& out, std::uint64_t& hash) {
  const Python& py = python();
  if (!py.usable || py.is_initialized() == 0) return;
  if (py.is_finalizing != nullptr && py.is_finalizing() != 0) return;
  int state = -1;
  if (py.gil_check() == 0) {
    if (!g_python_gil || py.this_thread_state == nullptr || py.gil_ensure == nullptr ||
        py.gil_release == nullptr || py.this_thread_state() == nullptr) {
      return;
    }
    state = py.gil_ensure();
  }
  PyObj* frame = py.get_frame();  // borrowed
  bool owned = false;
  for (int depth = 0; frame != nullptr && depth < kMaxPythonFrames; ++depth) {
    PyObj* code = py.frame_code(frame);
    const int line = py.frame_line(frame);
    std::string file = "?", function = "?";
    if (code != nullptr) {
      for (auto [attr, dst] : {std::pair<const char*, std::string*>{"co_filename", &file},
                               std::pair<const char*, std::string*>{"co_name", &function}}) {
        PyObj* v = py.get_attr(code, attr);
        if (v != nullptr) {
          const char* s = py.utf8(v);
          if (s != nullptr) *dst = s;
          py.dec_ref(v);
        }
      }
      py.dec_ref(code);
    }
    char item[1024];
    events::Site::write_python(item, sizeof item, file.c_str(), line, function.c_str());
    clean(item + 1);
    out += item;
    hash = fnv(hash, file.data(), file.size());
    hash = fnv(hash, &line, sizeof line);
    PyObj* back = py.frame_back(frame);  // a new reference
    if (owned) py.dec_ref(frame);
    frame = back;
    owned = true;
  }
  if (owned && frame != nullptr) py.dec_ref(frame);
  if (state >= 0) py.gil_release(state);
}

bool skipped_module(const char* path, std::uintptr_t base) {
  if (base == g_self_base) return true;
  if (path == nullptr) return false;
  return std::strstr(path, "libcupti") != nullptr || std::strstr(path, "libcuda.so") != nullptr;
}

// The call site's id, after writing its frames (once per site and process) as an S line:
// native frames as module|offset|symbol, offsets from the module's load address as addr2line
// reads them; then Python frames.
std::uint64_t call_site() {
  void* pcs[kMaxFrames + 8];
  const int n = backtrace(pcs, kMaxFrames + 8);
  // The raw return addresses name the path; dladdr() runs only the first time a path is seen.
  std::uint64_t hash =
      fnv(1469598103934665603ull, pcs, sizeof(void*) * static_cast<std::size_t>(n));
  std::string python_part;
  python_frames(python_part, hash);
  {
    const std::lock_guard<std::mutex> lock(g_sites_mu);
    if (!g_sites->insert(hash).second) return hash;
  }
  std::string frames;
  int kept = 0;
  for (int i = 0; i < n && kept < kMaxFrames; ++i) {
    Dl_info info{};
    link_map* map = nullptr;
    if (dladdr1(pcs[i], &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0) continue;
    if (skipped_module(info.dli_fname, reinterpret_cast<std::uintptr_t>(info.dli_fbase))) continue;
    const std::uintptr_t pc = reinterpret_cast<std::uintptr_t>(pcs[i]);
    const std::uintptr_t offset = pc - (map != nullptr ? map->l_addr : 0);
    char item[1200];
    events::Site::write_native(item, sizeof item, info.dli_fname != nullptr ? info.dli_fname : "?",
                               static_cast<std::size_t>(offset),
                               info.dli_sname != nullptr ? info.dli_sname : "");
    clean(item + 1);
    frames += item;
    ++kept;
  }
  char head[64];
  std::string line(head, events::Site::write_head(head, sizeof head, g_pid, hash));
  line += frames;
  line += python_part;
  line += "\n";
  write_all(line.data(), line.size());
  return hash;
}

// --- callbacks --------------------------------------------------------------------------------

// CUPTI's memcpy activity records are the collector's largest cost (a copy-heavy program of
// page-locked copies ran 1.13x with them, 1.04x without, on the H200), and a copy from a
// page-locked range the process made needs its device times for no finding (sync-after-copy
// falls back on the calls' host times): after kQuietCopies copies in a row
// that the calls themselves show page-locked (or device to device), the process stops recording
// copies' device times, and starts again at the entry of the first copy call that could be in a
// finding, before the copy is made. Calls keep being written; a call without its record gets
// its copy from what it said (trace.cpp). PINBENCH_DOCTOR_ALL_COPIES=1 (doctor's --all-copies,
// and --trace) keeps every record.
constexpr int kQuietCopies = 1024;
bool g_all_copies = false;
std::atomic<int> g_quiet{0};
std::atomic<bool> g_recording{true};
std::mutex g_recording_mu;

void record_copies(bool on) {
  if (g_recording.load(std::memory_order_relaxed) == on) return;
  const std::lock_guard<std::mutex> lock(g_recording_mu);
  if (g_recording.load() == on) return;
  if (on) {
    g_cupti.activity_enable(CUPTI_ACTIVITY_KIND_MEMCPY);
  } else {
    g_cupti.activity_disable(CUPTI_ACTIVITY_KIND_MEMCPY);
    static bool said = false;
    if (!said) {
      said = true;
      note(events::Note::kQuiet,
           "after %d copies in a row from page-locked memory, copies' device times were recorded "
           "only while copies that could be in a finding were made (--all-copies records every "
           "one)",
           kQuietCopies);
    }
  }
  g_recording = on;
}

// At a copy call's entry: whether its copies need their device times recorded.
void before_copy(bool runtime, CUpti_CallbackId cbid, int cls, const void* params) {
  const Shape shape = runtime ? g_runtime_shape[cbid] : g_driver_shape[cbid];
  bool quiet = false;
  if (cls != kBatch && params != nullptr && shape != Shape::kUnsaid) {
    const HostSide side = host_side_of(shape, static_cast<const std::uintptr_t*>(params));
    quiet = side.host == events::Api::kPinned || side.host == events::Api::kNoHost;
  }
  if (!quiet) {
    g_quiet.store(0, std::memory_order_relaxed);
    record_copies(true);
  } else if (g_quiet.fetch_add(1, std::memory_order_relaxed) + 1 >= kQuietCopies) {
    record_copies(false);
  }
}

void CUPTIAPI on_api(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  const auto* cb = static_cast<const CUpti_CallbackData*>(data);
  const bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
  if (!runtime && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  const int cls = runtime ? (cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE ? g_runtime_class[cbid] : 0)
                          : (cbid < CUPTI_DRIVER_TRACE_CBID_SIZE ? g_driver_class[cbid] : 0);
  if (cls <= 0) return;
  if (cb->callbackSite == CUPTI_API_ENTER) {
    if (runtime) ++t_in_runtime;
    // A driver call made by a runtime call on this thread is that call, seen twice.
    if (!runtime && t_in_runtime > 0) return;
    if (!g_all_copies && (cls == kCopy || cls == kCopyAsync || cls == kBatch)) {
      before_copy(runtime, cbid, cls, cb->functionParams);
    }
    if (cb->correlationData != nullptr) *cb->correlationData = now_ns();
    return;
  }
  if (runtime) --t_in_runtime;
  if (!runtime && t_in_runtime > 0) return;
  const std::uint64_t end = now_ns();
  const std::uint64_t start = cb->correlationData != nullptr ? *cb->correlationData : end;
  int status = 0;
  if (cb->functionReturnValue != nullptr)
    status = *static_cast<const int*>(cb->functionReturnValue);
  std::uintptr_t ptr = 0;
  std::uint64_t bytes = 0;
  const auto* params = static_cast<const std::uintptr_t*>(cb->functionParams);
  if (params != nullptr) {
    switch (cls) {
      case kAlloc:  // (void** ptr, size_t size, ...)
        if (params[0] != 0) ptr = *reinterpret_cast<const std::uintptr_t*>(params[0]);
        bytes = params[1];
        break;
      case kRegister:  // (void* ptr, size_t size, flags)
        ptr = params[0];
        bytes = params[1];
        break;
      case kFree:
      case kUnregister:  // (void* ptr)
        ptr = params[0];
        break;
      case kCopy:
      case kCopyAsync:
        if (runtime ? g_runtime_sized[cbid] : g_driver_sized[cbid]) bytes = params[2];
        break;
      default:
        break;
    }
  }
  // An allocation that failed allocated nothing: whatever its out-parameter holds is no range.
  if (cls == kAlloc && status != 0) ptr = 0;
  // What the call left: a registration can fail on a range page-locked already, or return success
  // and leave its range pageable; only a range the driver calls page-locked is taken as one, so
  // copies from any other still ask the driver.
  const char locked = cls == kAlloc || cls == kRegister
                          ? range_locked(ptr, bytes)
                          : static_cast<char>(events::Api::kLockedUnread);
  if (params != nullptr && ptr != 0) {
    const std::lock_guard<std::mutex> lock(g_pinned_mu);
    if ((cls == kAlloc || cls == kRegister) && status == 0 && locked != events::Api::kLockedNo) {
      (*g_pinned)[ptr] = bytes;
    }
    if ((cls == kFree || cls == kUnregister) && status == 0) g_pinned->erase(ptr);
  }
  bool wants_site =
      cls == kCopy || cls == kCopyAsync || cls == kBatch || cls == kAlloc || cls == kRegister;
  HostSide side;
  int node = -1;
  if ((cls == kCopy || cls == kCopyAsync) && params != nullptr &&
      (runtime ? g_runtime_shape[cbid] : g_driver_shape[cbid]) != Shape::kUnsaid) {
    side = host_side_of(runtime ? g_runtime_shape[cbid] : g_driver_shape[cbid], params);
    // A copy between devices can be in no finding, nor one from page-locked memory unless it is
    // small enough to be part of a storm of small copies.
    wants_site = side.host != events::Api::kNoHost &&
                 (side.host != events::Api::kPinned || bytes < events::kSmallCopyBytes);
    if (side.pointer != 0) ptr = side.pointer;
    if (side.host == events::Api::kPageable && bytes >= events::kNumaSampleBytes) {
      node = numa_node_of(side.pointer, bytes);
    }
  }
  if ((cls == kAlloc || cls == kRegister) && status == 0) node = numa_node_of(ptr, bytes);
  const std::uint64_t site = wants_site ? call_site() : 0;
  char name[256];
  std::snprintf(name, sizeof name, "%s", cb->functionName != nullptr ? cb->functionName : "?");
  clean(name);
  emit([&](char* line, std::size_t size) {
    return events::Api::write(line, size, g_pid, runtime, cls, cb->correlationId, tid(), start, end,
                              status, ptr, bytes, site, side.direction, side.host, node, name,
                              locked);
  });
}

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max) {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max = 0;
}

// Lines gathered into a block and written whole, many lines per write(2).
struct Block {
  char data[1 << 16];
  std::size_t used = 0;
  void add(const char* line, std::size_t len) {
    if (used + len > sizeof data) flush();
    if (len > sizeof data) len = sizeof data;
    std::memcpy(data + used, line, len);
    used += len;
  }
  void flush() {
    write_all(data, used);
    used = 0;
  }
};

void take(const CUpti_Activity* record, Block& out) {
  char line[1024];
  std::size_t n = 0;
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      n = events::Memcpy::write(line, sizeof line, g_pid, m->correlationId, m->runtimeCorrelationId,
                                m->copyKind, m->bytes, m->srcKind, m->dstKind, m->start, m->end,
                                m->streamId, m->deviceId, static_cast<unsigned>(m->flags));
      break;
    }
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      char name[200];
      std::snprintf(name, sizeof name, "%s", k->name != nullptr ? k->name : "?");
      clean(name);
      n = events::Kernel::write(line, sizeof line, g_pid, k->correlationId, k->start, k->end,
                                k->streamId, name);
      break;
    }
    case CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER: {
      const auto* u = reinterpret_cast<const CUpti_ActivityUnifiedMemoryCounter3*>(record);
      n = events::Unified::write(line, sizeof line, g_pid, static_cast<unsigned>(u->counterKind),
                                 u->value, u->start, u->end);
      break;
    }
    default:
      return;
  }
  out.add(line, n);
}

void CUPTIAPI buffer_completed(CUcontext context, std::uint32_t stream, std::uint8_t* buffer,
                               std::size_t, std::size_t valid) {
  if (buffer != nullptr) {
    static std::mutex mu;  // CUPTI may complete buffers on several threads
    const std::lock_guard<std::mutex> lock(mu);
    static Block block;
    const std::size_t dropped = g_cupti.read_buffer(
        context, stream, buffer, valid, [](const CUpti_Activity* record) { take(record, block); });
    if (dropped > 0) {
      char line[64];
      block.add(line, events::Dropped::write(line, sizeof line, g_pid, dropped));
    }
    block.flush();
  }
  std::free(buffer);
}

// --- the end of the program -------------------------------------------------------------------

void at_exit() {
  if (g_ended.exchange(true)) return;
  if (g_cupti.flush_all != nullptr && !g_flushing.exchange(true)) {
    g_cupti.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  }
  emit([](char* line, std::size_t size) { return events::End::write_exit(line, size, g_pid); });
}

// --- ends that skip the exit handlers -------------------------------------------------------
//
// doctor also preloads this library (LD_PRELOAD), so these definitions stand before the C
// library's in every process of the program: _exit (Python's os._exit, as multiprocessing's
// workers end) and the exec family run no exit handler, so the activity records CUPTI still
// holds would go with the process. Each flushes them and says how the process ended, then does
// what was asked. A process that did not start the collector (no CUDA, or a child forked after
// the parent started it, where CUDA must not be touched) passes straight through.

bool collecting_here() {
  return g_pid != 0 && static_cast<int>(getpid()) == g_pid && !g_ended.load();
}

void flush_activity() {
  if (g_cupti.flush_all != nullptr && !g_flushing.exchange(true)) {
    g_cupti.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    g_flushing = false;
  }
}

void end_as(const char* how) {
  flush_activity();
  emit([how](char* line, std::size_t size) { return events::End::write(line, size, g_pid, how); });
}

// --- processes without the collector ---------------------------------------------------------
//
// Every process image of the program says it started (L) and, unless the collector started in it,
// how it ended (W): whether it asked to load the CUDA driver, and had it loaded at its end.

bool collector_started_here() {
  return g_collecting.load() && static_cast<int>(getpid()) == g_pid;
}

void say_loaded() {
  g_said_unwatched = 0;
  const int pid = static_cast<int>(getpid());
  emit([pid](char* line, std::size_t size) { return events::Loaded::write(line, size, pid); });
}

// The W line of a process image that ends (once), unless the collector started in it.
void say_unwatched() {
  const int pid = static_cast<int>(getpid());
  if (g_overflow_path == nullptr || collector_started_here() ||
      g_said_unwatched.exchange(pid) == pid) {
    return;
  }
  const bool asked = pinbench::cuda::driver_asked();
  const bool loaded = pinbench::cuda::driver_loaded();
  emit([=](char* line, std::size_t size) {
    return events::Unwatched::write(line, size, pid, asked, loaded);
  });
}

void unwatched_at_exit() {
  say_unwatched();
}

void loaded_in_forked_child() {
  pinbench::cuda::driver_watch_forked();
  say_loaded();
}

// At load, in every process image doctor started: L now, W at its end.
__attribute__((constructor)) void at_load() {
  if (!open_events()) return;
  say_loaded();
  pthread_atfork(nullptr, nullptr, loaded_in_forked_child);
  std::atexit(unwatched_at_exit);
}

template <typename F>
F next_symbol(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

const int kFatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT, SIGHUP, SIGQUIT};
struct sigaction g_previous[65];

extern "C" void on_fatal(int sig, siginfo_t* info, void* context) {
  const struct sigaction& prev = g_previous[sig];
  const bool handled = (prev.sa_flags & SA_SIGINFO) != 0
                           ? prev.sa_sigaction != nullptr
                           : (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN);
  if (handled) {
    // The program handles it itself (Python's SIGINT): it may go on, so it is not the end.
    if ((prev.sa_flags & SA_SIGINFO) != 0) {
      prev.sa_sigaction(sig, info, context);
    } else {
      prev.sa_handler(sig);
    }
    return;
  }
  if (prev.sa_handler == SIG_IGN) return;
  // The line first: should the flush hang (a crash inside CUPTI), the watchdog's SIGALRM ends
  // the program and doctor still knows which signal ended it.
  char line[48];
  const std::size_t n = events::End::write_signal(line, sizeof line, g_pid, sig);
  if (!g_ended.exchange(true)) {
    write_all(line, n);
    alarm(3);
    if (g_cupti.flush_all != nullptr && !g_flushing.exchange(true)) {
      g_cupti.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    }
  }
  sigaction(sig, &prev, nullptr);
  raise(sig);
}

void install_fatal_handlers() {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fatal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for (int sig : kFatal) sigaction(sig, &sa, &g_previous[sig]);
}

// Loads CUPTI from the first of the paths doctor passed (colon-separated) that loads.
bool open_cupti(pinbench::cuda::CuptiApi& c, const char* candidates) {
  std::string list = candidates != nullptr ? candidates : "";
  if (list.empty()) list = "libcupti.so.13:/usr/local/cuda/lib64/libcupti.so.13";
  std::size_t from = 0;
  while (from <= list.size()) {
    const std::size_t to = std::min(list.find(':', from), list.size());
    const std::string path = list.substr(from, to - from);
    if (!path.empty() && c.open(path.c_str())) return true;
    from = to + 1;
  }
  return false;
}

// Maps the collector's file doctor named in PINBENCH_DOCTOR_EVENTS, once per process image (a
// forked child keeps its parent's mapping); false when doctor named none.
bool open_events() {
  if (g_overflow_path != nullptr) return true;
  const char* path = std::getenv("PINBENCH_DOCTOR_EVENTS");
  if (path == nullptr || *path == '\0') return false;  // not started by doctor: collect nothing
  g_overflow_path = new std::string(std::string(path) + events::EventFile::kOverflowSuffix);
  const int fd = ::open(path, O_RDWR | O_CLOEXEC);
  if (fd >= 0) {
    void* map = mmap(nullptr, events::EventFile::kHeaderBytes + events::EventFile::kCapacity,
                     PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ::close(fd);
    if (map != MAP_FAILED) {
      auto* header = static_cast<events::EventFile::Header*>(map);
      if (header->magic == events::EventFile::kMagic) {
        g_header = header;
        g_lines = static_cast<char*>(map) + events::EventFile::kHeaderBytes;
      }
    }
  }
  return true;
}

int start() {
  if (!open_events()) return 1;
  g_pid = static_cast<int>(getpid());
  const char* gil = std::getenv("PINBENCH_DOCTOR_PYTHON_GIL");
  g_python_gil = gil == nullptr || std::strcmp(gil, "0") != 0;
  const char* all = std::getenv("PINBENCH_DOCTOR_ALL_COPIES");
  g_all_copies = all != nullptr && std::strcmp(all, "1") == 0;
  Dl_info self{};
  if (dladdr(reinterpret_cast<void*>(&start), &self) != 0) {
    g_self_base = reinterpret_cast<std::uintptr_t>(self.dli_fbase);
  }
  if (void* cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD)) {
    g_pointer_attribute = reinterpret_cast<PointerAttribute>(dlsym(cuda, "cuPointerGetAttribute"));
  }
  g_sites = new std::unordered_set<std::uint64_t>();
  g_pinned = new std::map<std::uintptr_t, std::uint64_t>();

  pinbench::cuda::CuptiApi& c = g_cupti;
  if (!open_cupti(c, std::getenv("PINBENCH_DOCTOR_CUPTI"))) {
    note(events::Note::kNoCupti, "CUPTI not found (%s)", dlerror());
    return 1;
  }
  if (c.bind() != nullptr) {
    note(events::Note::kNoCupti, "the CUPTI found lacks a function pinbench needs");
    c.timestamp = nullptr;
    c.flush_all = nullptr;
    return 1;
  }
  std::uint32_t version = 0;
  c.get_version(&version);
  CUpti_SubscriberHandle subscriber = nullptr;
  const CUptiResult sub = c.subscribe(&subscriber, on_api, nullptr);
  if (sub == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
    note(events::Note::kCuptiBusy, "CUPTI is held by another profiler or debugger (error %d)",
         static_cast<int>(sub));
  } else if (sub != CUPTI_SUCCESS) {
    const char* why = nullptr;
    if (c.result_string(sub, &why) != CUPTI_SUCCESS || why == nullptr) why = "no reason given";
    note(events::Note::kCuptiFailed,
         "CUPTI could not subscribe to the program's calls: %s (error %d)", why,
         static_cast<int>(sub));
  }
  if (sub != CUPTI_SUCCESS) {
    c.flush_all = nullptr;
    return 1;
  }
  emit([&](char* line, std::size_t size) {
    return events::Hello::write(line, size, g_pid, version, now_ns());
  });
  g_collecting = true;

  for (std::uint32_t id = 0; id < CUPTI_RUNTIME_TRACE_CBID_SIZE; ++id) {
    const char* name = nullptr;
    g_runtime_class[id] = kIgnore;
    if (c.callback_name(CUPTI_CB_DOMAIN_RUNTIME_API, id, &name) != CUPTI_SUCCESS || !name) continue;
    const std::string base = base_name(name);
    g_runtime_class[id] = classify(base);
    g_runtime_sized[id] = size_third(base);
    g_runtime_shape[id] = shape_of(base);
    if (g_runtime_class[id] > 0) c.enable_callback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, id);
  }
  for (std::uint32_t id = 0; id < CUPTI_DRIVER_TRACE_CBID_SIZE; ++id) {
    const char* name = nullptr;
    g_driver_class[id] = kIgnore;
    if (c.callback_name(CUPTI_CB_DOMAIN_DRIVER_API, id, &name) != CUPTI_SUCCESS || !name) continue;
    const std::string base = base_name(name);
    g_driver_class[id] = classify(base);
    g_driver_sized[id] = size_third(base);
    g_driver_shape[id] = shape_of(base);
    if (g_driver_class[id] > 0) c.enable_callback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id);
  }

  c.register_callbacks(buffer_requested, buffer_completed);
  if (c.configure_unified_memory != nullptr) {
    CUpti_ActivityUnifiedMemoryCounterConfig um[4];
    const CUpti_ActivityUnifiedMemoryCounterKind kinds[4] = {
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD,
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH,
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT,
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT};
    for (int i = 0; i < 4; ++i) {
      um[i] = {CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_ALL_DEVICES, kinds[i], 0, 1};
    }
    CUptiResult r = c.configure_unified_memory(um, 4);
    if (r == CUPTI_SUCCESS) r = c.activity_enable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
    if (r != CUPTI_SUCCESS) {
      note(events::Note::kNoUnifiedMemory,
           "CUPTI reports no unified memory counters here (CUPTI error %d)", static_cast<int>(r));
    }
  }
  for (CUpti_ActivityKind k : {CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL}) {
    const CUptiResult r = c.activity_enable(k);
    if (r != CUPTI_SUCCESS) {
      note(events::Note::kActivity, "CUPTI activity kind %d not enabled (error %d)",
           static_cast<int>(k), static_cast<int>(r));
    }
  }
  // Flushed every PINBENCH_DOCTOR_FLUSH_MS (doctor's --flush-ms; 100 unless said), or only at
  // the end when it is 0.
  const char* flush = std::getenv("PINBENCH_DOCTOR_FLUSH_MS");
  const long flush_ms = flush != nullptr ? std::strtol(flush, nullptr, 10) : 100;
  if (c.flush_period != nullptr && flush_ms > 0)
    c.flush_period(static_cast<std::uint32_t>(flush_ms));
  std::atexit(at_exit);
  install_fatal_handlers();
  return 1;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"), noreturn)) void _exit(int status) {
  if (collecting_here()) {
    g_ended = true;
    end_as(events::End::kQuickExit);
  }
  say_unwatched();
  static const auto real = next_symbol<void (*)(int)>("_exit");
  if (real != nullptr) real(status);
  syscall(SYS_exit_group, status);
  __builtin_unreachable();
}

__attribute__((visibility("default"), noreturn)) void _Exit(int status) {
  _exit(status);
}

}  // extern "C"

namespace {

// Runs an exec through the C library's own function, with the end said first; should the exec
// fail, the process goes on and says so.
template <typename Exec>
int exec_through(const Exec& exec) {
  const bool here = collecting_here();
  if (here) end_as(events::End::kExec);
  const int pid = static_cast<int>(getpid());
  const bool unwatched = g_said_unwatched.load() != pid;
  say_unwatched();
  const int result = exec();
  const int saved = errno;
  if (here) {
    emit([](char* line, std::size_t size) {
      return events::End::write(line, size, g_pid, events::End::kExecFailed);
    });
  }
  // The image goes on: it starts again, as far as doctor is told.
  if (unwatched && g_said_unwatched.load() == pid) say_loaded();
  errno = saved;
  return result;
}

using ExecVE = int (*)(const char*, char* const[], char* const[]);
using ExecV = int (*)(const char*, char* const[]);

// The arguments of execl, execlp and execle, gathered into an array (at most kMaxExecArgs).
constexpr int kMaxExecArgs = 4096;
int gather(const char* first, va_list args, const char** argv) {
  int n = 0;
  argv[n++] = first;
  while (argv[n - 1] != nullptr && n < kMaxExecArgs) argv[n++] = va_arg(args, const char*);
  if (argv[n - 1] != nullptr) {
    errno = E2BIG;
    return -1;
  }
  return n;
}

// execl, execlp and execle: their arguments (and execle's environment after them) gathered,
// then `exec(argv, envp)`.
template <typename Exec>
int exec_listed(const char* first, va_list args, bool environment, const Exec& exec) {
  const char* argv[kMaxExecArgs];
  const int n = gather(first, args, argv);
  if (n < 0) return -1;
  char* const* envp = environment ? va_arg(args, char* const*) : nullptr;
  return exec(const_cast<char* const*>(argv), envp);
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int execve(const char* path, char* const argv[],
                                                  char* const envp[]) {
  static const auto real = next_symbol<ExecVE>("execve");
  return exec_through([&] { return real(path, argv, envp); });
}

__attribute__((visibility("default"))) int execv(const char* path, char* const argv[]) {
  static const auto real = next_symbol<ExecV>("execv");
  return exec_through([&] { return real(path, argv); });
}

__attribute__((visibility("default"))) int execvp(const char* file, char* const argv[]) {
  static const auto real = next_symbol<ExecV>("execvp");
  return exec_through([&] { return real(file, argv); });
}

__attribute__((visibility("default"))) int execvpe(const char* file, char* const argv[],
                                                   char* const envp[]) {
  static const auto real = next_symbol<ExecVE>("execvpe");
  return exec_through([&] { return real(file, argv, envp); });
}

__attribute__((visibility("default"))) int fexecve(int fd, char* const argv[], char* const envp[]) {
  static const auto real = next_symbol<int (*)(int, char* const[], char* const[])>("fexecve");
  return exec_through([&] { return real(fd, argv, envp); });
}

__attribute__((visibility("default"))) int execl(const char* path, const char* arg, ...) {
  va_list args;
  va_start(args, arg);
  const int result = exec_listed(
      arg, args, false, [path](char* const* argv, char* const*) { return execv(path, argv); });
  va_end(args);
  return result;
}

__attribute__((visibility("default"))) int execlp(const char* file, const char* arg, ...) {
  va_list args;
  va_start(args, arg);
  const int result = exec_listed(
      arg, args, false, [file](char* const* argv, char* const*) { return execvp(file, argv); });
  va_end(args);
  return result;
}

__attribute__((visibility("default"))) int execle(const char* path, const char* arg, ...) {
  va_list args;
  va_start(args, arg);
  const int result = exec_listed(arg, args, true, [path](char* const* argv, char* const* envp) {
    return execve(path, argv, envp);
  });
  va_end(args);
  return result;
}

__attribute__((visibility("default"))) int InitializeInjection(void) {
  static std::once_flag once;
  static int result = 1;
  std::call_once(once, [] { result = start(); });
  return result;
}

}  // extern "C"
