// accel's routing decisions and the engines they use (router.hpp). The cheap checks come first
// (kind, size, shape), so a small copy costs a few comparisons and a counter before it reaches
// the runtime; the runtime is asked about the memory and the stream only for copies the engine
// could take.
#include "experiments/accel/interpose/router.hpp"

#include <algorithm>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <thread>
#include <utility>

namespace pinbench::experiments::accel {
namespace {

// A routed copy's failure that the runtime never saw, until the program's thread asks for it.
thread_local cudaError_t t_routed_error = cudaSuccess;

void add(Tally& t, std::size_t bytes, std::uint64_t ns) {
  __atomic_fetch_add(&t.copies, 1, __ATOMIC_RELAXED);
  __atomic_fetch_add(&t.bytes, static_cast<std::uint64_t>(bytes), __ATOMIC_RELAXED);
  __atomic_fetch_add(&t.host_ns, ns, __ATOMIC_RELAXED);
}

int size_bucket(std::size_t bytes) {
  int n = 0;
  while (n + 1 < kSizeBuckets && (bytes >> (n + 1)) != 0) ++n;
  return n;
}

bool is_default_stream(cudaStream_t s) {
  return s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread;
}

// The calls below may fail where the program's own would have too (an invalid stream); what
// they leave in the runtime's last error is not the program's, and none was pending.
void forget_error() {
  (void)cudaGetLastError();
}

bool capture_error(cudaError_t e) {
  return e == cudaErrorStreamCaptureUnsupported || e == cudaErrorStreamCaptureInvalidated ||
         e == cudaErrorStreamCaptureMerge || e == cudaErrorStreamCaptureUnmatched ||
         e == cudaErrorStreamCaptureUnjoined || e == cudaErrorStreamCaptureIsolation ||
         e == cudaErrorStreamCaptureImplicit || e == cudaErrorStreamCaptureWrongThread;
}

// Which way a copy between these two kinds of memory goes, for cudaMemcpyDefault.
Way infer_way(cudaMemoryType src, cudaMemoryType dst) {
  const auto host = [](cudaMemoryType t) {
    return t == cudaMemoryTypeUnregistered || t == cudaMemoryTypeHost;
  };
  if (host(src) && dst == cudaMemoryTypeDevice) return Way::kToDevice;
  if (src == cudaMemoryTypeDevice && host(dst)) return Way::kToHost;
  return Way::kOther;
}

}  // namespace

Router::Router(ProcessCounters* counters) : counters_(counters), options_() {}

std::size_t Router::threshold(Way way) const {
  return way == Way::kToHost ? options_.to_host.direct_below_bytes
                             : options_.to_device.direct_below_bytes;
}

Decision Router::decide(const CopyCall& c) {
  Decision d;
  d.way = c.kind == cudaMemcpyHostToDevice   ? Way::kToDevice
          : c.kind == cudaMemcpyDeviceToHost ? Way::kToHost
                                             : Way::kOther;
  const auto stop = [&d](Outcome o) {
    d.outcome = o;
    return d;
  };
  if (c.height != 0 && c.width > SIZE_MAX / c.height) return stop(Outcome::kStrided);
  d.bytes = c.width * c.height;
  if (d.way == Way::kOther && c.kind != cudaMemcpyDefault) return stop(Outcome::kNotHostDevice);
  if (forked_) return stop(Outcome::kForkedChild);
  const std::size_t least = d.way == Way::kOther
                                ? std::min(threshold(Way::kToDevice), threshold(Way::kToHost))
                                : threshold(d.way);
  if (d.bytes < least || d.bytes == 0) return stop(Outcome::kSmall);
  if (c.height > 1 && (c.dpitch != c.width || c.spitch != c.width)) {
    return stop(Outcome::kStrided);
  }
  if (cudaPeekAtLastError() != cudaSuccess) return stop(Outcome::kPendingError);

  cudaPointerAttributes src{}, dst{};
  if (cudaPointerGetAttributes(&src, c.src) != cudaSuccess ||
      cudaPointerGetAttributes(&dst, c.dst) != cudaSuccess) {
    forget_error();
    return stop(Outcome::kUnknownMemory);
  }
  if (d.way == Way::kOther) {
    d.way = infer_way(src.type, dst.type);
    if (d.way == Way::kOther) {
      const bool managed = src.type == cudaMemoryTypeManaged || dst.type == cudaMemoryTypeManaged;
      return stop(managed ? Outcome::kManaged : Outcome::kNotHostDevice);
    }
    if (d.bytes < threshold(d.way)) return stop(Outcome::kSmall);
  }
  const cudaPointerAttributes& host = d.way == Way::kToDevice ? src : dst;
  const cudaPointerAttributes& device = d.way == Way::kToDevice ? dst : src;
  if (host.type == cudaMemoryTypeManaged || device.type == cudaMemoryTypeManaged) {
    return stop(Outcome::kManaged);
  }
  if (device.type != cudaMemoryTypeDevice) return stop(Outcome::kNotHostDevice);
  if (host.type == cudaMemoryTypeHost) return stop(Outcome::kPageLocked);
  if (host.type != cudaMemoryTypeUnregistered) return stop(Outcome::kNotHostDevice);

  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (const cudaError_t e = cudaStreamIsCapturing(c.stream, &capture); e != cudaSuccess) {
    forget_error();
    return stop(capture_error(e) ? Outcome::kCapturing : Outcome::kEngineRefused);
  }
  if (capture != cudaStreamCaptureStatusNone) return stop(Outcome::kCapturing);
  d.device = device.device;
  if (is_default_stream(c.stream)) {
    int current = 0;
    if (cudaGetDevice(&current) != cudaSuccess) {
      forget_error();
      return stop(Outcome::kEngineRefused);
    }
    if (current != d.device) return stop(Outcome::kOtherDevice);
  }
  return d;
}

pinbench::StagedCopier* Router::engine(int device) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = engines_.find(device); it != engines_.end()) return it->second.get();
  if (refused_.count(device) != 0) return nullptr;
  pinbench::StagedCopyOptions o = options_;
  o.device = device;
  const auto t0 = std::chrono::steady_clock::now();
  const auto took = [&] {
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0)
            .count());
  };
  try {
    auto made = std::make_unique<pinbench::StagedCopier>(o);
    __atomic_fetch_add(&counters_->engine_setup_ns, took(), __ATOMIC_RELAXED);
    pinbench::StagedCopier* e = made.get();
    engines_.emplace(device, std::move(made));
    __atomic_fetch_add(&counters_->engines, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&counters_->staging_bytes, e->staging_bytes(), __ATOMIC_RELAXED);
    return e;
  } catch (const std::exception& x) {
    forget_error();
    refused_.emplace(device, x.what());
    if (counters_->note[0] == '\0') {
      std::strncpy(counters_->note, x.what(), sizeof counters_->note - 1);
    }
    return nullptr;
  }
}

Outcome Router::route(const CopyCall& c, const Decision& d, cudaError_t& result) {
  pinbench::StagedCopier* e = engine(d.device);
  if (e == nullptr) return Outcome::kEngineUnavailable;
  try {
    if (d.way == Way::kToHost) {
      e->copy_to_host(c.dst, c.src, d.bytes, c.stream);
    } else if (c.synchronous) {
      e->copy_to_device(c.dst, c.src, d.bytes, c.stream);
    } else {
      pinbench::StagedCopy copy = e->copy_to_device_ordered(c.dst, c.src, d.bytes, c.stream);
      if (!copy.done()) {
        std::lock_guard<std::mutex> lock(mutex_);
        in_flight_.erase(std::remove_if(in_flight_.begin(), in_flight_.end(),
                                        [](const pinbench::StagedCopy& k) { return k.done(); }),
                         in_flight_.end());
        in_flight_.push_back(std::move(copy));
      }
    }
    return Outcome::kRouted;
  } catch (const std::invalid_argument&) {
    // The engine checked before it did anything: the runtime answers the call itself.
    forget_error();
    return Outcome::kEngineRefused;
  } catch (const pinbench::StagedCopyError& x) {
    result = x.cuda_error() != cudaSuccess ? x.cuda_error() : cudaErrorUnknown;
  } catch (const std::bad_alloc&) {
    result = cudaErrorMemoryAllocation;
  } catch (const std::exception&) {
    result = cudaErrorUnknown;
  }
  // Through the runtime's entry points the failure is also the program's next
  // cudaGetLastError; through the driver's, the CUresult returned is all (a static runtime above
  // keeps it as its own last error, as it would the driver's).
  if (!c.driver) t_routed_error = result;
  return Outcome::kFailed;
}

void Router::count(const Decision& d, std::chrono::steady_clock::duration took) {
  ProcessCounters* c = __atomic_load_n(&counters_, __ATOMIC_ACQUIRE);
  const auto ns = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(took).count());
  add(c->by_outcome[static_cast<int>(d.way)][static_cast<int>(d.outcome)], d.bytes, ns);
  if (d.outcome == Outcome::kRouted && d.way != Way::kOther) {
    add(c->routed_by_size[static_cast<int>(d.way)][size_bucket(d.bytes)], d.bytes, ns);
  }
}

cudaError_t Router::last_error(cudaError_t from_runtime, bool reset) {
  const cudaError_t routed = t_routed_error;
  if (reset) t_routed_error = cudaSuccess;
  return from_runtime != cudaSuccess ? from_runtime : routed;
}

void Router::forked(ProcessCounters* fresh) {
  forked_ = true;
  __atomic_store_n(&counters_, fresh, __ATOMIC_RELEASE);
}

void Router::quiesce(std::chrono::milliseconds limit) {
  if (forked_) return;
  std::vector<pinbench::StagedCopy> copies;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    copies.swap(in_flight_);
  }
  const auto until = std::chrono::steady_clock::now() + limit;
  for (const pinbench::StagedCopy& k : copies) {
    while (!k.done() && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }
}

}  // namespace pinbench::experiments::accel
