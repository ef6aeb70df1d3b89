// Naming native call-site frames with addr2line (symbolise.hpp).
#include "experiments/doctor/symbolise.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "cli/program.hpp"
#include "framework/errors.hpp"

namespace pinbench::experiments::doctor {
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

// A module's function symbols with their sizes, from `nm -S` (binutils), sorted by address:
// addr2line and dladdr name an address with no debug information after the nearest symbol
// before it, which for code without symbols of its own (a statically linked runtime's internal
// functions) is a neighbour's name. Only a symbol whose extent holds the address may name it.
struct Symbol {
  std::uint64_t start = 0, end = 0;
  std::string name;
};

// Modules larger than this are not listed (a framework's libraries hold millions of symbols);
// their frames keep the names they have.
constexpr std::uintmax_t kMaxListedModule = std::uintmax_t{256} << 20;

std::vector<Symbol> function_symbols(const std::string& nm, const std::string& module) {
  std::vector<Symbol> out;
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(module, ec);
  if (nm.empty() || ec || size > kMaxListedModule) return out;
  for (const char* table : {"", "-D"}) {
    std::vector<std::string> argv = {nm, "-S", "-C", "--defined-only"};
    if (*table != '\0') argv.emplace_back(table);
    argv.push_back(module);
    const std::string text = cli::capture(argv);
    std::size_t at = 0;
    while (at < text.size()) {
      const std::size_t nl = std::min(text.find('\n', at), text.size());
      const std::string line = text.substr(at, nl - at);
      at = nl + 1;
      // "0000000000401136 000000000000002a T name with spaces(int)"
      char* end = nullptr;
      const std::uint64_t start = std::strtoull(line.c_str(), &end, 16);
      if (end == line.c_str() || *end != ' ') continue;
      char* end2 = nullptr;
      const std::uint64_t length = std::strtoull(end + 1, &end2, 16);
      if (end2 == end + 1 || *end2 != ' ' || length == 0 || end2[1] == '\0' || end2[2] != ' ') {
        continue;
      }
      const char type = end2[1];
      if (type != 'T' && type != 't' && type != 'W' && type != 'w' && type != 'i') continue;
      out.push_back({start, start + length, std::string(end2 + 3)});
    }
    if (!out.empty()) break;  // the full table when there is one, else the dynamic one
  }
  std::sort(out.begin(), out.end(),
            [](const Symbol& a, const Symbol& b) { return a.start < b.start; });
  return out;
}

// The function whose extent holds `address`, or "" when none does.
std::string containing(const std::vector<Symbol>& symbols, std::uint64_t address) {
  auto it = std::upper_bound(symbols.begin(), symbols.end(), address,
                             [](std::uint64_t a, const Symbol& s) { return a < s.start; });
  // Aliases share a start; a few symbols back is enough to find the one that holds it.
  for (int back = 0; back < 8 && it != symbols.begin(); ++back) {
    --it;
    if (address < it->end) return it->name;
  }
  return "";
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
  std::string nm;
  try {
    nm = cli::resolve_program("nm");
  } catch (const InputError&) {
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
    // Frames without a line of debug information are named only by a symbol that holds them.
    std::vector<Symbol> symbols;
    bool listed = false;
    for (DoctorFrame* f : frames) {
      if (f->line > 0) continue;
      if (!listed) {
        symbols = function_symbols(nm, module);
        listed = true;
      }
      if (!symbols.empty()) f->function = containing(symbols, f->offset > 0 ? f->offset - 1 : 0);
    }
  }
  t.symbolizer = fmt::format(
      "native frames named by {} where the module has debug information, else module+offset", tool);
}

}  // namespace pinbench::experiments::doctor
