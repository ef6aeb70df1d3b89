#include "cli/command_help.hpp"

#include <map>
#include <stdexcept>
#include <utility>

namespace pinbench::cli {

// The COMMAND.help files as they were at build time (generated/command_help_text.cpp).
const std::map<std::string, std::string>& command_help_texts();

namespace {

// A .help file's text as CommandHelp: the first line, then the paragraphs after the blank line,
// each paragraph's lines joined with spaces.
CommandHelp parse_help(const std::string& text) {
  CommandHelp help;
  const std::size_t end = text.find('\n');
  help.summary = text.substr(0, end);
  if (end == std::string::npos) return help;
  std::string paragraph;
  const auto flush = [&] {
    if (paragraph.empty()) return;
    help.details += (help.details.empty() ? "" : "\n\n") + paragraph;
    paragraph.clear();
  };
  std::size_t start = end + 1;
  while (start < text.size()) {
    std::size_t stop = text.find('\n', start);
    if (stop == std::string::npos) stop = text.size();
    const std::string line = text.substr(start, stop - start);
    if (line.find_first_not_of(' ') == std::string::npos) {
      flush();
    } else {
      paragraph += (paragraph.empty() ? "" : " ") + line;
    }
    start = stop + 1;
  }
  flush();
  return help;
}

}  // namespace

const CommandHelp& command_help(const std::string& command) {
  static const std::map<std::string, CommandHelp> helps = [] {
    std::map<std::string, CommandHelp> m;
    for (const auto& [name, text] : command_help_texts()) m.emplace(name, parse_help(text));
    return m;
  }();
  const auto it = helps.find(command);
  if (it == helps.end()) throw std::out_of_range("no help file for command '" + command + "'");
  return it->second;
}

CLI::App* add_command(CLI::App& app, const std::string& name) {
  // The details are shown by the help formatter (cli/help_format.hpp), with the command's exit
  // codes; here only the summary, which `pinbench --help` lists.
  return app.add_subcommand(name, command_help(name).summary);
}

}  // namespace pinbench::cli
