#include "cli/exit_codes.hpp"

#include <new>

#include "pinbench/staged_copy.hpp"

namespace pinbench::cli {

Failure failure_of(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const InputError& x) {
    return {ExitCode::kBadInput, x.what()};
  } catch (const NoGpuError& x) {
    return {ExitCode::kNoGpu, x.what()};
  } catch (const CudaError& x) {
    return {ExitCode::kCudaFailed, x.what()};
  } catch (const StagedCopyError& x) {
    // The engine's message names the call and CUDA's error, after its own "pinbench: ", which
    // main's line already starts with.
    std::string what = x.what();
    const std::string prefix = "pinbench: ";
    if (what.rfind(prefix, 0) == 0) what.erase(0, prefix.size());
    return {ExitCode::kCudaFailed, what};
  } catch (const std::bad_alloc&) {
    return {ExitCode::kBadInput, "out of host memory for the sizes asked for"};
  } catch (const std::exception& x) {
    // A bug in pinbench rather than in the input or the GPU; still one line, still exit 1.
    return {ExitCode::kCheckFailed, std::string("internal error: ") + x.what()};
  } catch (...) {
    return {ExitCode::kCheckFailed, "internal error: an exception of unknown type"};
  }
}

const char* exit_code_help() {
  return "Exit codes: 0 success, 1 a gate or check failed (compare: a case differs by more than "
         "the threshold), 2 bad usage or input, 3 no usable GPU where one is required, 4 a CUDA "
         "call failed on a usable GPU, 130 or 143 a measurement stopped by SIGINT or SIGTERM (its "
         "record, marked incomplete, was still written).\n";
}

}  // namespace pinbench::cli
