// What `check` and `host` share: each GPU's host buffers placed on its NUMA node, and its link
// read while a copy keeps it busy (an idle GPU may train its link down to save power, so a link
// read at rest says nothing about the link a copy gets).
#pragma once

#include <cstdint>
#include <string>

#include "framework/record.hpp"
#include "cuda/buffers.hpp"
#include "cuda/stream.hpp"

namespace pinbench {

// A source holding the pattern for `seed` and a cleared destination, both of `kind`, allocated
// and first touched by this thread bound to the GPU's NUMA node's CPUs (when it has one and
// `place` is set), so first touch puts their pages there. `placement` says what happened.
struct HostPair {
  cuda::HostBuffer src, dst;
  std::string placement;
};
HostPair place_host_pair(const GpuInfo& gpu, std::size_t bytes, MemoryKind kind, std::uint64_t seed,
                         bool place);

// Reads the link of `gpu` while `copies` copies of `bytes` from `host` (pinned) to `device` run on
// `stream`, and waits for them. Sets gpu.pcie_loaded and gpu.loaded_read.
void read_link_under_load(GpuInfo& gpu, void* device, const void* host, std::size_t bytes,
                          int copies, const cuda::Stream& stream);

}  // namespace pinbench
