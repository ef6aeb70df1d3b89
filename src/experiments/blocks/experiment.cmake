# Many small blocks scattered over host and device arenas, moved by every method (blocks).
pinbench_experiment(
  CUDA_FREE plan.cpp analysis.cpp experiment.cpp
  MEASURE measure.cpp beside_kernels.cu beside_gemm.cpp
  COMMAND command.cpp)
