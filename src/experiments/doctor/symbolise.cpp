// Naming native call-site frames with addr2line (symbolise.hpp).
#include "experiments/doctor/symbolise.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/program.hpp"
#include "framework/errors.hpp"

namespace pinbench::doctor {
namespace {

// addr2line (binutils) names native frames where the module has debug information; without it
// a frame is its module and offset, with the dynamic symbol where the module exports one.
std::string find_addr2line() {
  try {
    return cli::resolve_program("addr2line");
  } catch (const InputError&) {
    return "";
  }
}

}  // namespace

void symbolise(DoctorTrace& t) {
  const std::string tool = find_addr2line();
  if (tool.empty()) {
    t.symbolizer =
        "no addr2line on this machine: native frames show module+offset, named by the dynamic "
        "symbol where the module exports one";
    return;
  }
  std::map<std::string, std::vector<DoctorFrame*>> by_module;
  for (DoctorSite& s : t.sites) {
    for (DoctorFrame& f : s.frames) {
      if (!f.python && !f.module.empty() && f.module != "?") by_module[f.module].push_back(&f);
    }
  }
  for (auto& [module, frames] : by_module) {
    if (access(module.c_str(), R_OK) != 0) continue;
    for (std::size_t from = 0; from < frames.size(); from += 256) {
      std::vector<std::string> argv = {tool, "-C", "-f", "-e", module};
      const std::size_t to = std::min(frames.size(), from + 256);
      // A return address is the instruction after the call; the call's line is one byte back.
      for (std::size_t i = from; i < to; ++i) {
        argv.push_back(fmt::format("0x{:x}", frames[i]->offset > 0 ? frames[i]->offset - 1 : 0));
      }
      const std::string out = cli::capture(argv);
      std::vector<std::string> lines;
      std::size_t at = 0;
      while (at < out.size()) {
        const std::size_t nl = std::min(out.find('\n', at), out.size());
        lines.push_back(out.substr(at, nl - at));
        at = nl + 1;
      }
      for (std::size_t i = from; i < to && 2 * (i - from) + 1 < lines.size(); ++i) {
        const std::string& fn = lines[2 * (i - from)];
        const std::string& loc = lines[2 * (i - from) + 1];
        DoctorFrame& f = *frames[i];
        if (fn != "??" && !fn.empty()) f.function = fn;
        const std::size_t colon = loc.rfind(':');
        if (colon != std::string::npos && loc.compare(0, 2, "??") != 0) {
          std::string line = loc.substr(colon + 1);
          const std::size_t sp = line.find(' ');
          if (sp != std::string::npos) line.erase(sp);
          const int n = std::atoi(line.c_str());
          if (n > 0) {
            f.file = loc.substr(0, colon);
            f.line = n;
          }
        }
      }
    }
  }
  t.symbolizer = fmt::format(
      "native frames named by {} where the module has debug information, else module+offset", tool);
}

}  // namespace pinbench::doctor
