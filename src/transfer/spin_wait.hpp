// How the staged engine's threads wait: a short spin that never leaves user space, then a sleep
// that whoever ends the wait cuts short. Shared by the host copy pool, the lane's coordinator
// and the copies' waiters, so the three wait the same way.
//
// A spin polls with the CPU's pause instruction between looks (cpu_relax), not with
// std::this_thread::yield(): yield is a system call, and on the H200 machine's VM the engine's
// yield loops made 46-59% of its CPU time system time and up to 660,000 context switches a
// second. A pause costs tens of nanoseconds, keeps the thread on its CPU, and tells a
// hyperthread sibling it may have the core. The spin is bounded in time, so a thread whose wait
// runs long goes to sleep and costs nothing.
//
// A Doorbell is the sleep: one atomic word counts rings, another counts sleepers. Ringing is an
// atomic increment, and a system call only when someone sleeps; so the hot paths (a worker
// finishing a task, a copy being submitted) pay nothing while the thread they would wake is
// awake anyway.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

#if defined(__linux__)
#include <sys/prctl.h>
#endif

namespace pinbench::transfer {

// One pause of the spinning CPU: x86's PAUSE, AArch64's YIELD hint (an instruction, not the
// system call); nothing elsewhere.
inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  asm volatile("yield" ::: "memory");
#endif
}

// Polls `ready` with a pause between looks until it holds or `bound` has passed; returns its last
// answer. The clock is read once per 16 looks: a read costs more than a pause, and on a VM whose
// clock source has no vDSO path it is a system call.
template <class Ready>
bool spin_until(Ready&& ready, std::chrono::nanoseconds bound) {
  if (ready()) return true;
  const auto until = std::chrono::steady_clock::now() + bound;
  for (unsigned n = 1;; ++n) {
    cpu_relax();
    if (ready()) return true;
    if (n % 16 == 0 && std::chrono::steady_clock::now() >= until) return false;
  }
}

// A sleep that any thread can end early, with no system call when nobody sleeps. The sleeper
// reads rings() before it looks for work, then sleeps only while no ring came after that read:
// a ring between the look and the sleep ends the sleep at once, so no wake-up is lost.
class Doorbell {
 public:
  std::uint64_t rings() const { return rings_.load(std::memory_order_seq_cst); }

  // Any thread. Pairs with sleep(): the ring is counted before the sleepers are read, and a
  // sleeper is counted before it reads the rings, so either it sees this ring or this thread
  // sees it (all four accesses are sequentially consistent).
  void ring() {
    rings_.fetch_add(1, std::memory_order_seq_cst);
    if (sleepers_.load(std::memory_order_seq_cst) == 0) return;
    // Taking the mutex once the sleeper counted itself means it is inside wait by now (it holds
    // the mutex from counting itself until wait releases it), so the notification reaches it.
    { const std::lock_guard<std::mutex> lock(mutex_); }
    changed_.notify_all();
  }

  // Sleeps until a ring after `seen` (a value of rings()), `done()` holds, or `timeout` passes.
  // `done` is read under the mutex; whatever makes it true must ring afterwards.
  template <class Done>
  void sleep(std::uint64_t seen, std::chrono::nanoseconds timeout, Done&& done) {
    std::unique_lock<std::mutex> lock(mutex_);
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
    const auto woken = [&] { return rings_.load(std::memory_order_seq_cst) != seen || done(); };
    if (timeout == std::chrono::nanoseconds::max()) {
      changed_.wait(lock, woken);
    } else {
      changed_.wait_for(lock, timeout, woken);
    }
    sleepers_.fetch_sub(1, std::memory_order_seq_cst);
  }

 private:
  std::atomic<std::uint64_t> rings_{0};
  std::atomic<int> sleepers_{0};
  std::mutex mutex_;
  std::condition_variable changed_;
};

// For each of the engine's own threads, once at its start: timed sleeps end within about a
// microsecond of their deadline. Linux's default timer slack lets a 25 us sleep last 75 us; the
// coordinator's naps between polls of the device would be three times as long as asked.
inline void use_short_timer_slack() noexcept {
#if defined(__linux__)
  (void)prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);  // nanoseconds
#endif
}

}  // namespace pinbench::transfer
