# The staged copy engine against the driver and against its own bound (staged, staged --tune).
pinbench_experiment(
  CUDA_FREE plan.cpp analysis.cpp torch_methods.hpp text.cpp experiment.cpp
  MEASURE measure.cpp measure_torch.cpp
  COMMAND command.cpp)
