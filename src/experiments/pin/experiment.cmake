# How fast this host pins, what pinning costs a neighbour, and the limits on it.
pinbench_experiment(
  CUDA_FREE analysis.cpp experiment.cpp
  MEASURE measure.cpp
  COMMAND command.cpp)


# The neighbour: a small CUDA program `pinbench pin` starts beside itself, which times what a
# serving rank does every few milliseconds while the experiment pins. Installed where pinbench
# looks for the programs and libraries it runs (lib/pinbench).
add_executable(pinbench_neighbour ${CMAKE_CURRENT_LIST_DIR}/neighbour/neighbour.cu)
target_link_libraries(pinbench_neighbour PRIVATE CUDA::cudart_static)
set_target_properties(pinbench_neighbour PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
pinbench_warnings(pinbench_neighbour)
install(TARGETS pinbench_neighbour RUNTIME DESTINATION lib/pinbench)
set_property(GLOBAL APPEND PROPERTY pinbench_RUNTIME_LIBRARIES pinbench_neighbour)
