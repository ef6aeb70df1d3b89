// Planted for check_one_asker.py: a model that points back at the experiment that built it, by a
// forward declaration that needs no include (two places: the declaration and the member).
#pragma once

namespace pinbench {
class Experiment;
struct ReportModel {
  const Experiment* analysed_by = nullptr;
};
}  // namespace pinbench
