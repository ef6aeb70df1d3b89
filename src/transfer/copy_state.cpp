// The shared progress record of one staged copy (copy_state.hpp): a mutex, a condition variable
// and a few fields. Waiters sleep; the engine's threads never wait on a waiter.
#include "transfer/copy_state.hpp"

#include <chrono>
#include <thread>

namespace pinbench::transfer {

void CopyState::add_delivered(std::size_t n) {
  std::lock_guard<std::mutex> lock(mutex_);
  delivered_ += n;
}

void CopyState::set_device_work_queued() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    device_queued_ = true;
    queued_flag_.store(true, std::memory_order_release);
  }
  changed_.notify_all();
}

void CopyState::fail(int code, const std::string& message) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (failed_) return;
  failed_ = true;
  code_ = code;
  message_ = message;
}

void CopyState::finish() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    finished_ = true;
    finished_flag_.store(true, std::memory_order_release);
  }
  changed_.notify_all();
}

void CopyState::wait_finished() const {
  constexpr std::chrono::microseconds kSpin{100};
  const auto until = std::chrono::steady_clock::now() + kSpin;
  for (int n = 0; !finished_flag_.load(std::memory_order_acquire); ++n) {
    if (n % 64 == 63 && std::chrono::steady_clock::now() > until) break;
    std::this_thread::yield();
  }
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return finished_; });
}

bool CopyState::device_work_queued() const {
  return queued_flag_.load(std::memory_order_acquire);
}

bool CopyState::finished() const {
  return finished_flag_.load(std::memory_order_acquire);
}

void CopyState::wait_device_work_queued() const {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return device_queued_ || finished_; });
}

bool CopyState::failed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return failed_;
}

int CopyState::code() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return code_;
}

std::string CopyState::message() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return message_;
}

std::size_t CopyState::delivered() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return delivered_;
}

}  // namespace pinbench::transfer
