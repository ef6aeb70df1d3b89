// The shared progress record of one staged copy (copy_state.hpp): a mutex, a condition variable
// and a few fields. Waiters spin briefly on the flags (pausing, no system call), then sleep; the
// engine's threads never wait on a waiter.
#include "transfer/copy_state.hpp"

#include <chrono>

#include "transfer/spin_wait.hpp"

namespace pinbench::transfer {
namespace {

// How long a waiter watches the flag before it sleeps: a copy that ends within microseconds is
// common (a synchronous caller arrives here at its copy's very end), and a sleeping thread takes
// tens of microseconds to wake. Longer waits sleep; the engine notifies on every change.
constexpr std::chrono::microseconds kWaitSpin{100};

}  // namespace

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
  if (spin_until([&] { return finished_flag_.load(std::memory_order_acquire); }, kWaitSpin)) return;
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
  const auto done = [&] {
    return queued_flag_.load(std::memory_order_acquire) ||
           finished_flag_.load(std::memory_order_acquire);
  };
  if (spin_until(done, kWaitSpin)) return;
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
