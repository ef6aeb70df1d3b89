#include "experiments/doctor/findings/finding.hpp"

#include <fmt/format.h>

#include "experiments/doctor/findings/calls.hpp"
#include "experiments/doctor/findings/rates.hpp"
#include "framework/case_figures.hpp"
#include "framework/report_tables.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::doctor::findings {
namespace {

bool python_program(const DoctorTrace& t) {
  for (const DoctorSite& s : t.sites) {
    for (const DoctorFrame& f : s.frames) {
      if (f.python) return true;
    }
  }
  return false;
}

}  // namespace

void set_fix(DoctorFinding& f, const DoctorTrace& t, const Fix& python, const Fix& native) {
  const Fix& fix = python_program(t) ? python : native;
  f.fix = fix.text;
  f.fix_code = fix.code;
}

std::string plural(std::uint64_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

std::string about_ms(double ms) {
  return ms < 1     ? fmt::format("{:.3f}", ms)
         : ms < 100 ? fmt::format("{:.1f}", ms)
                    : fmt::format("{:.0f}", ms);
}

std::string directions_of(const std::vector<const DoctorCall*>& calls) {
  bool h2d = false, d2h = false;
  for (const DoctorCall* c : calls) {
    for (const Copy& k : c->copies) {
      if (!pageable(k)) continue;
      h2d = h2d || k.direction == CopyDirection::kH2D;
      d2h = d2h || k.direction == CopyDirection::kD2H;
    }
  }
  return h2d && d2h ? "both directions" : h2d ? "host to device" : "device to host";
}

std::string pageable_end(const std::vector<const DoctorCall*>& calls) {
  const std::string d = directions_of(calls);
  return d == "both directions"  ? "from and into pageable memory"
         : d == "host to device" ? "from pageable memory"
                                 : "into pageable memory";
}

CopyCost count_copy_call(const RunRecord& r, const DoctorCall& c, DoctorFinding& f) {
  ++f.count;
  f.bytes += host_bytes(c);
  f.host_ms += host_ms(c);
  return pinned_cost(r, c);
}

bool judge_on_host_page_tables(const RunRecord& r, const std::vector<const DoctorCall*>& calls,
                               DoctorFinding& f, DoctorAnalysis& a) {
  if (!reads_pageable_through_host_page_tables(r.machine)) return true;
  std::optional<double> worst;
  double worst_pageable = 0, worst_pinned = 0;
  bool measured = true;
  for (const DoctorCall* c : calls) {
    for (const Copy& k : c->copies) {
      if (!pageable(k)) continue;
      const Case* pg = nearest(r, to_string(k.direction), "pageable", k.bytes);
      const Case* pn = nearest(r, to_string(k.direction), "pinned", k.bytes);
      if (pg == nullptr || pn == nullptr) {
        measured = false;
        continue;
      }
      const double pageable_rate = *figures_of(*pg).gb_per_s;
      const double pinned_rate = *figures_of(*pn).gb_per_s;
      if (!worst || pageable_rate / pinned_rate < *worst) {
        worst = pageable_rate / pinned_rate;
        worst_pageable = pageable_rate;
        worst_pinned = pinned_rate;
      }
    }
  }
  const std::string why =
      "this GPU reads pageable memory through the host's page tables (HMM/ATS, as on Grace "
      "Hopper), where copies from pageable memory can run near the page-locked rate";
  if (measured && worst && *worst >= kHmmNearPinned) {
    a.not_judged.push_back(
        {f.id, fmt::format("{}; the calibration measured them at {:.2f} GB/s against {:.2f} GB/s "
                           "page-locked at the sizes used ({:.0f}%, at least the {:.0f}% doctor "
                           "takes for no pitfall): {} call{} moving {} are not a pitfall here",
                           why, worst_pageable, worst_pinned, 100 * *worst, 100 * kHmmNearPinned,
                           f.count, f.count == 1 ? "" : "s", format_size(f.bytes))});
    return false;
  }
  f.evidence.insert(
      f.evidence.begin(),
      measured && worst
          ? fmt::format("{}; here the calibration measured {:.2f} GB/s pageable against {:.2f} "
                        "GB/s page-locked ({:.0f}%, under the {:.0f}% doctor takes for no "
                        "pitfall), so the finding stands",
                        why, worst_pageable, worst_pinned, 100 * *worst, 100 * kHmmNearPinned)
          : why +
                "; no calibration measured both rates here, so the finding rests on the "
                "calls' own host time, unproven against this machine's page-locked rate");
  return true;
}

}  // namespace pinbench::experiments::doctor::findings
