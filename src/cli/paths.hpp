// Where pinbench finds, at run time, its committed data (data/runs, data/reference) and what
// ships beside the binary.
#pragma once

#include <string>
#include <vector>

#include "framework/text_file.hpp"

namespace pinbench::cli {

// The folder of the running binary (/proc/self/exe); "." where it cannot be read.
std::string binary_dir();

// The first that exists of: $PINBENCH_DATA_DIR, <folder of the binary>/../data (the default
// build puts the binary at build/pinbench), <folder of the binary>/../share/pinbench/data (where
// `cmake --install` puts it), and the source tree's data/ folder.
std::string data_dir();

// The directory holding the Python package pinbench/ (for `staged --torch`): the first that
// exists of $PINBENCH_PYTHON_DIR, <folder of the binary>/python (a bundle for a GPU machine),
// <folder of the binary>/../python (the source tree, binary in build/),
// <folder of the binary>/../lib/pinbench/python (installed); "" when none does.
std::string python_dir();

// libpinbench_c.so beside the binary, where the build and a bundle put it, or in ../lib where
// `cmake --install` puts it; "" when absent (the package then searches for itself,
// docs/python.md).
std::string c_library_beside_binary();

// A library pinbench loads into a user's program (doctor's, accel's), or a program it starts
// (pin's neighbour), beside the binary (the build folder) or where `cmake --install` puts it
// (<binary>/../lib/pinbench), as a real path; InputError naming `target` (the CMake target that
// builds it) when it is in neither.
std::string program_library(const std::string& file_name, const std::string& target);

// pinbench's own files, which no output may replace: the running binary, and the libraries beside
// it and in ../lib and ../lib/pinbench (libpinbench*.so*: the C library, those it loads into a
// program, the MPI layers), and the programs it starts there (pinbench_neighbour).
std::vector<NamedPath> own_files();

}  // namespace pinbench::cli
