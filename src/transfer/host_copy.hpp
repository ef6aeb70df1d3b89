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

// Whether copy_streaming() uses non-temporal stores on this CPU (x86-64 with AVX2, detected
// when the program runs); elsewhere it is memcpy.
bool streaming_stores_available();

// memcpy(dst, src, bytes) for buffers that do not overlap, writing `dst` with non-temporal
// stores where the CPU has them. The stores are fenced before it returns, so the bytes are
// ordered before whatever the caller publishes next, as memcpy's are.
void copy_streaming(void* dst, const void* src, std::size_t bytes);

}  // namespace pinbench::transfer
