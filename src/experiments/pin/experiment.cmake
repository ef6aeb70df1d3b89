# How fast this host pins, what pinning costs a neighbour, and the limits on it.
pinbench_experiment(
  MEASURE measure.cpp)
