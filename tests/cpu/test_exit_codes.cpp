// main's mapping from exceptions to exit codes and the line it prints; the no-GPU paths of the
// real binary are in test_cli.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <new>

#include "cli/exit_codes.hpp"
#include "pinbench/staged_copy.hpp"

namespace pinbench::cli {
namespace {

template <typename E>
Failure of(E e) {
  return failure_of(std::make_exception_ptr(e));
}

TEST(ExitCodes, EachErrorHasItsDocumentedCode) {
  EXPECT_EQ(of(InputError("bad size")).code, ExitCode::kBadInput);
  EXPECT_EQ(of(std::bad_alloc()).code, ExitCode::kBadInput);
  EXPECT_EQ(of(NoGpuError("no usable GPU: no CUDA driver")).code, ExitCode::kNoGpu);
  EXPECT_EQ(of(std::runtime_error("oops")).code, ExitCode::kCheckFailed);
  EXPECT_EQ(static_cast<int>(ExitCode::kCudaFailed), 4);
}

TEST(ExitCodes, ACudaFailureOnAUsableGpuIsFourNotThree) {
  const Failure f = of(CudaError(2, "cudaMalloc failed at x.cpp:1: cudaErrorMemoryAllocation"));
  EXPECT_EQ(f.code, ExitCode::kCudaFailed);
  EXPECT_EQ(f.message, "cudaMalloc failed at x.cpp:1: cudaErrorMemoryAllocation");
}

TEST(ExitCodes, TheEnginesErrorIsCaughtByNameWithItsMessage) {
  const Failure f = of(
      StagedCopyError("pinbench: cudaMemcpyAsync failed: cudaErrorInvalidValue (invalid argument)",
                      cudaErrorInvalidValue, 0, 64));
  EXPECT_EQ(f.code, ExitCode::kCudaFailed);
  // main prints "pinbench: error: " before it; the engine's own prefix is not doubled.
  EXPECT_EQ(f.message, "cudaMemcpyAsync failed: cudaErrorInvalidValue (invalid argument)");
}

TEST(ExitCodes, AnythingElseIsAnInternalError) {
  EXPECT_EQ(of(std::logic_error("bug")).message, "internal error: bug");
  EXPECT_EQ(of(42).code, ExitCode::kCheckFailed);
}

TEST(ExitCodes, TheHelpDocumentsEveryCode) {
  // Every ExitCode the CLI returns has a row in the help and the reference.
  std::vector<std::string> codes;
  for (const auto& [code, meaning] : exit_code_meanings()) {
    EXPECT_FALSE(meaning.empty()) << code;
    codes.push_back(code);
  }
  for (ExitCode c :
       {ExitCode::kCheckFailed, ExitCode::kBadInput, ExitCode::kNoGpu, ExitCode::kCudaFailed}) {
    const std::string code = std::to_string(static_cast<int>(c));
    EXPECT_NE(std::find(codes.begin(), codes.end(), code), codes.end()) << code;
  }
  EXPECT_EQ(codes.front(), "0");
  EXPECT_NE(std::string(measuring_exit_codes()).find("3 no usable GPU"), std::string::npos);
}

}  // namespace
}  // namespace pinbench::cli
