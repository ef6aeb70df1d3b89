// `pinbench info`: what this machine is, as every run record will describe it.
#include <cstdio>

#include "cli/command_help.hpp"
#include "cli/commands.hpp"
#include "cuda/device.hpp"
#include "framework/render/text.hpp"
#include "framework/report_tables.hpp"

namespace pinbench::cli {

Command add_info(CLI::App& app) {
  CLI::App* sub = add_command(app, "info");
  return {sub, [] {
            const MachineInfo m = cuda::query_machine(0);  // NoGpuError (exit 3) without a GPU
            std::fputs(render_machine(m).c_str(), stdout);
            std::printf("Pageable memory: %s\n", pageable_addressing(m).c_str());
            return 0;
          }};
}

}  // namespace pinbench::cli
