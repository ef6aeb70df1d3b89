# pinbench accel -- PROGRAM: an unmodified program's pageable copies through the staged engine
# (the library preloaded into the program, its counters, the record and its report).
pinbench_experiment(
  CUDA_FREE summary.cpp interpose/counters.hpp report.cpp experiment.cpp
  COMMAND command.cpp)

# accel's library, preloaded into the program (LD_PRELOAD). It holds a staged engine of its own
# (the engine's sources again) whose CUDA runtime calls are renamed (interpose/runtime_names.hpp)
# to forwarders into the program's own libcudart, or, without one, to the driver backend
# (interpose/driver_runtime.cpp): nothing of CUDA is linked, so the program keeps one runtime and
# the engine's calls never come back through accel's entry points (the runtime's, interpose.cpp,
# and the driver's, interpose/driver_entry.cpp). The C++
# runtime is inside and hidden, as in doctor's library: it lives in someone else's process.
file(GLOB pinbench_accel_engine_sources CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/transfer/*.cpp)
add_library(pinbench_accel_engine OBJECT
  ${pinbench_accel_engine_sources}
  ${CMAKE_SOURCE_DIR}/src/base/chunk_plan.cpp
  ${CMAKE_SOURCE_DIR}/src/base/cgroups.cpp
  ${CMAKE_CURRENT_LIST_DIR}/interpose/router.cpp
  ${CMAKE_CURRENT_LIST_DIR}/interpose/real_runtime.cpp)
target_compile_options(pinbench_accel_engine PRIVATE
  -include ${CMAKE_CURRENT_LIST_DIR}/interpose/runtime_names.hpp)
add_library(pinbench_accel SHARED
  ${CMAKE_CURRENT_LIST_DIR}/interpose/interpose.cpp
  ${CMAKE_CURRENT_LIST_DIR}/interpose/driver_entry.cpp
  ${CMAKE_CURRENT_LIST_DIR}/interpose/driver_api.cpp
  ${CMAKE_CURRENT_LIST_DIR}/interpose/driver_runtime.cpp
  ${CMAKE_CURRENT_LIST_DIR}/interpose/symbols.cpp
  ${CMAKE_SOURCE_DIR}/src/cuda/driver_watch.cpp
  $<TARGET_OBJECTS:pinbench_accel_engine>)
foreach(target pinbench_accel_engine pinbench_accel)
  target_include_directories(${target} PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/include
    ${CUDAToolkit_INCLUDE_DIRS})
  set_target_properties(${target} PROPERTIES
    POSITION_INDEPENDENT_CODE ON
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  pinbench_warnings(${target} NO_SANITIZE)
endforeach()
target_link_libraries(pinbench_accel PRIVATE ${CMAKE_DL_LIBS} Threads::Threads)
target_link_options(pinbench_accel PRIVATE
  -Wl,--version-script=${CMAKE_CURRENT_LIST_DIR}/interpose/exports.map)
set_property(TARGET pinbench_accel APPEND PROPERTY LINK_DEPENDS
  ${CMAKE_CURRENT_LIST_DIR}/interpose/exports.map)
set_target_properties(pinbench_accel PROPERTIES
  OUTPUT_NAME pinbench_accel
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
# Never sanitized (pinbench_warnings NO_SANITIZE): it is preloaded into every process of the
# program, shells included, where a sanitizer's runtime would have to come first.
# --no-undefined: a runtime call missing from src/transfer/runtime_calls.def fails here, not in a
# user's program.
target_link_options(pinbench_accel PRIVATE -static-libstdc++ -static-libgcc
  -Wl,--exclude-libs,ALL -Wl,--no-undefined)
set_property(GLOBAL APPEND PROPERTY pinbench_RUNTIME_LIBRARIES pinbench_accel)
install(TARGETS pinbench_accel LIBRARY DESTINATION lib/pinbench)
