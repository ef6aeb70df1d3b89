// `pinbench help [SUBCOMMAND]` and `pinbench help --reference` (docs/cli.md).
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/command_help.hpp"
#include "cli/commands.hpp"
#include "cli/help_format.hpp"
#include "framework/errors.hpp"
#include "framework/text_file.hpp"

namespace pinbench::cli {

Command add_help(CLI::App& app) {
  struct Options {
    std::string subcommand;
    bool reference = false;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* sub = add_command(app, "help");
  sub->add_option("subcommand", opts->subcommand, "The subcommand whose help to show")
      ->type_name("SUBCOMMAND");
  sub->add_flag("--reference", opts->reference,
                "Print the command-line reference of every subcommand as markdown");
  return {sub, [opts, &app] {
            if (opts->reference) {
              write_stdout(render_reference(app));
              return 0;
            }
            if (opts->subcommand.empty()) {
              write_stdout(render_help(app, help_width()));
              return 0;
            }
            std::vector<std::string> names;
            for (const CLI::App* s : app.get_subcommands({})) {
              if (s->get_name() == opts->subcommand) {
                write_stdout(render_help(*s, help_width()));
                return 0;
              }
              names.push_back(s->get_name());
            }
            throw InputError(unknown_subcommand_message(opts->subcommand, names));
          }};
}

std::string unknown_subcommand_message(const std::string& name,
                                       const std::vector<std::string>& known) {
  const std::string near = nearest(name, known);
  return fmt::format("unknown subcommand '{}'{} (see pinbench help)", name,
                     near.empty() ? "" : fmt::format("; did you mean '{}'?", near));
}

}  // namespace pinbench::cli
