# pinbench doctor -- PROGRAM: what a program's copies cost and where (the injection library
# loaded into the program, the event lines, the findings, the calibration).
pinbench_experiment(
  CUDA_FREE trace.cpp events.hpp analysis.cpp report.cpp experiment.cpp
  MEASURE calibration.cpp
  COMMAND command.cpp symbolise.cpp)

# doctor's injection library: loaded by the CUDA driver into the program under test
# (CUDA_INJECTION64_PATH), so it carries its C++ runtime and hides it, needs CUPTI's headers
# and header-only files of ours (the event lines, events.hpp; the CUPTI table,
# cuda/cupti_api.hpp) but no library (CUPTI itself is dlopen()ed), and sits beside pinbench,
# where `pinbench doctor` looks.
add_library(pinbench_doctor_inject SHARED ${CMAKE_CURRENT_LIST_DIR}/inject/inject.cpp)
target_include_directories(pinbench_doctor_inject PRIVATE ${CMAKE_SOURCE_DIR}/src
  ${CUDAToolkit_INCLUDE_DIRS})
target_link_libraries(pinbench_doctor_inject PRIVATE ${CMAKE_DL_LIBS} Threads::Threads)
set_target_properties(pinbench_doctor_inject PROPERTIES
  OUTPUT_NAME pinbench_doctor_inject
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON)
if(NOT PINBENCH_SANITIZE)
  target_link_options(pinbench_doctor_inject PRIVATE -static-libstdc++ -static-libgcc
    -Wl,--exclude-libs,ALL)
endif()
pinbench_warnings(pinbench_doctor_inject)
set_property(GLOBAL APPEND PROPERTY pinbench_RUNTIME_LIBRARIES pinbench_doctor_inject)
install(TARGETS pinbench_doctor_inject LIBRARY DESTINATION lib/pinbench)
