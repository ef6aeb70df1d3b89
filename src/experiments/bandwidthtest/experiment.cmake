# NVIDIA's bandwidthtest program, measured as the blog post measures it.
pinbench_experiment(
  CUDA_FREE plan.hpp experiment.cpp
  MEASURE measure.cpp
  COMMAND command.cpp)
