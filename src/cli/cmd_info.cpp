// `pinbench info`: what this machine is, as every run record will describe it.
#include <cstdio>

#include "cli/command_help.hpp"
#include "cli/commands.hpp"
#include "cuda/device.hpp"
#include "framework/render/text.hpp"

namespace pinbench::cli {

Command add_info(CLI::App& app) {
  CLI::App* sub = add_command(app, "info");
  return {sub, [] {
            const MachineInfo m = cuda::query_machine(0);  // NoGpuError (exit 3) without a GPU
            std::fputs(render_machine(m).c_str(), stdout);
            std::printf("Pageable memory access from kernels: %s\n",
                        m.pageable_memory_access != 0 ? "yes" : "no");
            return 0;
          }};
}

}  // namespace pinbench::cli
