// The program's own frame of a call site: its Python frame where it has one, else its first
// native frame with a line of its own, past the CUDA runtime's and the C library's; and the
// sums of a finding's calls per site.
#include "experiments/doctor/findings/sites.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "framework/report_tables.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::doctor::findings {
namespace {

// The lambda a C++ library template runs, from the template's name: code of the program's own
// inlined into std::thread's (or std::function's) machinery is named by addr2line after the
// template, "std::thread::_State_impl<...<(anonymous namespace)::work()::{lambda()#1}>
// >::_M_run()", while the line is the lambda's. "" when the name holds no lambda.
std::string lambda_in(const std::string& name) {
  const std::size_t at = name.rfind("{lambda(");
  if (at == std::string::npos) return "";
  const std::size_t close = name.find('}', at);
  if (close == std::string::npos) return "";
  // Back from the lambda to where its qualified name starts: a '<', ',' or ' ' outside brackets.
  std::size_t from = at;
  int depth = 0;
  while (from > 0) {
    const char c = name[from - 1];
    if (c == ')' || c == '>') ++depth;
    if ((c == '(' || c == '<') && depth > 0) {
      --depth;
    } else if (depth == 0 && (c == '<' || c == ',' || c == ' ')) {
      break;
    }
    --from;
  }
  std::string lambda = name.substr(from, close + 1 - from);
  const std::string anonymous = "(anonymous namespace)::";
  for (std::size_t a = lambda.find(anonymous); a != std::string::npos; a = lambda.find(anonymous))
    lambda.erase(a, anonymous.size());
  return lambda;
}

// The function a native frame's line lies in, as the program calls it.
std::string function_of(const DoctorFrame& f) {
  const bool library_template = f.function.rfind("std::", 0) == 0;
  const bool own_line = f.line > 0 && f.file.rfind("/usr/", 0) != 0;
  if (library_template && own_line) {
    const std::string lambda = lambda_in(f.function);
    if (!lambda.empty()) return lambda;
  }
  return f.function.empty() ? "?" : f.function;
}

std::string frame_text(const DoctorFrame& f) {
  if (f.python)
    return fmt::format("{}:{} in {}", f.file, f.line, f.function.empty() ? "?" : f.function);
  std::string module = f.module;
  const std::size_t slash = module.rfind('/');
  if (slash != std::string::npos) module = module.substr(slash + 1);
  if (!f.file.empty()) {
    const std::string file = std::filesystem::path(f.file).lexically_normal().string();
    return fmt::format("{} ({}:{})", function_of(f), file, f.line);
  }
  if (!f.function.empty()) return fmt::format("{} ({}+0x{:x})", f.function, module, f.offset);
  return fmt::format("{}+0x{:x}", module, f.offset);
}

// The CUDA runtime's own frames (linked statically into most programs) say nothing about where
// the program made the call.
bool runtime_frame(const DoctorFrame& f) {
  if (f.python) return false;
  const std::string& fn = f.function;
  if (f.module.find("libcudart") != std::string::npos) return true;
  if (fn.rfind("cuda", 0) == 0 || fn.rfind("__cudart", 0) == 0 || fn.rfind("cudart::", 0) == 0 ||
      fn.rfind("_ZN6cudart", 0) == 0 || fn.rfind("__cuda", 0) == 0) {
    return true;
  }
  return f.module.find("libc.so") != std::string::npos ||
         f.module.find("ld-linux") != std::string::npos;
}

}  // namespace

std::pair<std::string, std::vector<std::string>> describe(const DoctorTrace& t,
                                                          const DoctorCall& c) {
  const DoctorSite* s = c.site.empty() ? nullptr : t.find_site(c.site, c.pid);
  if (s == nullptr || s->frames.empty()) {
    // Copies of page-locked memory keep no site (docs/doctor.md): they are told apart by what
    // the call was, at least.
    const std::string what =
        doctor_api_name(c.api) + (c.direction.empty() ? "" : ", " + direction_words(c.direction));
    return {"(no call site recorded: " + what + ")", {}};
  }
  std::vector<const DoctorFrame*> program;
  for (const DoctorFrame& f : s->frames) {
    if (f.python) program.push_back(&f);
  }
  if (program.empty()) {
    for (const DoctorFrame& f : s->frames) {
      if (!runtime_frame(f)) program.push_back(&f);
    }
    // Where some frames have a line of debug information, the program's code is theirs: the
    // frames before the first of them are a library's inside (a static runtime, a thread's
    // start in the C++ library), and so are headers of the system's.
    const auto own = [](const DoctorFrame* f) {
      return f->line > 0 && f->file.rfind("/usr/include/", 0) != 0 &&
             f->file.rfind("/usr/lib/", 0) != 0;
    };
    const auto first = std::find_if(program.begin(), program.end(), own);
    if (first != program.end()) program.erase(program.begin(), first);
  }
  if (program.empty()) program.push_back(&s->frames.front());
  std::vector<std::string> below;
  for (std::size_t i = 1; i < program.size() && below.size() < 4; ++i) {
    below.push_back(frame_text(*program[i]));
  }
  return {frame_text(*program.front()), below};
}

void add_to_site(std::map<std::string, SiteSum>& sites, const DoctorTrace& t, const DoctorCall& c,
                 std::uint64_t bytes, double host, std::optional<double> lost) {
  auto [where, below] = describe(t, c);
  SiteSum& s = sites[where];
  s.cost.where = where;
  if (s.cost.frames.empty()) s.cost.frames = below;
  ++s.cost.count;
  s.cost.bytes += bytes;
  s.cost.host_ms += host;
  if (lost) {
    s.cost.lost_ms = s.cost.lost_ms.value_or(0) + *lost;
    s.any_lost = true;
  }
}

std::vector<DoctorSiteCost> ranked(const std::map<std::string, SiteSum>& sites) {
  std::vector<DoctorSiteCost> out;
  for (const auto& [where, s] : sites) out.push_back(s.cost);
  std::stable_sort(out.begin(), out.end(), [](const DoctorSiteCost& a, const DoctorSiteCost& b) {
    const double la = a.lost_ms.value_or(-1), lb = b.lost_ms.value_or(-1);
    if (la != lb) return la > lb;
    if (a.host_ms != b.host_ms) return a.host_ms > b.host_ms;
    return a.where < b.where;  // ties: a fixed order, so output does not depend on the map
  });
  return out;
}

}  // namespace pinbench::experiments::doctor::findings
