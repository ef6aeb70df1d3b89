// The race the course page warns about. A source holds "old" bytes; cudaMemcpyAsync sends it to
// the device; as soon as the call returns, the host overwrites the source with "new" bytes,
// from the end backwards in 1 MiB chunks (the copy engine reads from the front, so a backwards
// writer meets it instead of trailing behind it). After the stream drains, the device's copy is
// read back and every 8-byte word is classified as old, new or neither. With a pinned source
// the call returns before the copy engine has read the bytes, so some new bytes arrive. With the
// stream synchronised before the overwrite, none do. With a pageable source the driver has
// staged every byte before the call returns, so none do either: that copy is slow, not racy.
#include "experiments/race/measure.hpp"

#include <cstring>

#include <fmt/format.h>

#include "cuda/buffers.hpp"
#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "cuda/stream.hpp"
#include "framework/case_builder.hpp"
#include "framework/errors.hpp"
#include "framework/pattern.hpp"
#include "framework/units.hpp"
#include "measure/run_record.hpp"
#include "measure/sampler.hpp"

namespace pinbench::experiments::race {
namespace {

struct Counts {
  std::uint64_t old_words = 0, new_words = 0, other_words = 0;
};

Counts classify(const void* got, const void* old_bytes, const void* new_bytes, std::size_t bytes) {
  Counts c;
  const auto* g = static_cast<const unsigned char*>(got);
  const auto* o = static_cast<const unsigned char*>(old_bytes);
  const auto* n = static_cast<const unsigned char*>(new_bytes);
  for (std::size_t i = 0; i + 8 <= bytes; i += 8) {
    if (std::memcmp(g + i, o + i, 8) == 0) {
      ++c.old_words;
    } else if (std::memcmp(g + i, n + i, 8) == 0) {
      ++c.new_words;
    } else {
      ++c.other_words;
    }
  }
  return c;
}

void overwrite_backwards(void* dst, const void* src, std::size_t bytes) {
  constexpr std::size_t kChunk = 1 << 20;
  std::size_t end = bytes;
  while (end > 0) {
    const std::size_t begin = end > kChunk ? end - kChunk : 0;
    std::memcpy(static_cast<char*>(dst) + begin, static_cast<const char*>(src) + begin,
                end - begin);
    end = begin;
  }
}

}  // namespace

RunRecord run_race(const RaceConfig& config, const ProgressFn& progress) {
  if (config.bytes < 8 || config.bytes % 8 != 0) {
    throw InputError(
        fmt::format("the race size must be a positive multiple of 8 bytes, not {}", config.bytes));
  }
  if (config.trials < 1) throw InputError("the race needs at least one trial");
  cuda::require_device();
  if (config.bytes > cuda::device_free_bytes()) {
    throw InputError(
        fmt::format("{} does not fit in the device's free memory", format_size(config.bytes)));
  }
  const auto start = SteadyClock::now();
  nlohmann::json written = nlohmann::json::object();
  put_fields(written, config);
  RunRecord record = start_record("race", std::move(written));

  const std::size_t bytes = config.bytes;
  cuda::HostBuffer old_bytes(bytes, MemoryKind::kPageable);
  cuda::HostBuffer new_bytes(bytes, MemoryKind::kPageable);
  fill_pattern(old_bytes.data(), bytes, 0x01D);
  fill_pattern(new_bytes.data(), bytes, 0x2E7);
  cuda::HostBuffer pinned(bytes, MemoryKind::kPinned);
  cuda::HostBuffer pageable(bytes, MemoryKind::kPageable);
  cuda::HostBuffer back(bytes, MemoryKind::kPinned);
  cuda::DeviceBuffer device(bytes);
  cuda::Stream stream;

  struct Mode {
    const char* name;
    cuda::HostBuffer* source;
    bool sync_first;
  };
  for (const Mode& mode : {Mode{"overwrite at once", &pinned, false},
                           Mode{"overwrite after cudaStreamSynchronize", &pinned, true},
                           Mode{"overwrite at once", &pageable, false}}) {
    const std::string memory = to_string(mode.source->kind());
    progress(fmt::format("race: {} source, {}", memory, mode.name));
    const CaseSpec spec{
        "race",
        "h2d",
        memory,
        mode.sync_first ? "cudaMemcpyAsync, synchronize, overwrite" : "cudaMemcpyAsync, overwrite",
        "host_clock",
        bytes,
        0,
        fmt::format("race/{}/{}", memory, mode.sync_first ? "synchronized" : "at-once")};
    nlohmann::json trials = nlohmann::json::array();
    bool consistent = true;  // every word is either old or new: nothing else can arrive
    // A trial is a sample: from the call to the stream's completion, the overwrite included.
    Sampler sampler(StopRule::fixed(config.trials), SampleClock::kHostClock);
    const Timed t = sampler.run([&](Sampler& s, int, int, Timed& out) {
      std::memcpy(mode.source->data(), old_bytes.data(), bytes);
      PINBENCH_CUDA_TRY(cudaMemsetAsync(device.data(), 0, bytes, stream.get()));
      stream.synchronize();
      s.start(0);
      PINBENCH_CUDA_TRY(cudaMemcpyAsync(device.data(), mode.source->data(), bytes,
                                        cudaMemcpyHostToDevice, stream.get()));
      out.call_ms.push_back(s.ms_since_start(0));
      if (mode.sync_first) stream.synchronize();
      overwrite_backwards(mode.source->data(), new_bytes.data(), bytes);
      stream.synchronize();
      s.stop(0);
      out.samples_ms.push_back(s.elapsed_ms(0));
      PINBENCH_CUDA_TRY(
          cudaMemcpyAsync(back.data(), device.data(), bytes, cudaMemcpyDeviceToHost, stream.get()));
      stream.synchronize();
      const Counts k = classify(back.data(), old_bytes.data(), new_bytes.data(), bytes);
      consistent = consistent && k.other_words == 0;
      trials.push_back(
          {{"old_words", k.old_words}, {"new_words", k.new_words}, {"other_words", k.other_words}});
    });
    const bool passed = add_gate(
        record, {spec.gate, consistent,
                 consistent ? "every 8-byte word that arrived is either the old or the new value"
                            : "some words are neither the old nor the new value"});
    Case c = make_case(spec, t, passed);
    c.extra = {{"mode", mode.name}, {"trials", trials}, {"word_bytes", 8}};
    record.cases.push_back(c);
  }
  finish_record(record, start);
  return record;
}

}  // namespace pinbench::experiments::race
