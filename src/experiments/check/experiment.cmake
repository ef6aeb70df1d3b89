# One host's health check (link, pinned and pageable rates, round trip) against floors, also
# over MPI; and the fleet (fleet/): many hosts' check records read together, the outliers within
# a model and link.
pinbench_experiment(
  CUDA_FREE analysis.cpp floors.cpp pin_check.cpp report.cpp experiment.cpp prometheus.cpp
    fleet/analysis.cpp fleet/experiment.cpp fleet/print.cpp
  MEASURE measure.cpp
  COMMAND command.cpp mpi_gather.cpp fleet/command.cpp)

# Open MPI behind a small shared library that `pinbench check --mpi` loads at run time,
# so the pinbench binary runs where there is no MPI. AUTO: built when CMake finds MPI.
set(PINBENCH_MPI AUTO CACHE STRING "Build libpinbench_mpi.so for check --mpi: AUTO, ON or OFF")
set_property(CACHE PINBENCH_MPI PROPERTY STRINGS AUTO ON OFF)
set(PINBENCH_HAVE_MPI OFF)
if(NOT PINBENCH_MPI STREQUAL "OFF")
  if(PINBENCH_MPI STREQUAL "ON")
    find_package(MPI COMPONENTS CXX REQUIRED)
  else()
    find_package(MPI COMPONENTS CXX QUIET)
  endif()
  if(MPI_CXX_FOUND)
    set(PINBENCH_HAVE_MPI ON)
    add_library(pinbench_mpi SHARED ${CMAKE_CURRENT_LIST_DIR}/mpi/pinbench_mpi.cpp)
    target_include_directories(pinbench_mpi PRIVATE ${CMAKE_SOURCE_DIR}/src)
    target_link_libraries(pinbench_mpi PRIVATE MPI::MPI_CXX)
    set_target_properties(pinbench_mpi PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
    pinbench_warnings(pinbench_mpi)
    set_property(GLOBAL APPEND PROPERTY pinbench_RUNTIME_LIBRARIES pinbench_mpi)
    install(TARGETS pinbench_mpi LIBRARY DESTINATION lib/pinbench)
  endif()
endif()
message(STATUS "pinbench: check --mpi library ${PINBENCH_HAVE_MPI}")
