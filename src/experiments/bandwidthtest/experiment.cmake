# NVIDIA's bandwidthtest program, measured as the blog post measures it.
pinbench_experiment(
  MEASURE measure.cpp)
