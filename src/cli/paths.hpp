// Where pinbench finds its committed data (data/runs, data/reference) at run time.
#pragma once

#include <string>

namespace pinbench::cli {

// The first that exists of: $PINBENCH_DATA_DIR, <folder of the binary>/../data (the default
// build puts the binary at build/pinbench), and the source tree's data/ folder.
std::string data_dir();

}  // namespace pinbench::cli
