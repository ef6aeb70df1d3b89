# Many small blocks scattered over host and device arenas, moved by every method (blocks).
pinbench_experiment(
  CUDA_FREE plan.cpp analysis.cpp experiment.cpp
  MEASURE measure.cpp beside_kernels.cu
  COMMAND command.cpp)
