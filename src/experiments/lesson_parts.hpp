// Shared by the lesson's part files; not a public interface.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "core/analysis/lesson.hpp"
#include "core/record/record.hpp"
#include "experiments/lesson.hpp"

namespace pinbench::lesson {

struct PartContext {
  const LessonConfig& config;
  RunRecord& record;
  const ProgressFn& progress;
};

void run_copies(PartContext& ctx);     // part 1 and its device-to-host exercise
void run_async(PartContext& ctx);      // part 2
void run_zero_copy(PartContext& ctx);  // part 3

// Adds a gate to the record. `mismatch` is the first differing byte, if any. Returns passed.
bool add_gate(RunRecord& record, const std::string& name, std::optional<std::size_t> mismatch,
              std::size_t bytes);

// Adds a gate that `ptr` is the memory kind `expected` in the driver's eyes.
bool add_kind_gate(RunRecord& record, const std::string& name, const void* ptr,
                   const std::string& expected);

// "copy/h2d/pageable/64MiB": the gate and case key used in records.
std::string case_key(const std::string& part, const std::string& direction,
                     const std::string& memory, std::size_t bytes);

}  // namespace pinbench::lesson
