#include "experiments/doctor/compare.hpp"

#include <cmath>
#include <unordered_map>

#include <fmt/format.h>

#include "experiments/doctor/trace.hpp"
#include "framework/errors.hpp"
#include "framework/printable.hpp"
#include "framework/render/text_table.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::doctor {
namespace {

DoctorAnalysis analysed(const RunRecord& r, const char* which) {
  const nlohmann::json& section = r.section(kDoctorSection);
  if (section.is_null()) {
    throw InputError(fmt::format("record {} holds no doctor trace to compare", which));
  }
  return analyse_doctor(r, doctor_trace_from_json(section));
}

// The item of `items` whose `key` member is `key`, or nullptr.
template <class T, class Key>
T* find_by(std::vector<T>& items, std::string T::*member, const Key& key) {
  for (T& item : items) {
    if (item.*member == key) return &item;
  }
  return nullptr;
}

// What changed between two figures of one row: "new", "gone", or the differences that matter.
std::string change(std::uint64_t a_count, std::uint64_t b_count, const std::string& counted,
                   const std::optional<double>& a_lost, const std::optional<double>& b_lost) {
  std::string out;
  if (b_count != a_count) {
    out = fmt::format("{} {} {}", b_count > a_count ? b_count - a_count : a_count - b_count,
                      b_count > a_count ? "more" : "fewer", counted);
  }
  if (a_lost && b_lost && std::fabs(*b_lost - *a_lost) >= 0.0005) {
    out += fmt::format("{}{:.3f} ms {} lost", out.empty() ? "" : ", ", std::fabs(*b_lost - *a_lost),
                       *b_lost > *a_lost ? "more" : "less");
  }
  return out.empty() ? "same" : out;
}

std::string ms_or_dash(const std::optional<double>& v) {
  return v ? fmt::format("{:.3f}", *v) : std::string("-");
}

}  // namespace

std::size_t DoctorComparison::new_findings() const {
  std::size_t n = 0;
  for (const DoctorFindingChange& f : findings) n += !f.a && f.b ? 1 : 0;
  return n;
}

std::size_t DoctorComparison::gone_findings() const {
  std::size_t n = 0;
  for (const DoctorFindingChange& f : findings) n += f.a && !f.b ? 1 : 0;
  return n;
}

std::size_t DoctorComparison::new_sites() const {
  std::size_t n = 0;
  for (const DoctorFindingChange& f : findings) {
    if (!f.a || !f.b) continue;
    for (const DoctorSiteChange& s : f.sites) n += !s.a && s.b ? 1 : 0;
  }
  return n;
}

DoctorComparison compare_doctor(const RunRecord& a, const RunRecord& b) {
  const DoctorAnalysis x = analysed(a, "A"), y = analysed(b, "B");
  DoctorComparison out;
  out.a_headline = x.headline;
  out.b_headline = y.headline;
  out.a_wall_ms = doctor_trace_from_json(a.section(kDoctorSection)).wall_ms;
  out.b_wall_ms = doctor_trace_from_json(b.section(kDoctorSection)).wall_ms;
  for (const DoctorFinding& f : x.findings) out.findings.push_back({f.id, f, std::nullopt, {}});
  for (const DoctorFinding& f : y.findings) {
    if (DoctorFindingChange* c = find_by(out.findings, &DoctorFindingChange::id, f.id)) {
      c->b = f;
    } else {
      out.findings.push_back({f.id, std::nullopt, f, {}});
    }
  }
  for (DoctorFindingChange& c : out.findings) {
    // A's sites by where they are, so B's are matched in one look-up each: a finding may hold a
    // site per call, 100,000 of them.
    std::unordered_map<std::string, std::size_t> at;
    if (c.a) {
      for (const DoctorSiteCost& s : c.a->sites) {
        at.emplace(s.where, c.sites.size());
        c.sites.push_back({s.where, s, std::nullopt});
      }
    }
    if (!c.b) continue;
    for (const DoctorSiteCost& s : c.b->sites) {
      const auto it = at.find(s.where);
      if (it != at.end()) {
        c.sites[it->second].b = s;
      } else {
        at.emplace(s.where, c.sites.size());
        c.sites.push_back({s.where, std::nullopt, s});
      }
    }
  }
  return out;
}

std::string render_doctor_comparison(const DoctorComparison& c) {
  std::string out = "Doctor findings, A (before) against B (after):\n";
  const auto headline = [](const std::string& h) { return h.empty() ? "no finding" : h; };
  out += fmt::format("  A: {}\n  B: {}\n", printable(headline(c.a_headline)),
                     printable(headline(c.b_headline)));
  out += fmt::format("  The program's wall time: {:.1f} ms in A, {:.1f} ms in B.\n\n", c.a_wall_ms,
                     c.b_wall_ms);
  if (c.findings.empty()) return out + "Neither record has a finding.\n";
  TextTable t({"finding / call site", "A count", "B count", "A bytes", "B bytes", "A host ms",
               "B host ms", "A lost ms", "B lost ms", "change"},
              {false, true, true, true, true, true, true, true, true, false});
  const auto count = [](const auto& v) { return v ? std::to_string(v->count) : std::string("-"); };
  const auto bytes = [](const auto& v) { return v ? format_size(v->bytes) : std::string("-"); };
  const auto host = [](const auto& v) {
    return v ? fmt::format("{:.3f}", v->host_ms) : std::string("-");
  };
  const auto lost = [](const auto& v) { return v ? ms_or_dash(v->lost_ms) : std::string("-"); };
  for (const DoctorFindingChange& f : c.findings) {
    const std::string counted = (f.a ? f.a : f.b)->counted;
    const std::string what =
        !f.a   ? "new"
        : !f.b ? "gone"
               : change(f.a->count, f.b->count, counted, f.a->lost_ms, f.b->lost_ms);
    t.add_row({f.id, count(f.a), count(f.b), bytes(f.a), bytes(f.b), host(f.a), host(f.b),
               lost(f.a), lost(f.b), what});
    for (const DoctorSiteChange& s : f.sites) {
      const std::string site_what =
          !s.a   ? "new"
          : !s.b ? "gone"
                 : change(s.a->count, s.b->count, counted, s.a->lost_ms, s.b->lost_ms);
      t.add_row({"  " + printable(s.where), count(s.a), count(s.b), bytes(s.a), bytes(s.b),
                 host(s.a), host(s.b), lost(s.a), lost(s.b), site_what});
    }
  }
  out += t.render();
  out += fmt::format(
      "\n{} in A or B: {} new in B, {} gone; {} new in B in findings A had too.{}\n",
      c.findings.size() == 1 ? "1 finding" : fmt::format("{} findings", c.findings.size()),
      c.new_findings(), c.gone_findings(),
      c.new_sites() == 1 ? "1 call site" : fmt::format("{} call sites", c.new_sites()),
      c.worse() ? " B is worse: compare exits 1." : "");
  return out;
}

}  // namespace pinbench::experiments::doctor
