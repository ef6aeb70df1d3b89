# Many hosts' check records read together: the outliers within a model and link.
pinbench_experiment(
  CUDA_FREE analysis.cpp experiment.cpp print.cpp
  COMMAND command.cpp)
