// over-pinning: more than kOverPinningShare of the host's memory page-locked at once (the peak
// counted by analyse_doctor from the allocations paired with their frees).
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "experiments/doctor/findings/calls.hpp"
#include "experiments/doctor/findings/finding.hpp"
#include "experiments/doctor/findings/rates.hpp"
#include "experiments/doctor/findings/sites.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::doctor::findings {

void over_pinning(const FindingInput& in, DoctorAnalysis& a) {
  const RunRecord& r = in.record;
  const DoctorTrace& t = in.trace;
  const std::uint64_t host = r.machine.host_memory_bytes;
  if (host == 0 || a.peak_pinned_bytes == 0) return;
  const double share = static_cast<double>(a.peak_pinned_bytes) / static_cast<double>(host);
  if (share <= kOverPinningShare) return;
  DoctorFinding f;
  f.id = "over-pinning";
  f.title = "Too much host memory page-locked at once";
  std::map<std::string, SiteSum> sites;
  for (const DoctorCall& c : t.calls) {
    if (!locked_a_range(c)) continue;  // what the peak counts
    ++f.count;
    f.bytes += c.bytes;
    f.host_ms += host_ms(c);
    add_to_site(sites, t, c, c.bytes, host_ms(c), std::nullopt);
  }
  f.sites = ranked(sites);
  f.evidence.push_back(fmt::format(
      "{} page-locked at the peak: {:.1f}% of the host's {}, above the {:.0f}% pinbench flags; "
      "page-locked memory cannot be swapped or moved, so the rest of the system runs short",
      format_size(a.peak_pinned_bytes), 100 * share, format_size(host), 100 * kOverPinningShare));
  f.fix =
      "Pin transfer buffers, not data sets: stream a large data set through a few pinned "
      "buffers (pinbench's staged engine does so), and unpin what is no longer copied";
  f.fix_code =
      "pinbench::StagedCopier copier(options);   // a small pinned ring\n"
      "copier.copy_to_device(dev, pageable_data, bytes, stream);";
  a.findings.push_back(std::move(f));
}

}  // namespace pinbench::experiments::doctor::findings
