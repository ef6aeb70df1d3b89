# The Day 54 pipeline: copies and kernels overlapped on streams, through the engine and from
# page-locked memory, against their bound.
pinbench_experiment(
  CUDA_FREE plan.cpp analysis.cpp text.cpp experiment.cpp
  MEASURE measure.cpp kernels.cu
  COMMAND command.cpp)
