// The routine the host copy threads move bytes with.
//
// Draining a staging buffer into the caller's pageable memory writes many megabytes that no
// cache will still hold when the caller reads them. Plain memcpy first reads each destination
// line into the cache (read for ownership), then writes it back: three passes over memory per
// byte copied. Non-temporal stores write whole lines straight to memory: two passes. On the
// H200 machine that took a pinned -> pageable copy from 21 to 50 GB/s with 8 threads
// (docs/methodology.md, "The staged copy engine"). The other direction fills the bulk of a copy
// with memcpy: the staging ring is small enough to stay in the shared cache, where the copy
// engine reads it, and filling all of it with non-temporal stores made copies to the device
// slower (0.81 of pinned instead of 0.95 at 1 GiB). Only a copy's edge chunks, which the copy
// engine reads before later fills have pushed them out of the filling cores' private caches, are
// filled with non-temporal stores (StagedCopyOptions::streaming_fill_edges).
#pragma once

#include <cstddef>

namespace pinbench::transfer {

// How a host copy thread writes its destination.
enum class Stores : unsigned char {
  kCached,     // memcpy: the lines stay in the writing core's caches for a while
  kStreaming,  // non-temporal stores: whole lines straight to memory (copy_streaming)
};

// Whether copy_streaming() uses non-temporal stores on this CPU (x86-64 with AVX2, detected
// when the program runs); elsewhere it is memcpy.
bool streaming_stores_available();

// memcpy(dst, src, bytes) for buffers that do not overlap, writing `dst` with non-temporal
// stores where the CPU has them. The stores are fenced before it returns, so the bytes are
// ordered before whatever the caller publishes next, as memcpy's are.
void copy_streaming(void* dst, const void* src, std::size_t bytes);

// The copy `stores` names.
void copy_with(Stores stores, void* dst, const void* src, std::size_t bytes);

}  // namespace pinbench::transfer
