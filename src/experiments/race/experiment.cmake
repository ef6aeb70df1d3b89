# Two copies raced on two streams: does a pageable copy overlap anything?
pinbench_experiment(
  MEASURE measure.cpp)
