// The routine the host copy threads move bytes with.
//
// Draining a staging buffer into the caller's pageable memory writes many megabytes that no
// cache will still hold when the caller reads them. Plain memcpy first reads each destination
// line into the cache (read for ownership), then writes it back: three passes over memory per
// byte copied. Non-temporal stores write whole lines straight to memory: two passes. On the
// H200 machine that took a pinned -> pageable copy from 21 to 50 GB/s with 8 threads
// (docs/methodology.md, "The staged copy engine"). The other direction keeps memcpy: the staging
// ring is small enough to stay in cache, where the copy engine reads it, and filling it with
// non-temporal stores made copies to the device slower (0.81 of pinned instead of 0.95 at 1 GiB).
#pragma once

#include <cstddef>

namespace pinbench::transfer {

// How a host copy thread writes its destination.
enum class Stores : unsigned char {
  kCached,     // memcpy: the lines stay in the writing core's caches
  kStreaming,  // non-temporal stores: whole lines straight to memory (copy_streaming)
  kDemoted,    // memcpy, then each written line is pushed out of the core's private caches into
               // the shared last-level cache (CLDEMOTE), where a device read finds it without
               // snooping the core (copy_demoting)
};

// Whether copy_streaming() uses non-temporal stores on this CPU (x86-64 with AVX2, detected
// when the program runs); elsewhere it is memcpy.
bool streaming_stores_available();

// memcpy(dst, src, bytes) for buffers that do not overlap, writing `dst` with non-temporal
// stores where the CPU has them. The stores are fenced before it returns, so the bytes are
// ordered before whatever the caller publishes next, as memcpy's are.
void copy_streaming(void* dst, const void* src, std::size_t bytes);

// Whether copy_demoting() issues CLDEMOTE on this CPU (CPUID leaf 7, detected when the program
// runs); elsewhere it is memcpy.
bool demote_available();

// memcpy(dst, src, bytes), then a CLDEMOTE for every line of `dst` written, piece by piece so
// the lines are still in the core's caches when they are demoted. A hint: the bytes are the
// same either way.
void copy_demoting(void* dst, const void* src, std::size_t bytes);

// The copy `stores` names.
void copy_with(Stores stores, void* dst, const void* src, std::size_t bytes);

}  // namespace pinbench::transfer
