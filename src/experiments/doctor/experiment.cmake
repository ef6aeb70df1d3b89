# pinbench doctor -- PROGRAM: what a program's copies cost and where (the injection library
# loaded into the program, the event lines, the findings, the calibration).
pinbench_experiment(
  CUDA_FREE trace.cpp events.hpp analysis.cpp report.cpp compare.cpp experiment.cpp
  findings/findings.def findings/finding.cpp findings/calls.hpp findings/sites.cpp
  findings/rates.cpp findings/pinned_memory.cpp
  findings/pageable_async.cpp findings/pageable_sync_loop.cpp findings/alloc_churn.cpp
  findings/over_pinning.cpp findings/managed_migration.cpp findings/pinned_unused.cpp
  findings/pinning_critical_path.cpp findings/pinning_failed.cpp findings/cuda_errors.hpp
  findings/numa_placement.cpp findings/small_copy_storm.cpp
  findings/sync_after_copy.cpp
  MEASURE calibration.cpp
  COMMAND command.cpp symbolise.cpp)

# doctor's injection library: loaded by the CUDA driver into the program under test
# (CUDA_INJECTION64_PATH) and preloaded into every process of it (LD_PRELOAD: its _exit and exec
# family flush the collector first, and its dlopen, cuda/driver_watch.cpp, notes a load of the
# CUDA driver where the collector never starts), so it carries its C++ runtime and hides it,
# exports only inject/exports.map, needs CUPTI's headers and header-only files of ours (the event
# lines, events.hpp; the CUPTI table, cuda/cupti_api.hpp) but no library (CUPTI itself is
# dlopen()ed), and sits beside pinbench, where `pinbench doctor` looks. Never sanitized
# (NO_SANITIZE): shells and every other process of the program load it, where a sanitizer's
# runtime would have to come first.
add_library(pinbench_doctor_inject SHARED ${CMAKE_CURRENT_LIST_DIR}/inject/inject.cpp
  ${CMAKE_SOURCE_DIR}/src/cuda/driver_watch.cpp)
target_include_directories(pinbench_doctor_inject PRIVATE ${CMAKE_SOURCE_DIR}/src
  ${CUDAToolkit_INCLUDE_DIRS})
target_link_libraries(pinbench_doctor_inject PRIVATE ${CMAKE_DL_LIBS} Threads::Threads)
set_target_properties(pinbench_doctor_inject PROPERTIES
  OUTPUT_NAME pinbench_doctor_inject
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON)
target_link_options(pinbench_doctor_inject PRIVATE -static-libstdc++ -static-libgcc
  -Wl,--exclude-libs,ALL
  -Wl,--version-script=${CMAKE_CURRENT_LIST_DIR}/inject/exports.map)
set_property(TARGET pinbench_doctor_inject APPEND PROPERTY LINK_DEPENDS
  ${CMAKE_CURRENT_LIST_DIR}/inject/exports.map)
pinbench_warnings(pinbench_doctor_inject NO_SANITIZE)
set_property(GLOBAL APPEND PROPERTY pinbench_RUNTIME_LIBRARIES pinbench_doctor_inject)
install(TARGETS pinbench_doctor_inject LIBRARY DESTINATION lib/pinbench)
