#include "cuda/stream.hpp"

#include <utility>

#include "cuda/check.hpp"

namespace pinbench::cuda {

void StreamView::synchronize() const {
  PINBENCH_CUDA_TRY(cudaStreamSynchronize(stream_));
}

Stream::Stream(unsigned flags) {
  PINBENCH_CUDA_TRY(cudaStreamCreateWithFlags(&stream_, flags));
}

Stream::~Stream() {
  if (stream_ != nullptr) PINBENCH_CUDA_TRY_NOTHROW(cudaStreamDestroy(stream_));
}

Stream::Stream(Stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}

Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    if (stream_ != nullptr) PINBENCH_CUDA_TRY_NOTHROW(cudaStreamDestroy(stream_));
    stream_ = std::exchange(other.stream_, nullptr);
  }
  return *this;
}

Event::Event() {
  PINBENCH_CUDA_TRY(cudaEventCreate(&event_));
}

Event::~Event() {
  if (event_ != nullptr) PINBENCH_CUDA_TRY_NOTHROW(cudaEventDestroy(event_));
}

Event::Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    if (event_ != nullptr) PINBENCH_CUDA_TRY_NOTHROW(cudaEventDestroy(event_));
    event_ = std::exchange(other.event_, nullptr);
  }
  return *this;
}

void Event::record(StreamView stream) {
  PINBENCH_CUDA_TRY(cudaEventRecord(event_, stream.get()));
}

void Event::synchronize() const {
  PINBENCH_CUDA_TRY(cudaEventSynchronize(event_));
}

float Event::elapsed_ms(const Event& start, const Event& stop) {
  float ms = 0.0f;
  PINBENCH_CUDA_TRY(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return ms;
}

}  // namespace pinbench::cuda
