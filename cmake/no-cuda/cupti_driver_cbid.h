// Stands first on the include path of pinbench_core and pinbench_report (CMakeLists.txt), so a
// CUDA header reached from there fails to compile even where CUDA sits under /usr/include.
#error "pinbench_core is CUDA-free: move this code to src/cuda or src/experiments"
