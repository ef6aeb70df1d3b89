# The Day 53 lesson: its plan, analysis (the four predictions, prediction 4 from a trace or an
# nsys export) and printer; its measurement; its commands (lesson, trace-check).
pinbench_experiment(
  CUDA_FREE plan.cpp analysis.cpp prediction4.cpp nsys_stats.cpp text.cpp report.cpp
    experiment.cpp
  MEASURE measure.cpp measure_parts.hpp measure_copies.cpp measure_async.cpp measure_zero_copy.cpp
  COMMAND command.cpp trace_check_command.cpp)
