// What one staged copy's owner and the engine share: how many bytes have arrived, the first
// failure, whether every device operation of the copy is queued, and whether the copy is
// finished. No CUDA here: the lane (lane.hpp) that fills it in is CUDA-free so it can be tested
// with a simulated device.
//
// "Finished" means no part of the engine will touch the copy's memory again, whether the copy
// succeeded or failed. A failure is only reported once the copy is finished, so a caller who
// sees an error may free the buffers at once.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <stdexcept>
#include <string>

namespace pinbench::transfer {

// A failure inside the engine. `code` is the CUDA error number, or 0 when CUDA did not fail.
class TransferFailure : public std::runtime_error {
 public:
  TransferFailure(int code, const std::string& what) : std::runtime_error(what), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

class CopyState {
 public:
  explicit CopyState(std::size_t bytes) : bytes_(bytes) {}
  CopyState(const CopyState&) = delete;
  CopyState& operator=(const CopyState&) = delete;

  std::size_t bytes() const { return bytes_; }

  // --- the engine's side ---
  void add_delivered(std::size_t n);  // the next n bytes of the destination hold the copy
  void set_device_work_queued();
  void fail(int code, const std::string& message);  // the first failure is kept
  void finish();

  // --- the owner's side; any thread ---
  // Both waits spin briefly (pausing, no system call) before they sleep: a copy that ends within
  // microseconds is common, and waking a sleeping thread takes tens of them.
  void wait_finished() const;
  bool finished() const;
  bool device_work_queued() const;  // never blocks
  // Until every device operation is queued, or the copy finished (check failed() then).
  void wait_device_work_queued() const;
  bool failed() const;
  int code() const;
  std::string message() const;
  std::size_t delivered() const;  // the length of the destination's prefix known to be copied

 private:
  const std::size_t bytes_;
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::size_t delivered_ = 0;
  bool device_queued_ = false;
  bool finished_ = false;
  std::atomic<bool> finished_flag_{false};  // finished_, readable without the mutex
  std::atomic<bool> queued_flag_{false};    // device_queued_, likewise
  bool failed_ = false;
  int code_ = 0;
  std::string message_;
};

}  // namespace pinbench::transfer
