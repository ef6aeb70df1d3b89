# The race: overwriting a copy's source while the copy is in flight.
pinbench_experiment(
  CUDA_FREE analysis.cpp experiment.cpp
  MEASURE measure.cpp
  COMMAND command.cpp)
