// Owning, move-only CUDA streams and events, and a cheap non-owning stream view.
#pragma once

#include <cuda_runtime_api.h>

namespace pinbench::cuda {

class StreamView {
 public:
  constexpr StreamView() = default;  // the legacy default stream
  constexpr explicit StreamView(cudaStream_t s) : stream_(s) {}
  cudaStream_t get() const { return stream_; }
  void synchronize() const;

 private:
  cudaStream_t stream_ = nullptr;
};

class Stream {
 public:
  // cudaStreamNonBlocking: the stream does not synchronise with the legacy default stream.
  explicit Stream(unsigned flags = cudaStreamNonBlocking);
  ~Stream();
  Stream(Stream&& other) noexcept;
  Stream& operator=(Stream&& other) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  cudaStream_t get() const { return stream_; }
  StreamView view() const { return StreamView(stream_); }
  void synchronize() const { view().synchronize(); }

 private:
  cudaStream_t stream_ = nullptr;
};

class Event {
 public:
  Event();  // default flags: timing enabled
  ~Event();
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  cudaEvent_t get() const { return event_; }
  void record(StreamView stream = StreamView());
  void synchronize() const;

  // Milliseconds from `start` to `stop`; both must have completed.
  static float elapsed_ms(const Event& start, const Event& stop);

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace pinbench::cuda
