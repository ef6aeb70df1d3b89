// The C ABI of include/pinbench/pinbench_c.h: each function catches what the engine, the arena or
// the record reader throws and turns it into a status plus the thread's last message, so no C++
// exception crosses into a foreign caller (ctypes would abort on one).
#include "pinbench/pinbench_c.h"

#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>

#include <cuda_runtime_api.h>

#include "framework/by_experiment.hpp"
#include "framework/errors.hpp"
#include "framework/record.hpp"
#include "framework/record_rows.hpp"
#include "pinbench/block_copier.hpp"
#include "pinbench/pinned_arena.hpp"
#include "pinbench/staged_copy.hpp"
#include "version.hpp"

struct pinbench_copier {
  pinbench::StagedCopier engine;
  explicit pinbench_copier(const pinbench::StagedCopyOptions& o) : engine(o) {}
};

struct pinbench_block_copier {
  pinbench::BlockCopier copier;
  explicit pinbench_block_copier(const pinbench::BlockCopierOptions& o) : copier(o) {}
};

struct pinbench_copy {
  pinbench::StagedCopy copy;
};

struct pinbench_arena {
  pinbench::PinnedArena arena;
  int device;  // where it registers, for the destructor's wait
  pinbench_arena(std::size_t bytes, const pinbench::PinnedArenaOptions& o)
      : arena(bytes, o), device(o.device) {}
};

namespace {

struct LastError {
  std::string message;
  int cuda_error = 0;
  std::size_t bytes_done = 0;
};

thread_local LastError last;

// Errors that mean there is no GPU to use at all, rather than a GPU that failed.
bool no_gpu(cudaError_t e) {
  return e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver ||
         e == cudaErrorInitializationError || e == cudaErrorSystemDriverMismatch ||
         e == cudaErrorCompatNotSupportedOnDevice || e == cudaErrorDevicesUnavailable;
}

pinbench_status fail(pinbench_status status, const std::string& message, int cuda_error = 0,
                     std::size_t bytes_done = 0) {
  last.message = message;
  last.cuda_error = cuda_error;
  last.bytes_done = bytes_done;
  return status;
}

// Runs `f`, mapping every exception it may throw to a status.
template <typename F>
pinbench_status guarded(F&& f) noexcept {
  try {
    f();
    return PINBENCH_OK;
  } catch (const pinbench::StagedCopyError& e) {
    const cudaError_t err = e.cuda_error();
    return fail(no_gpu(err) ? PINBENCH_NO_GPU : PINBENCH_CUDA_ERROR, e.what(),
                static_cast<int>(err), e.bytes_done());
  } catch (const std::invalid_argument& e) {
    return fail(PINBENCH_INVALID_ARGUMENT, e.what());
  } catch (const pinbench::BlockCalibrationError& e) {
    return fail(PINBENCH_INPUT_ERROR, e.what());
  } catch (const pinbench::InputError& e) {
    return fail(PINBENCH_INPUT_ERROR, e.what());
  } catch (const std::bad_alloc&) {
    return fail(PINBENCH_INTERNAL_ERROR, "pinbench: out of host memory");
  } catch (const std::exception& e) {
    return fail(PINBENCH_INTERNAL_ERROR, e.what());
  } catch (...) {
    return fail(PINBENCH_INTERNAL_ERROR, "pinbench: an unknown error");
  }
}

// The arena's messages begin "pinned arena:"; across the ABI every message names pinbench first.
std::string prefixed(const char* what) {
  const std::string text = what;
  return text.rfind("pinbench", 0) == 0 ? text : "pinbench: " + text;
}

// Runs `f` for an arena function. A PinnedArenaError with CUDA's code is that code's status; one
// without it is the host's: from create, where it comes before anything is pinned (a size past a
// limit, named with its value, or a mapping refused), PINBENCH_INVALID_ARGUMENT, as a refused
// argument; later (the kernel could not fault a chunk in) PINBENCH_INTERNAL_ERROR. Everything
// else is mapped as guarded() maps it.
template <typename F>
pinbench_status arena_guarded(bool creating, F&& f) noexcept {
  try {
    f();
    return PINBENCH_OK;
  } catch (const pinbench::PinnedArenaError& e) {
    const cudaError_t err = e.cuda_error();
    if (err != cudaSuccess) {
      return fail(no_gpu(err) ? PINBENCH_NO_GPU : PINBENCH_CUDA_ERROR, prefixed(e.what()),
                  static_cast<int>(err));
    }
    return fail(creating ? PINBENCH_INVALID_ARGUMENT : PINBENCH_INTERNAL_ERROR, prefixed(e.what()));
  } catch (const std::invalid_argument& e) {
    return fail(PINBENCH_INVALID_ARGUMENT, prefixed(e.what()));
  } catch (...) {
    // Rethrown inside guarded(), which maps the rest (out of memory, threads not started).
    return guarded([] { throw; });
  }
}

pinbench_status null_argument(const char* function, const char* what) {
  return fail(PINBENCH_INVALID_ARGUMENT,
              std::string("pinbench: ") + function + ": " + what + " is null");
}

cudaStream_t as_stream(std::uintptr_t s) {
  return reinterpret_cast<cudaStream_t>(s);
}

pinbench::StagedCopyOptions to_options(const pinbench_options& o) {
  pinbench::StagedCopyOptions out;
  out.to_device = {o.h2d_chunk_bytes, o.h2d_depth, o.h2d_threads, o.h2d_direct_below_bytes};
  out.to_host = {o.d2h_chunk_bytes, o.d2h_depth, o.d2h_threads, o.d2h_direct_below_bytes};
  out.edge_chunk_bytes = o.edge_chunk_bytes;
  out.max_staging_bytes = o.max_staging_bytes;
  out.streaming_drain = o.streaming_drain != 0;
  out.caller_copies = o.caller_copies != 0;
  out.device = o.device;
  out.streaming_fill_edges = o.streaming_fill_edges != 0;
  out.caller_drives = o.caller_drives != 0;
  out.host_threads = o.host_threads;
  out.prefault_from_bytes = o.prefault_from_bytes;
  out.fresh_huge_pages = o.fresh_huge_pages != 0;
  return out;
}

char* copy_text(const std::string& s) {
  char* out = static_cast<char*>(std::malloc(s.size() + 1));
  if (out == nullptr) throw std::bad_alloc();
  std::memcpy(out, s.c_str(), s.size() + 1);
  return out;
}

template <typename Render>
pinbench_status record_text(const char* function, const char* path, char** json_out,
                            Render render) {
  if (json_out == nullptr) return null_argument(function, "json_out");
  *json_out = nullptr;
  if (path == nullptr) return null_argument(function, "path");
  return guarded([&] {
    const pinbench::RunRecord record = pinbench::load_record(path);
    // Invalid UTF-8 in a note would make dump() throw; replace it, as the CSV writer does.
    *json_out =
        copy_text(render(record).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  });
}

}  // namespace

extern "C" {

int pinbench_abi_version(void) {
  return PINBENCH_C_ABI_VERSION;
}

const char* pinbench_version(void) {
  return pinbench::kVersion;
}

const char* pinbench_last_error(void) {
  return last.message.c_str();
}

int pinbench_last_cuda_error(void) {
  return last.cuda_error;
}

size_t pinbench_last_bytes_done(void) {
  return last.bytes_done;
}

void pinbench_default_options(pinbench_options* out) {
  if (out == nullptr) return;
  const pinbench::StagedCopyOptions o;
  out->h2d_chunk_bytes = o.to_device.chunk_bytes;
  out->h2d_depth = o.to_device.depth;
  out->h2d_threads = o.to_device.threads;
  out->d2h_chunk_bytes = o.to_host.chunk_bytes;
  out->d2h_depth = o.to_host.depth;
  out->d2h_threads = o.to_host.threads;
  out->edge_chunk_bytes = o.edge_chunk_bytes;
  out->h2d_direct_below_bytes = o.to_device.direct_below_bytes;
  out->d2h_direct_below_bytes = o.to_host.direct_below_bytes;
  out->max_staging_bytes = o.max_staging_bytes;
  out->streaming_drain = o.streaming_drain ? 1 : 0;
  out->caller_copies = o.caller_copies ? 1 : 0;
  out->device = o.device;
  out->streaming_fill_edges = o.streaming_fill_edges ? 1 : 0;
  out->caller_drives = o.caller_drives ? 1 : 0;
  out->host_threads = o.host_threads;
  out->prefault_from_bytes = o.prefault_from_bytes;
  out->fresh_huge_pages = o.fresh_huge_pages ? 1 : 0;
}

pinbench_status pinbench_device_count(int* count) {
  if (count == nullptr) return null_argument("pinbench_device_count", "count");
  *count = 0;
  const cudaError_t err = cudaGetDeviceCount(count);
  if (err == cudaSuccess) return PINBENCH_OK;
  (void)cudaGetLastError();
  *count = 0;
  const std::string text = std::string("pinbench: no usable CUDA device: cudaGetDeviceCount: ") +
                           cudaGetErrorName(err) + ": " + cudaGetErrorString(err);
  if (no_gpu(err)) {
    fail(PINBENCH_NO_GPU, text, static_cast<int>(err));
    return PINBENCH_OK;
  }
  return fail(PINBENCH_CUDA_ERROR, text, static_cast<int>(err));
}

pinbench_status pinbench_pointer_device(const void* ptr, int* device) {
  if (device == nullptr) return null_argument("pinbench_pointer_device", "device");
  cudaPointerAttributes a{};
  const cudaError_t err = cudaPointerGetAttributes(&a, ptr);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return fail(no_gpu(err) ? PINBENCH_NO_GPU : PINBENCH_CUDA_ERROR,
                std::string("pinbench: cudaPointerGetAttributes: ") + cudaGetErrorName(err) + ": " +
                    cudaGetErrorString(err),
                static_cast<int>(err));
  }
  switch (a.type) {
    case cudaMemoryTypeDevice:
      *device = a.device;
      break;
    case cudaMemoryTypeManaged:
      *device = -2;
      break;
    default:
      *device = -1;
  }
  return PINBENCH_OK;
}

pinbench_status pinbench_copier_create(const pinbench_options* options, pinbench_copier** out) {
  if (out == nullptr) return null_argument("pinbench_copier_create", "out");
  *out = nullptr;
  pinbench_options o;
  pinbench_default_options(&o);
  if (options != nullptr) o = *options;
  return guarded([&] { *out = new pinbench_copier(to_options(o)); });
}

void pinbench_copier_destroy(pinbench_copier* copier) {
  // The destructor completes submitted copies; a failure there has no one to report to.
  try {
    delete copier;
  } catch (...) {
  }
}

pinbench_status pinbench_copier_device(const pinbench_copier* copier, int* device) {
  if (copier == nullptr) return null_argument("pinbench_copier_device", "copier");
  if (device == nullptr) return null_argument("pinbench_copier_device", "device");
  *device = copier->engine.device();
  return PINBENCH_OK;
}

pinbench_status pinbench_copier_staging_bytes(const pinbench_copier* copier, size_t* bytes) {
  if (copier == nullptr) return null_argument("pinbench_copier_staging_bytes", "copier");
  if (bytes == nullptr) return null_argument("pinbench_copier_staging_bytes", "bytes");
  *bytes = copier->engine.staging_bytes();
  return PINBENCH_OK;
}

pinbench_status pinbench_copy_to_device(pinbench_copier* copier, void* dst, const void* src,
                                        size_t bytes, uintptr_t stream) {
  if (copier == nullptr) return null_argument("pinbench_copy_to_device", "copier");
  return guarded([&] { copier->engine.copy_to_device(dst, src, bytes, as_stream(stream)); });
}

pinbench_status pinbench_copy_to_host(pinbench_copier* copier, void* dst, const void* src,
                                      size_t bytes, uintptr_t stream) {
  if (copier == nullptr) return null_argument("pinbench_copy_to_host", "copier");
  return guarded([&] { copier->engine.copy_to_host(dst, src, bytes, as_stream(stream)); });
}

pinbench_status pinbench_copy_to_device_async(pinbench_copier* copier, void* dst, const void* src,
                                              size_t bytes, uintptr_t stream, pinbench_copy** out) {
  if (out == nullptr) return null_argument("pinbench_copy_to_device_async", "out");
  *out = nullptr;
  if (copier == nullptr) return null_argument("pinbench_copy_to_device_async", "copier");
  return guarded([&] {
    *out =
        new pinbench_copy{copier->engine.copy_to_device_async(dst, src, bytes, as_stream(stream))};
  });
}

pinbench_status pinbench_copy_to_host_async(pinbench_copier* copier, void* dst, const void* src,
                                            size_t bytes, uintptr_t stream, pinbench_copy** out) {
  if (out == nullptr) return null_argument("pinbench_copy_to_host_async", "out");
  *out = nullptr;
  if (copier == nullptr) return null_argument("pinbench_copy_to_host_async", "copier");
  return guarded([&] {
    *out = new pinbench_copy{copier->engine.copy_to_host_async(dst, src, bytes, as_stream(stream))};
  });
}

pinbench_status pinbench_copy_wait(const pinbench_copy* copy) {
  if (copy == nullptr) return null_argument("pinbench_copy_wait", "copy");
  return guarded([&] { copy->copy.wait(); });
}

pinbench_status pinbench_copy_stream_wait(const pinbench_copy* copy, uintptr_t stream) {
  if (copy == nullptr) return null_argument("pinbench_copy_stream_wait", "copy");
  return guarded([&] { copy->copy.stream_wait(as_stream(stream)); });
}

pinbench_status pinbench_copy_done(const pinbench_copy* copy, int* done) {
  if (copy == nullptr) return null_argument("pinbench_copy_done", "copy");
  if (done == nullptr) return null_argument("pinbench_copy_done", "done");
  *done = copy->copy.done() ? 1 : 0;
  return PINBENCH_OK;
}

pinbench_status pinbench_copy_staged(const pinbench_copy* copy, int* staged) {
  if (copy == nullptr) return null_argument("pinbench_copy_staged", "copy");
  if (staged == nullptr) return null_argument("pinbench_copy_staged", "staged");
  *staged = copy->copy.staged() ? 1 : 0;
  return PINBENCH_OK;
}

void pinbench_copy_free(pinbench_copy* copy) {
  delete copy;
}

pinbench_status pinbench_record_rows(const char* path, char** json_out) {
  return record_text("pinbench_record_rows", path, json_out,
                     [](const pinbench::RunRecord& r) { return pinbench::record_rows(r); });
}

pinbench_status pinbench_record_json(const char* path, char** json_out) {
  return record_text("pinbench_record_json", path, json_out,
                     [](const pinbench::RunRecord& r) { return pinbench::to_json(r); });
}

void pinbench_free(char* text) {
  std::free(text);
}

void pinbench_block_default_options(pinbench_block_options* out) {
  if (out == nullptr) return;
  *out = pinbench_block_options{};
  out->device = -1;
  out->use_cache = 1;
  out->max_slowdown_pct = -1.0;
}

pinbench_status pinbench_block_copier_create(const pinbench_block_options* options,
                                             pinbench_block_copier** out) {
  if (out == nullptr) return null_argument("pinbench_block_copier_create", "out");
  *out = nullptr;
  pinbench_block_options o;
  pinbench_block_default_options(&o);
  if (options != nullptr) o = *options;
  return guarded([&] {
    pinbench::BlockCopierOptions b;
    b.device = o.device;
    if (o.rules_file != nullptr) b.rules_file = o.rules_file;
    if (o.cache_dir != nullptr) b.cache_dir = o.cache_dir;
    b.use_cache = o.use_cache != 0;
    // Below 0 is "no budget" (pinbench_c.h); anything else, NaN included, is the copier's to
    // refuse.
    if (!(o.max_slowdown_pct < 0)) b.max_slowdown_pct = o.max_slowdown_pct;
    b.kernel_sms = o.kernel_sms;
    *out = new pinbench_block_copier(b);
  });
}

void pinbench_block_copier_destroy(pinbench_block_copier* copier) {
  try {
    delete copier;
  } catch (...) {
  }
}

pinbench_status pinbench_block_copier_calibrate(pinbench_block_copier* copier) {
  if (copier == nullptr) return null_argument("pinbench_block_copier_calibrate", "copier");
  return guarded([&] { copier->copier.calibrate(); });
}

pinbench_status pinbench_block_copy(pinbench_block_copier* copier, int direction, void* host_arena,
                                    void* device_arena, const pinbench_block* blocks, size_t count,
                                    uintptr_t stream, int method) {
  static_assert(sizeof(pinbench_block) == sizeof(pinbench::StagedBlock),
                "pinbench_block is StagedBlock");
  if (copier == nullptr) return null_argument("pinbench_block_copy", "copier");
  if (direction != 0 && direction != 1) {
    return fail(PINBENCH_INVALID_ARGUMENT, "pinbench: pinbench_block_copy: direction is " +
                                               std::to_string(direction) +
                                               ", not 0 (to the device) or 1 (to the host)");
  }
  if (method < -1 || method >= pinbench::kBlockMethods) {
    return fail(PINBENCH_INVALID_ARGUMENT, "pinbench: pinbench_block_copy: method " +
                                               std::to_string(method) + " is not -1 to 4");
  }
  const auto d =
      direction == 0 ? pinbench::BlockDirection::kToDevice : pinbench::BlockDirection::kToHost;
  const auto* b = reinterpret_cast<const pinbench::StagedBlock*>(blocks);
  return guarded([&] {
    if (method < 0) {
      copier->copier.copy(d, host_arena, device_arena, b, count, as_stream(stream));
    } else {
      copier->copier.copy_with(static_cast<pinbench::BlockMethod>(method), d, host_arena,
                               device_arena, b, count, as_stream(stream));
    }
  });
}

pinbench_status pinbench_block_copier_stats(const pinbench_block_copier* copier, char** json_out) {
  if (json_out == nullptr) return null_argument("pinbench_block_copier_stats", "json_out");
  *json_out = nullptr;
  if (copier == nullptr) return null_argument("pinbench_block_copier_stats", "copier");
  return guarded([&] {
    const pinbench::BlockCopierStats s = copier->copier.stats();
    nlohmann::json j = {{"source", s.source},
                        {"source_path", s.source_path},
                        {"source_note", s.source_note},
                        {"calibration_s", s.calibration_s},
                        {"calls", s.calls},
                        {"blocks", s.blocks},
                        {"bytes", s.bytes}};
    nlohmann::json by = nlohmann::json::object();
    for (int i = 0; i < pinbench::kBlockMethods; ++i) {
      by[pinbench::to_string(static_cast<pinbench::BlockMethod>(i))] = s.calls_by_method[i];
    }
    j["calls_by_method"] = by;
    if (s.last_shape) {
      j["last_shape"] = {{"direction", pinbench::to_string(s.last_shape->direction)},
                         {"memory", pinbench::to_string(s.last_shape->memory)},
                         {"block_bytes", s.last_shape->block_bytes},
                         {"count", s.last_shape->count}};
    }
    if (s.last) {
      j["last"] = {{"method", pinbench::to_string(s.last->method)},
                   {"reason", s.last->reason},
                   {"budget_applied", s.last->budget_applied}};
      if (s.last->predicted_gb_per_s) j["last"]["predicted_gb_per_s"] = *s.last->predicted_gb_per_s;
    }
    *json_out = copy_text(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  });
}

pinbench_status pinbench_arena_create(size_t bytes, size_t chunk_bytes, unsigned threads,
                                      unsigned flags, int device, pinbench_arena** out) {
  if (out == nullptr) return null_argument("pinbench_arena_create", "out");
  *out = nullptr;
  constexpr unsigned kKnown = PINBENCH_ARENA_NO_HUGE_PAGES | PINBENCH_ARENA_PORTABLE;
  if ((flags & ~kKnown) != 0) {
    return fail(PINBENCH_INVALID_ARGUMENT,
                "pinbench: pinbench_arena_create: flags " + std::to_string(flags) +
                    " hold bits other than " +
                    "PINBENCH_ARENA_NO_HUGE_PAGES and PINBENCH_ARENA_PORTABLE");
  }
  if (device < -1) {
    return fail(PINBENCH_INVALID_ARGUMENT, "pinbench: pinbench_arena_create: device is " +
                                               std::to_string(device) +
                                               ", neither -1 (the current one) nor an ordinal");
  }
  return arena_guarded(true, [&] {
    pinbench::PinnedArenaOptions o;
    o.chunk_bytes = chunk_bytes;
    o.threads = threads;
    o.huge_pages = (flags & PINBENCH_ARENA_NO_HUGE_PAGES) == 0;
    o.portable = (flags & PINBENCH_ARENA_PORTABLE) != 0;
    o.device = device;
    auto* a = new pinbench_arena(bytes, o);
    // The constructor found the current device with this same call.
    if (a->device < 0 && cudaGetDevice(&a->device) != cudaSuccess) {
      (void)cudaGetLastError();
      a->device = -1;
    }
    *out = a;
  });
}

void pinbench_arena_destroy(pinbench_arena* arena) {
  if (arena == nullptr) return;
  // A copy still queued would read or write memory about to be unregistered and unmapped: wait
  // for the device first (the arena's own destructor leaves that to its caller). Failures have
  // no one to report to; without a device there is nothing to wait for.
  int current = -1;
  if (arena->device >= 0 && cudaGetDevice(&current) == cudaSuccess) {
    if (cudaSetDevice(arena->device) == cudaSuccess) (void)cudaDeviceSynchronize();
    (void)cudaSetDevice(current);
  }
  (void)cudaGetLastError();
  try {
    delete arena;
  } catch (...) {
  }
}

pinbench_status pinbench_arena_data(const pinbench_arena* arena, void** data) {
  if (arena == nullptr) return null_argument("pinbench_arena_data", "arena");
  if (data == nullptr) return null_argument("pinbench_arena_data", "data");
  *data = arena->arena.data();
  return PINBENCH_OK;
}

pinbench_status pinbench_arena_size(const pinbench_arena* arena, size_t* bytes) {
  if (arena == nullptr) return null_argument("pinbench_arena_size", "arena");
  if (bytes == nullptr) return null_argument("pinbench_arena_size", "bytes");
  *bytes = arena->arena.size();
  return PINBENCH_OK;
}

pinbench_status pinbench_arena_device(const pinbench_arena* arena, int* device) {
  if (arena == nullptr) return null_argument("pinbench_arena_device", "arena");
  if (device == nullptr) return null_argument("pinbench_arena_device", "device");
  *device = arena->device;
  return PINBENCH_OK;
}

pinbench_status pinbench_arena_chunk_bytes(const pinbench_arena* arena, size_t* bytes) {
  if (arena == nullptr) return null_argument("pinbench_arena_chunk_bytes", "arena");
  if (bytes == nullptr) return null_argument("pinbench_arena_chunk_bytes", "bytes");
  *bytes = arena->arena.chunk_bytes();
  return PINBENCH_OK;
}

pinbench_status pinbench_arena_ready(const pinbench_arena* arena, size_t offset, size_t bytes,
                                     int* ready) {
  if (arena == nullptr) return null_argument("pinbench_arena_ready", "arena");
  if (ready == nullptr) return null_argument("pinbench_arena_ready", "ready");
  *ready = 0;
  return arena_guarded(false, [&] { *ready = arena->arena.ready(offset, bytes) ? 1 : 0; });
}

pinbench_status pinbench_arena_wait(const pinbench_arena* arena, size_t offset, size_t bytes) {
  if (arena == nullptr) return null_argument("pinbench_arena_wait", "arena");
  return arena_guarded(false, [&] { arena->arena.wait(offset, bytes); });
}

pinbench_status pinbench_arena_piece_bytes(const pinbench_arena* arena, size_t offset, size_t bytes,
                                           size_t* piece) {
  if (arena == nullptr) return null_argument("pinbench_arena_piece_bytes", "arena");
  if (piece == nullptr) return null_argument("pinbench_arena_piece_bytes", "piece");
  *piece = 0;
  return arena_guarded(false, [&] { *piece = arena->arena.piece_bytes(offset, bytes); });
}

pinbench_status pinbench_arena_copy_to_device(const pinbench_arena* arena, void* device_dst,
                                              size_t offset, size_t bytes, uintptr_t stream) {
  if (arena == nullptr) return null_argument("pinbench_arena_copy_to_device", "arena");
  return arena_guarded(
      false, [&] { arena->arena.copy_to_device(device_dst, offset, bytes, as_stream(stream)); });
}

pinbench_status pinbench_arena_copy_from_device(const pinbench_arena* arena, size_t offset,
                                                const void* device_src, size_t bytes,
                                                uintptr_t stream) {
  if (arena == nullptr) return null_argument("pinbench_arena_copy_from_device", "arena");
  return arena_guarded(
      false, [&] { arena->arena.copy_from_device(offset, device_src, bytes, as_stream(stream)); });
}

pinbench_status pinbench_arena_get_stats(const pinbench_arena* arena, pinbench_arena_stats* out) {
  if (arena == nullptr) return null_argument("pinbench_arena_get_stats", "arena");
  if (out == nullptr) return null_argument("pinbench_arena_get_stats", "out");
  return arena_guarded(false, [&] {
    const pinbench::PinnedArenaStats s = arena->arena.stats();
    *out = pinbench_arena_stats{s.bytes,         s.chunk_bytes,    s.chunks,    s.threads,
                                s.chunks_pinned, s.first_chunk_ms, s.pinned_ms, s.longest_call_ms};
  });
}

}  // extern "C"
