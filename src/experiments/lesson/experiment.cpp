// The lesson as the registry sees it: its record's config, its model section, its printer.
#include <fmt/format.h>

#include "experiments/lesson/analysis.hpp"
#include "experiments/lesson/report.hpp"
#include "experiments/lesson/text.hpp"
#include "framework/experiment.hpp"
#include "framework/render/text.hpp"

namespace pinbench::experiments::lesson {
namespace {

class Lesson final : public Experiment {
 public:
  std::string name() const override { return "lesson"; }
  std::string command() const override { return "pinbench lesson"; }
  std::string label() const override { return "Lesson"; }
  std::string noun() const override { return "lesson"; }
  bool copy_rates() const override { return true; }

  const std::vector<ConfigField>& config_fields() const override {
    static const std::vector<ConfigField> fields = fields_of<LessonConfig>();
    return fields;
  }

  void analyse(const RunRecord& record, ReportModel& model) const override {
    build_lesson_section(record, model);
  }

  // Its NVTX ranges are "part<N> ... <dir> <kind>" (measure_copies.cpp, measure_async.cpp),
  // checked under its parts' record names: part 1's is "copy", a range of four words or more
  // names its part second, and any other part names itself.
  std::optional<std::string> range_gate(const std::vector<std::string>& words) const override {
    if (words[0].rfind("part", 0) != 0) return std::nullopt;
    if (words.size() > 3) return words[1];
    return words[0] == "part1" ? std::string("copy") : words[0];
  }

  std::string text(const RunRecord& record, const ReportModel& model,
                   const TextOptions& options) const override {
    const LessonAnalysis& a = section<LessonAnalysis>(model);
    std::optional<ReferenceComparison> reference;
    if (options.reference) reference = compare_with_reference(a, *options.reference);
    return with_sampling(record, model, render_lesson_text(record, a, reference));
  }

  std::string wall_time(const RunRecord& record, bool replayed) const override {
    return fmt::format(
        "Lesson wall time{}: {:.2f} s (device set-up, allocations, gates and all three parts).",
        replayed ? " (the recorded run's)" : "", record.wall_ms / 1000.0);
  }
};

}  // namespace

std::vector<const Experiment*> kinds() {
  static const Lesson lesson;
  return {&lesson};
}

}  // namespace pinbench::experiments::lesson
