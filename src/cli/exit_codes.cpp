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

const std::vector<std::pair<std::string, std::string>>& exit_code_meanings() {
  static const std::vector<std::pair<std::string, std::string>> codes = {
      {"0", "success"},
      {"1",
       "a gate or check failed (bytes differed, a buffer was not the memory kind it claimed, a "
       "GPU failed a health check); compare: a case differs past the threshold; fleet: "
       "something is flagged; trace-check: prediction 4 died"},
      {"2",
       "bad usage or input: an unknown subcommand or option, a malformed value, a missing or "
       "foreign record, an output that cannot be written"},
      {"3", "no usable GPU where one is required"},
      {"4", "a CUDA call failed on a usable GPU (the line names the call and CUDA's error)"},
      {"5",
       "compare: the two records were measured under different conditions (another GPU model, "
       "experiment, kernel beside the copies or set of methods): both are shown, neither is "
       "judged"},
      {"130, 143",
       "SIGINT or SIGTERM stopped a measurement: what was measured is printed and its record "
       "written, marked incomplete"},
      {"other",
       "doctor and accel exit with the program's own status (128+N when signal N killed it)"}};
  return codes;
}

const char* measuring_exit_codes() {
  return "0 success; 1 a gate failed (a copy's bytes differed, or a buffer was not the memory "
         "kind it claimed); 2 bad usage or input; 3 no usable GPU with --require-gpu; 4 a CUDA "
         "call failed; 130 or 143 stopped by SIGINT or SIGTERM (what was measured is printed "
         "and written, marked incomplete).";
}

}  // namespace pinbench::cli
