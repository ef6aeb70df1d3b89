# The sweep over sizes, memory kinds and methods, with what pinning costs.
pinbench_experiment(
  CUDA_FREE plan.cpp analysis.cpp text.cpp experiment.cpp
  MEASURE measure.cpp measure_cases.cpp measure_pin_cost.cpp
  COMMAND command.cpp)
