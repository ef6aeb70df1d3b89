#include "cli/engine_flags.hpp"

#include <fmt/format.h>

#include "cli/defaults.hpp"
#include "cli/numbers.hpp"
#include "framework/errors.hpp"
#include "framework/units.hpp"

namespace pinbench::cli {
namespace {

std::string size_or_zero_default(std::size_t bytes) {
  return bytes == 0 ? "0" : size_default(bytes);
}

std::uint64_t size_or_zero(const std::string& flag, const std::string& text) {
  try {
    return parse_size_or_zero(text);
  } catch (const InputError& e) {
    throw InputError(flagged(flag, e.what()));
  }
}

}  // namespace

EngineFlags::EngineFlags() {
  const StagedCopyOptions o;
  h2d_chunk = size_default(o.to_device.chunk_bytes);
  h2d_depth = o.to_device.depth;
  h2d_threads = o.to_device.threads;
  d2h_chunk = size_default(o.to_host.chunk_bytes);
  d2h_depth = o.to_host.depth;
  d2h_threads = o.to_host.threads;
  edge_chunk = size_default(o.edge_chunk_bytes);
  h2d_direct_below = size_or_zero_default(o.to_device.direct_below_bytes);
  d2h_direct_below = size_or_zero_default(o.to_host.direct_below_bytes);
  max_staging = size_default(o.max_staging_bytes);
  no_streaming_drain = !o.streaming_drain;
  no_streaming_fill_edges = !o.streaming_fill_edges;
  no_caller_copies = !o.caller_copies;
  no_caller_drives = !o.caller_drives;
  host_threads = o.host_threads;
  prefault_from = size_or_zero_default(o.prefault_from_bytes);
  no_huge_pages = !o.fresh_huge_pages;
}

RingOptions add_engine_flags(CLI::App* sub, EngineFlags& f) {
  // Each read by the one number reader (cli/numbers.hpp) while the command line is: a size by
  // parse_size (0 allowed where the flag says so), a count within the engine's own bounds.
  const auto size = [sub](const char* flag, std::string& value, const std::string& help) {
    return read_by(sub->add_option(flag, value, help), [](const std::string& v) { parse_size(v); })
        ->capture_default_str()
        ->type_name("SIZE");
  };
  const auto size_or_zero_flag = [sub](const char* flag, std::string& value,
                                       const std::string& help) {
    return read_by(sub->add_option(flag, value, help),
                   [](const std::string& v) { parse_size_or_zero(v); })
        ->capture_default_str()
        ->type_name("SIZE");
  };
  const auto count = [sub](const char* flag, int& value, const std::string& help, int min,
                           int max) {
    return whole<int>(sub->add_option(flag, value, help)->capture_default_str(), min, max)
        ->type_name("N");
  };
  RingOptions ring;
  ring.all = {size("--h2d-chunk", f.h2d_chunk, "Engine: staging buffer size, host to device"),
              count("--h2d-depth", f.h2d_depth, "Engine: staging buffers, host to device",
                    kMinRingDepth, kMaxRingDepth),
              count("--h2d-threads", f.h2d_threads, "Engine: host copy threads, host to device", 1,
                    kMaxHostThreads),
              size("--d2h-chunk", f.d2h_chunk, "Engine: staging buffer size, device to host"),
              count("--d2h-depth", f.d2h_depth, "Engine: staging buffers, device to host",
                    kMinRingDepth, kMaxRingDepth),
              count("--d2h-threads", f.d2h_threads, "Engine: host copy threads, device to host", 1,
                    kMaxHostThreads)};
  size("--edge-chunk", f.edge_chunk,
       "Engine: a copy's first chunk, doubling up to the buffer size; its last chunks halve back "
       "down to it");
  size_or_zero_flag("--h2d-direct-below", f.h2d_direct_below,
                    "Engine: copies to the device smaller than this go straight to "
                    "cudaMemcpyAsync (0: none)");
  size_or_zero_flag("--d2h-direct-below", f.d2h_direct_below,
                    "Engine: copies to the host smaller than this go straight to cudaMemcpyAsync "
                    "(0: none)");
  ring.all.push_back(size("--max-staging", f.max_staging,
                          "Engine: refuse ring settings that would pin more than this"));
  sub->add_flag("--no-streaming-drain", f.no_streaming_drain,
                "Engine: drain to pageable memory with memcpy instead of non-temporal stores "
                "(used on x86-64 with AVX2)");
  sub->add_flag("--no-streaming-fill-edges", f.no_streaming_fill_edges,
                "Engine: fill a copy's first and last chunks to the device with memcpy instead of "
                "non-temporal stores (used on x86-64 with AVX2)");
  sub->add_flag("--no-caller-copies", f.no_caller_copies,
                "Engine: the thread of a synchronous copy only waits, instead of copying slices "
                "alongside the host threads");
  sub->add_flag("--no-caller-drives", f.no_caller_drives,
                "Engine: the thread of a synchronous copy copies slices but leaves queuing the "
                "DMA and seeing it end to the lane's coordinator thread");
  // 1024: the engine's own bound on its shared host threads (staged_options_problem).
  count("--host-threads", f.host_threads,
        "Engine: host copy threads shared by both directions (0: the CPUs this process may use, "
        "less three; never more than that)",
        0, 1024);
  size_or_zero_flag("--prefault-from", f.prefault_from,
                    "Engine: copies to the host from this size into memory never written before "
                    "have its pages faulted in by the host threads during the DMA (0: never)");
  sub->add_flag("--no-huge-pages", f.no_huge_pages,
                "Engine: do not ask for transparent huge pages on such a destination");
  return ring;
}

StagedCopyOptions engine_options(const EngineFlags& f) {
  StagedCopyOptions o;
  o.to_device = {static_cast<std::size_t>(parse_size_of("--h2d-chunk", f.h2d_chunk)), f.h2d_depth,
                 f.h2d_threads,
                 static_cast<std::size_t>(size_or_zero("--h2d-direct-below", f.h2d_direct_below))};
  o.to_host = {static_cast<std::size_t>(parse_size_of("--d2h-chunk", f.d2h_chunk)), f.d2h_depth,
               f.d2h_threads,
               static_cast<std::size_t>(size_or_zero("--d2h-direct-below", f.d2h_direct_below))};
  o.edge_chunk_bytes = static_cast<std::size_t>(parse_size_of("--edge-chunk", f.edge_chunk));
  o.max_staging_bytes = static_cast<std::size_t>(parse_size_of("--max-staging", f.max_staging));
  o.streaming_drain = !f.no_streaming_drain;
  o.streaming_fill_edges = !f.no_streaming_fill_edges;
  o.caller_copies = !f.no_caller_copies;
  o.caller_drives = !f.no_caller_drives;
  o.host_threads = f.host_threads;
  o.prefault_from_bytes =
      static_cast<std::size_t>(size_or_zero("--prefault-from", f.prefault_from));
  o.fresh_huge_pages = !f.no_huge_pages;
  o.device = 0;  // every pinbench measurement runs on device 0
  return o;
}

}  // namespace pinbench::cli
