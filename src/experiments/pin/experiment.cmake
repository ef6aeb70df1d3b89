# How fast this host pins, what pinning costs a neighbour, and the limits on it.
pinbench_experiment(
  CUDA_FREE analysis.cpp experiment.cpp
  MEASURE measure.cpp
  COMMAND command.cpp)
