# Every GPU of a host, alone and together.
pinbench_experiment(
  CUDA_FREE analysis.cpp experiment.cpp
  MEASURE measure.cpp
  COMMAND command.cpp)
