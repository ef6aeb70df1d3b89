// How main() turns an exception into its one line on stderr and its documented exit code. A
// function of its own, so the mapping is tested without a GPU (tests/cpu/test_exit_codes.cpp).
#pragma once

#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "framework/errors.hpp"

namespace pinbench::cli {

struct Failure {
  ExitCode code;
  std::string message;  // the line after "pinbench: error: "
};

// InputError and bad_alloc: 2; NoGpuError: 3; CudaError and the staged engine's StagedCopyError
// (a CUDA call failed on a GPU that is there): 4; anything else is a bug in pinbench: 1, as an
// "internal error". `e` must hold an exception.
Failure failure_of(const std::exception_ptr& e);

// Every exit status pinbench gives and what it means, for `pinbench --help` and docs/cli.md.
const std::vector<std::pair<std::string, std::string>>& exit_code_meanings();

// The exit statuses of a measuring subcommand, as one sentence for its help.
const char* measuring_exit_codes();

}  // namespace pinbench::cli
