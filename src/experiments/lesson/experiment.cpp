// The lesson as the registry sees it: its record's config, its model section, its printer.
#include "framework/experiment.hpp"
#include "experiments/lesson/analysis.hpp"
#include "experiments/lesson/report.hpp"
#include "experiments/lesson/text.hpp"
#include "framework/render/text.hpp"

namespace pinbench::experiments::lesson {
namespace {

ExperimentDescriptor lesson_descriptor() {
  ExperimentDescriptor d{"lesson", "pinbench lesson", "Lesson", "lesson"};
  d.copy_rates = true;
  d.config_fields = fields_of<LessonConfig>();
  // Its NVTX ranges are "part1 <dir> <kind>" (measure_copies.cpp) and "part2 async <dir> <kind>"
  // (measure_async.cpp), checked under its parts' record names.
  d.range_gates = {{"part1", "copy"}, {"part2 async", "async"}};
  d.wall_time_decimals = 2;
  d.wall_time_covers = "device set-up, allocations, gates and all three parts";
  return d;
}

class Lesson final : public Experiment {
 public:
  Lesson() : Experiment(lesson_descriptor()) {}

  void analyse(const RunRecord& record, ReportModel& model) const override {
    build_lesson_section(record, model);
  }

  std::string text(const RunRecord& record, const ReportModel& model,
                   const TextOptions& options) const override {
    const LessonAnalysis& a = section<LessonAnalysis>(model);
    std::optional<ReferenceComparison> reference;
    if (options.reference) reference = compare_with_reference(a, *options.reference);
    return with_sampling(record, model, render_lesson_text(record, a, reference));
  }
};

}  // namespace

std::vector<const Experiment*> kinds() {
  static const Lesson lesson;
  return {&lesson};
}

}  // namespace pinbench::experiments::lesson
