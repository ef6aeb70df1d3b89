// Stands first on the include path of pinbench_core (CMakeLists.txt), so a
// CUDA header reached from there fails to compile even where CUDA sits under /usr/include.
#error \
    "pinbench_core is CUDA-free: move this code to a MEASURE file of its experiment, src/measure or src/cuda"
