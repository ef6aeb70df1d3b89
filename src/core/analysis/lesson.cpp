#include "core/analysis/lesson.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/errors.hpp"
#include "core/stats.hpp"
#include "core/units.hpp"

namespace pinbench {

using nlohmann::json;

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::kHeld:
      return "held";
    case Verdict::kDied:
      return "died";
    case Verdict::kUndecided:
      return "undecided";
    case Verdict::kNotEvaluated:
      return "not evaluated";
  }
  return "?";
}

namespace {

// Median time of a case that passed its gate; nothing for a missing or unverified case, so a
// rate whose gate failed can never reach a table.
std::optional<double> verified_median(const Case* c) {
  if (c == nullptr || !c->verified || c->samples_ms.empty()) return std::nullopt;
  return median(c->samples_ms);
}

std::optional<double> rate(std::uint64_t bytes, std::optional<double> ms) {
  if (!ms || *ms <= 0.0) return std::nullopt;
  return gb_per_s(bytes, *ms);
}

std::vector<CopyRow> copy_rows(const RunRecord& rec, const std::string& direction,
                               const std::vector<std::uint64_t>& sizes) {
  std::vector<CopyRow> rows;
  for (std::uint64_t bytes : sizes) {
    const Case* pageable = rec.find("copy", direction, "pageable", bytes);
    const Case* pinned = rec.find("copy", direction, "pinned", bytes);
    if (pageable == nullptr && pinned == nullptr) continue;
    CopyRow r;
    r.bytes = bytes;
    r.pageable_ms = verified_median(pageable);
    r.pinned_ms = verified_median(pinned);
    r.pageable_gb_per_s = rate(bytes, r.pageable_ms);
    r.pinned_gb_per_s = rate(bytes, r.pinned_ms);
    if (r.pageable_ms && r.pinned_ms && *r.pinned_ms > 0.0) {
      r.ratio = *r.pageable_ms / *r.pinned_ms;
      r.pinned_slower = *r.pinned_ms > *r.pageable_ms;
    }
    rows.push_back(r);
  }
  return rows;
}

const CopyRow* row_at(const std::vector<CopyRow>& rows, std::uint64_t bytes) {
  for (const CopyRow& r : rows) {
    if (r.bytes == bytes) return &r;
  }
  return nullptr;
}

std::optional<double> ratio_at(const std::vector<CopyRow>& rows, std::uint64_t bytes) {
  const CopyRow* r = row_at(rows, bytes);
  return r != nullptr ? r->ratio : std::nullopt;
}

Verdict verdict_of(bool held) {
  return held ? Verdict::kHeld : Verdict::kDied;
}

// A prediction dies with any of its claims, and holds only when every claim was judged and held.
Verdict combine(const std::vector<Claim>& claims) {
  bool any_unjudged = claims.empty();
  for (const Claim& c : claims) {
    if (c.verdict == Verdict::kDied) return Verdict::kDied;
    any_unjudged = any_unjudged || c.verdict == Verdict::kNotEvaluated;
  }
  return any_unjudged ? Verdict::kNotEvaluated : Verdict::kHeld;
}

std::string ratio_list(const std::vector<CopyRow>& rows) {
  std::string s;
  for (const CopyRow& r : rows) {
    if (!s.empty()) s += ", ";
    s += fmt::format("{} {}", format_size(r.bytes),
                     r.ratio ? fmt::format("{:.2f}x", *r.ratio) : std::string("n/a"));
  }
  return s;
}

// Prediction 1, on the host-to-device sweep of part 1.
Prediction prediction_1(const std::vector<CopyRow>& h2d) {
  Prediction p;
  p.number = 1;
  p.statement =
      "Pinned beats pageable at every size and the gap grows with size; at 256 MiB pageable costs "
      "at least 1.3x pinned; if the two are within 5% everywhere the premise dies.";
  std::vector<const CopyRow*> rows;
  for (const CopyRow& r : h2d) {
    if (r.ratio) rows.push_back(&r);
  }
  const std::string missing = "no verified host-to-device pair of rows";
  if (rows.empty()) {
    for (const char* t : {"pinned faster at every size", "floor", "growth", "premise"}) {
      p.claims.push_back({t, Verdict::kNotEvaluated, missing});
    }
    return p;
  }

  Claim every{"pinned is faster than pageable at every size", Verdict::kHeld, ""};
  for (const CopyRow* r : rows) {
    if (*r->ratio <= 1.0) {
      every.verdict = Verdict::kDied;
      every.evidence += fmt::format("{}{}: ratio {:.2f}x", every.evidence.empty() ? "" : "; ",
                                    format_size(r->bytes), *r->ratio);
    }
  }
  if (every.verdict == Verdict::kHeld) {
    every.evidence = fmt::format(
        "smallest ratio {:.2f}x",
        *(*std::min_element(rows.begin(), rows.end(), [](const CopyRow* a, const CopyRow* b) {
           return *a->ratio < *b->ratio;
         }))->ratio);
  }
  p.claims.push_back(every);

  // The floor is stated at 256 MiB; a run without that size is judged at its largest size.
  const CopyRow* floor_row = rows.back();
  for (const CopyRow* r : rows) {
    if (r->bytes == 256 * kMiB) floor_row = r;
  }
  p.claims.push_back(
      {"floor: pageable costs at least 1.3x pinned at 256 MiB",
       verdict_of(*floor_row->ratio >= 1.3),
       fmt::format("{:.2f}x at {} ({:.3f} ms pageable, {:.3f} ms pinned)", *floor_row->ratio,
                   format_size(floor_row->bytes), *floor_row->pageable_ms, *floor_row->pinned_ms)});

  // "Grows" allows the 5% the page itself treats as noise between neighbouring sizes, and asks
  // that the largest size's ratio clear the smallest's by more than that.
  Claim growth{"growth: the gap grows with size", Verdict::kNotEvaluated, ""};
  if (rows.size() < 2) {
    growth.evidence = "needs at least two sizes";
  } else {
    bool grows = *rows.back()->ratio > *rows.front()->ratio * 1.05;
    std::string falls;
    for (std::size_t i = 1; i < rows.size(); ++i) {
      if (*rows[i]->ratio < *rows[i - 1]->ratio * 0.95) {
        grows = false;
        falls += fmt::format("{}falls {:.2f}x -> {:.2f}x from {} to {}", falls.empty() ? "" : "; ",
                             *rows[i - 1]->ratio, *rows[i]->ratio, format_size(rows[i - 1]->bytes),
                             format_size(rows[i]->bytes));
      }
    }
    growth.verdict = verdict_of(grows);
    growth.evidence = "ratios " + ratio_list(h2d) + (falls.empty() ? "" : " (" + falls + ")");
  }
  p.claims.push_back(growth);

  double widest = 0.0;
  for (const CopyRow* r : rows) widest = std::max(widest, std::fabs(*r->ratio - 1.0));
  p.claims.push_back({"premise: pinned and pageable differ by more than 5% somewhere",
                      verdict_of(widest > 0.05),
                      fmt::format("largest difference {:.0f}%", 100.0 * widest)});
  p.verdict = combine(p.claims);
  return p;
}

const AsyncRow* async_row(const std::vector<AsyncRow>& rows, const std::string& direction,
                          const std::string& memory) {
  for (const AsyncRow& r : rows) {
    if (r.direction == direction && r.memory == memory) return &r;
  }
  return nullptr;
}

// Prediction 2, on the host-to-device probes of part 2.
Prediction prediction_2(const std::vector<AsyncRow>& rows) {
  Prediction p;
  p.number = 2;
  p.statement =
      "The pageable cudaMemcpyAsync call holds the thread for at least 80% of the time to "
      "completion; the pinned call for under 10%.";
  struct Spec {
    const char* memory;
    const char* text;
    bool at_least;
    double bound;
  };
  for (const Spec& s : {Spec{"pageable", "pageable call share >= 80%", true, 0.80},
                        Spec{"pinned", "pinned call share < 10%", false, 0.10}}) {
    const AsyncRow* r = async_row(rows, "h2d", s.memory);
    if (r == nullptr || !r->call_share) {
      p.claims.push_back({s.text, Verdict::kNotEvaluated,
                          fmt::format("no verified host-to-device {} probe", s.memory)});
      continue;
    }
    const bool held = s.at_least ? *r->call_share >= s.bound : *r->call_share < s.bound;
    p.claims.push_back({s.text, verdict_of(held),
                        fmt::format("call {:.3f} ms of {:.3f} ms to completion: {:.1f}%",
                                    *r->call_ms, *r->completion_ms, 100.0 * *r->call_share)});
  }
  p.verdict = combine(p.claims);
  return p;
}

const KernelRow* kernel_row(const std::vector<KernelRow>& rows, const std::string& memory) {
  for (const KernelRow& r : rows) {
    if (r.memory == memory && r.ms) return &r;
  }
  return nullptr;
}

// Predicted mapped/resident time ratio when device memory runs at `device_gb_per_s` (read +
// written): each variant's time is set by the slowest link it uses, at the bytes it moves there.
double accounted_ratio(const ZeroCopyModel& m, double device_gb_per_s) {
  const double t_resident = static_cast<double>(m.resident_device_bytes) / device_gb_per_s;
  const double t_mapped = std::max(static_cast<double>(m.mapped_pcie_bytes) / m.pcie_gb_per_s,
                                   static_cast<double>(m.mapped_device_bytes) / device_gb_per_s);
  return t_mapped / t_resident;
}

ZeroCopyModel zero_copy_model(const LessonAnalysis& a) {
  ZeroCopyModel m;
  const KernelRow* resident = nullptr;
  const KernelRow* mapped = nullptr;
  const KernelRow* d2d = nullptr;
  for (const KernelRow& r : a.kernel_rows) {
    if (!r.ms) continue;
    if (r.variant == "device-resident") resident = &r;
    if (r.variant == "mapped (zero-copy)") mapped = &r;
    if (r.variant == "device-to-device copy") d2d = &r;
  }
  const CopyRow* pcie_row = row_at(a.h2d, a.config.kernel_bytes);
  if (pcie_row == nullptr || !pcie_row->pinned_gb_per_s) {
    pcie_row = nullptr;
    for (const CopyRow& r : a.h2d) {
      if (r.pinned_gb_per_s) pcie_row = &r;  // the largest verified size
    }
  }
  if (resident == nullptr || mapped == nullptr || pcie_row == nullptr) return m;

  m.available = true;
  m.bytes = resident->bytes;
  // scale_copy reads every input byte once and writes every output byte once. The output is in
  // device memory for both variants; only the input's home differs.
  m.resident_pcie_bytes = 0;
  m.resident_device_bytes = 2 * m.bytes;
  m.mapped_pcie_bytes = m.bytes;
  m.mapped_device_bytes = m.bytes;
  m.pcie_gb_per_s = *pcie_row->pinned_gb_per_s;
  m.device_gb_per_s = *resident->read_write_gb_per_s;
  m.page_predicted_ratio = m.device_gb_per_s / m.pcie_gb_per_s;
  m.accounted_predicted_ratio = accounted_ratio(m, m.device_gb_per_s);
  if (d2d != nullptr) {
    m.copy_gb_per_s = *d2d->read_write_gb_per_s;
    m.accounted_copy_rate_ratio = accounted_ratio(m, *m.copy_gb_per_s);
  }
  m.measured_ratio = *mapped->ms / *resident->ms;
  m.mapped_pcie_read_gb_per_s = gb_per_s(m.bytes, *mapped->ms);

  const double err_page = std::fabs(std::log(m.measured_ratio / m.page_predicted_ratio));
  const double err_model = std::fabs(std::log(m.measured_ratio / m.accounted_predicted_ratio));
  m.finding = fmt::format(
      "The page divides the resident kernel's read + written rate ({:.1f} GB/s) by a read-only "
      "PCIe rate ({:.1f} GB/s) and predicts {:.1f}x. Counted per link, a mapped launch moves {} "
      "across PCIe while a resident launch moves {} through device memory, so the same two rates "
      "predict {:.1f}x, half the page's figure{}. Measured: {:.1f}x, closer to the {} "
      "prediction. The mapped kernel read {:.1f} GB/s across PCIe, {:.2f}x the pinned copy "
      "engine's {:.1f} GB/s: {}",
      m.device_gb_per_s, m.pcie_gb_per_s, m.page_predicted_ratio, format_size(m.mapped_pcie_bytes),
      format_size(m.resident_device_bytes), m.accounted_predicted_ratio,
      m.accounted_copy_rate_ratio
          ? fmt::format(" ({:.1f}x if the resident kernel ran at the device-to-device copy rate "
                        "of {:.1f} GB/s)",
                        *m.accounted_copy_rate_ratio, *m.copy_gb_per_s)
          : std::string(),
      m.measured_ratio, err_model <= err_page ? "byte-accounted" : "page's",
      m.mapped_pcie_read_gb_per_s, m.mapped_pcie_read_gb_per_s / m.pcie_gb_per_s, m.pcie_gb_per_s,
      m.mapped_pcie_read_gb_per_s > 1.5 * m.pcie_gb_per_s
          ? "faster than the copy engine, even counting only the bytes that cross."
          : "once only crossing bytes count, zero-copy reads are a PCIe consumer at about the copy "
            "engine's rate, not faster than it.");
  return m;
}

// Prediction 3, on part 3 and part 1's pinned host-to-device rate.
Prediction prediction_3(const LessonAnalysis& a) {
  Prediction p;
  p.number = 3;
  p.statement =
      "The zero-copy kernel loses to the device-resident one by about the ratio of the device's "
      "bandwidth to part 1's pinned host-to-device bandwidth, within a factor of two; the "
      "resident kernel sits near the card's copy bandwidth.";
  const ZeroCopyModel& m = a.model;
  if (!m.available) {
    p.claims.push_back({"loss within 2x of the predicted ratio", Verdict::kNotEvaluated,
                        "needs verified resident and mapped kernels and a pinned H2D rate"});
    p.claims.push_back({"resident kernel near the card's copy bandwidth", Verdict::kNotEvaluated,
                        "needs a verified resident kernel"});
    return p;
  }
  const double lo = m.page_predicted_ratio / 2.0;
  const double hi = m.page_predicted_ratio * 2.0;
  p.claims.push_back(
      {"loss within 2x of the predicted ratio",
       verdict_of(m.measured_ratio >= lo && m.measured_ratio <= hi),
       fmt::format("predicted {:.2f}x (allowed {:.2f}x to {:.2f}x), measured {:.2f}x",
                   m.page_predicted_ratio, lo, hi, m.measured_ratio)});

  const KernelRow* resident = kernel_row(a.kernel_rows, "device");
  const KernelRow* d2d = nullptr;
  for (const KernelRow& r : a.kernel_rows) {
    if (r.variant == "device-to-device copy" && r.ms) d2d = &r;
  }
  if (resident == nullptr || d2d == nullptr) {
    p.claims.push_back({"resident kernel near the card's copy bandwidth", Verdict::kNotEvaluated,
                        "the record has no device-to-device copy to compare with"});
  } else {
    // "Near" is read as within a factor of 1.5 either way.
    const double f = *resident->read_write_gb_per_s / *d2d->read_write_gb_per_s;
    p.claims.push_back(
        {"resident kernel near the card's copy bandwidth (within 1.5x)",
         verdict_of(f >= 1.0 / 1.5 && f <= 1.5),
         fmt::format("kernel {:.1f} GB/s vs device copy {:.1f} GB/s (read + written): {:.2f}x",
                     *resident->read_write_gb_per_s, *d2d->read_write_gb_per_s, f)});
  }
  p.verdict = combine(p.claims);
  return p;
}

Prediction prediction_4(const std::optional<Prediction4Evidence>& evidence) {
  Prediction p;
  p.number = 4;
  p.statement =
      "In a trace, the ten timed pageable cudaMemcpyAsync calls of part 2 cost at least 5x the "
      "call time of the ten pinned ones, while both groups move the same bytes.";
  p.claims.push_back(prediction4_claim(evidence));
  p.verdict = combine(p.claims);
  return p;
}

// One line on the record's trace, for the report.
std::string trace_summary(const nlohmann::json& t) {
  if (!t.is_object()) return "";
  const auto count = [&](const char* key) { return t.value(key, std::uint64_t{0}); };
  std::string s = fmt::format("{}: {} API calls, {} copies, {} kernels, {} NVTX ranges",
                              t.value("source", std::string("a trace")), count("api_calls"),
                              count("copies"), count("kernels"), count("nvtx_ranges"));
  if (count("dropped_records") > 0) {
    s += fmt::format(", {} records dropped", count("dropped_records"));
  }
  const std::string file = t.value("file", std::string());
  if (!file.empty()) s += fmt::format("; timeline in {}", file);
  s += ".";
  for (const std::string& n : t.value("notes", std::vector<std::string>())) s += " " + n + ".";
  return s;
}

std::string direction_sentence(std::optional<double> h2d, std::optional<double> d2h,
                               std::uint64_t bytes) {
  if (!h2d || !d2h) {
    return fmt::format("No verified pair of ratios at {} in both directions.", format_size(bytes));
  }
  const double rel = *h2d / *d2h;
  if (rel > 0.9 && rel < 1.0 / 0.9) {
    return fmt::format(
        "Pinning buys about the same in both directions at {}: {:.2f}x host-to-device, {:.2f}x "
        "device-to-host.",
        format_size(bytes), *h2d, *d2h);
  }
  const bool h2d_more = *h2d > *d2h;
  return fmt::format("Pinning buys more {} at {}: {:.2f}x against {:.2f}x {}.",
                     h2d_more ? "host-to-device" : "device-to-host", format_size(bytes),
                     h2d_more ? *h2d : *d2h, h2d_more ? *d2h : *h2d,
                     h2d_more ? "device-to-host" : "host-to-device");
}

}  // namespace

LessonAnalysis analyse_lesson(const RunRecord& rec) {
  if (rec.experiment != "lesson") {
    throw InputError(
        fmt::format("the record is of experiment '{}', not of the lesson", rec.experiment));
  }
  LessonAnalysis a;
  a.config = lesson_config_from(rec.config);
  a.h2d = copy_rows(rec, "h2d", a.config.sizes);
  a.d2h = copy_rows(rec, "d2h", a.config.sizes);
  a.h2d_ratio_at = ratio_at(a.h2d, a.config.ratio_bytes);
  a.d2h_ratio_at = ratio_at(a.d2h, a.config.ratio_bytes);
  a.direction_sentence = direction_sentence(a.h2d_ratio_at, a.d2h_ratio_at, a.config.ratio_bytes);

  for (const char* direction : {"h2d", "d2h"}) {
    for (const char* memory : {"pageable", "pinned"}) {
      const Case* c = rec.find("async", direction, memory, a.config.async_bytes);
      if (c == nullptr) continue;
      AsyncRow r{direction, memory, c->bytes, std::nullopt, std::nullopt, std::nullopt};
      if (c->verified && !c->call_ms.empty() && !c->samples_ms.empty()) {
        r.call_ms = median(c->call_ms);
        r.completion_ms = median(c->samples_ms);
        if (*r.completion_ms > 0.0) r.call_share = *r.call_ms / *r.completion_ms;
      }
      a.async_rows.push_back(r);
    }
  }

  struct KernelSpec {
    const char* part;
    const char* direction;
    const char* memory;
    const char* variant;
  };
  for (const KernelSpec& k :
       {KernelSpec{"kernel", "d2d", "device", "device-resident"},
        KernelSpec{"kernel", "h2d", "mapped", "mapped (zero-copy)"},
        KernelSpec{"device_copy", "d2d", "device", "device-to-device copy"}}) {
    const Case* c = rec.find(k.part, k.direction, k.memory, a.config.kernel_bytes);
    if (c == nullptr) continue;
    KernelRow r;
    r.variant = k.variant;
    r.memory = k.memory;
    r.bytes = c->bytes;
    r.ms = verified_median(c);
    r.read_gb_per_s = rate(c->bytes, r.ms);
    r.read_write_gb_per_s = rate(2 * c->bytes, r.ms);
    a.kernel_rows.push_back(r);
  }
  a.model = zero_copy_model(a);

  if (rec.trace.is_object()) {
    try {
      a.trace_summary = trace_summary(rec.trace);
    } catch (const json::exception& e) {
      throw InputError(
          fmt::format("run record: 'trace' has a field of the wrong type ({})", e.what()));
    }
    if (rec.trace.contains("prediction4")) {
      a.trace_evidence = prediction4_from_json(rec.trace["prediction4"]);
    }
  }
  a.predictions = {prediction_1(a.h2d), prediction_2(a.async_rows), prediction_3(a),
                   prediction_4(a.trace_evidence)};

  for (const Gate& g : rec.gates) {
    if (!g.passed) a.check_failures.push_back(fmt::format("gate {} failed: {}", g.name, g.detail));
  }
  for (const auto* rows : {&a.h2d, &a.d2h}) {
    for (const CopyRow& r : *rows) {
      if (r.pinned_slower) {
        a.check_failures.push_back(fmt::format(
            "{} {}: the pinned row ({:.3f} ms) is slower than the pageable row ({:.3f} ms); the "
            "\"pinned\" buffer may not be pinned",
            rows == &a.h2d ? "host-to-device" : "device-to-host", format_size(r.bytes),
            *r.pinned_ms, *r.pageable_ms));
      }
    }
  }
  return a;
}

ReferenceComparison compare_with_reference(const LessonAnalysis& run, const RunRecord& reference) {
  const LessonAnalysis ref = analyse_lesson(reference);
  ReferenceComparison c;
  c.reference_machine = reference.machine.device_name;
  c.reference_date = reference.created_utc.substr(0, 10);
  c.bytes = run.config.ratio_bytes;
  c.run_h2d_ratio = run.h2d_ratio_at;
  c.run_d2h_ratio = run.d2h_ratio_at;
  c.ref_h2d_ratio = ratio_at(ref.h2d, c.bytes);
  c.ref_d2h_ratio = ratio_at(ref.d2h, c.bytes);
  if (c.run_h2d_ratio && c.ref_h2d_ratio) {
    const double rel = *c.run_h2d_ratio / *c.ref_h2d_ratio - 1.0;
    c.h2d_within_20_percent = std::fabs(rel) <= 0.20;
    c.summary = fmt::format(
        "Host-to-device pageable/pinned ratio at {}: {:.2f}x here, {:.2f}x on the reference "
        "({}): {:+.0f}%, {} 20%.",
        format_size(c.bytes), *c.run_h2d_ratio, *c.ref_h2d_ratio, c.reference_machine, 100.0 * rel,
        *c.h2d_within_20_percent ? "within" : "not within");
  } else {
    c.summary = fmt::format("No host-to-device ratio at {} in {}.", format_size(c.bytes),
                            c.run_h2d_ratio ? "the reference" : "this run");
  }
  if (c.run_d2h_ratio && c.ref_d2h_ratio) {
    c.summary += fmt::format(" Device-to-host: {:.2f}x here, {:.2f}x on the reference.",
                             *c.run_d2h_ratio, *c.ref_d2h_ratio);
  } else if (c.run_d2h_ratio) {
    c.summary += fmt::format(
        " The reference has no device-to-host figures; this run's ratio is "
        "{:.2f}x.",
        *c.run_d2h_ratio);
  }
  return c;
}

}  // namespace pinbench
