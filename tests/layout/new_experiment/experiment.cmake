# The smallest experiment the recipe makes (docs/architecture.md, "How to add an experiment"):
# its record kind and its command. A real one adds its plan, analysis and printer to CUDA_FREE
# and its measurement to MEASURE.
pinbench_experiment(
  CUDA_FREE experiment.cpp
  COMMAND command.cpp)
