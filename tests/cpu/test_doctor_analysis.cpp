// The doctor's event parser, record section and findings on hand-made traces: each finding, its
// absence, an empty trace, ties, call sites merged, a truncated line, and every bad field.
#include <algorithm>
#include <string>

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "doctor_fixtures.hpp"
#include "experiments/doctor/analysis.hpp"
#include "experiments/doctor/events.hpp"
#include "experiments/doctor/trace.hpp"
#include "fixtures.hpp"
#include "framework/by_experiment.hpp"
#include "framework/errors.hpp"
#include "framework/experiment.hpp"
#include "framework/record.hpp"
#include "framework/render/html.hpp"
#include "framework/render/markdown.hpp"
#include "framework/render/perfetto.hpp"
#include "framework/render/svg_chart.hpp"
#include "framework/render/text.hpp"
#include "framework/report_model.hpp"
#include "framework/units.hpp"

namespace pinbench {
using namespace experiments::doctor;
namespace {

using nlohmann::json;

using namespace test;  // the hand-made traces: doctor_fixtures.hpp

TEST(DoctorParse, JoinsCopiesToTheirRuntimeCallsAndKeepsSites) {
  const DoctorTrace t = parse_doctor_events(head() + site(kSiteA, "step") + pageable_loop(3));
  EXPECT_EQ(t.processes, 1);
  EXPECT_EQ(t.cupti, "CUPTI 130001");
  ASSERT_EQ(t.calls.size(), 3u);
  ASSERT_EQ(t.calls[0].copies.size(), 1u);
  EXPECT_EQ(t.calls[0].copies[0].src_kind, DriverMemoryKind::kPageable);
  EXPECT_EQ(t.calls[0].copies[0].dst_kind, DriverMemoryKind::kDevice);
  EXPECT_EQ(t.calls[0].copies[0].direction, CopyDirection::kH2D);
  EXPECT_EQ(t.calls[0].start_ns, 20000000);  // from the H line's origin
  EXPECT_EQ(t.calls[0].end_ns, 21000000);
  EXPECT_EQ(t.unmatched_copies, 0u);
  ASSERT_EQ(t.sites.size(), 1u);
  EXPECT_EQ(t.sites[0].frames.size(), 3u);
  EXPECT_EQ(t.sites[0].frames[1].offset, 0x1234u);
}

TEST(DoctorParse, ADriverCallIsJoinedOnTheCorrelationId) {
  const DoctorTrace t =
      parse_doctor_events(head() + api("D", "copy_async", 5, 1, 2, kNone, "cuMemcpyHtoDAsync_v2") +
                          memcpy_line(5, 0, 1, kMiB, 1, 3, 1, 2));
  ASSERT_EQ(t.calls.size(), 1u);
  EXPECT_EQ(t.calls[0].domain, "driver");
  ASSERT_EQ(t.calls[0].copies.size(), 1u);
}

TEST(DoctorParse, ATruncatedLastLineAndUnknownLinesAreSkippedAndSaid) {
  std::string text = head() + pageable_loop(2) + "Q\t10\tnonsense\n";
  text += "A\t10\tR\tcopy_async\t99\t77\t10";  // cut mid-line
  const DoctorTrace t = parse_doctor_events(text);
  EXPECT_EQ(t.calls.size(), 2u);
  ASSERT_EQ(t.notes.size(), 2u);
  EXPECT_NE(t.notes[0].find("cut short"), std::string::npos);
  EXPECT_NE(t.notes[1].find("1 event line(s)"), std::string::npos);
}

TEST(DoctorParse, ASignalLineNamesTheSignalAndCopiesNoCallClaimedAreCounted) {
  const DoctorTrace t =
      parse_doctor_events(head() + memcpy_line(7, 7, 1, kMiB, 1, 3, 1, 2) + "E\t10\tsignal 11\n");
  EXPECT_EQ(t.signal, "SIGSEGV");
  EXPECT_EQ(t.unmatched_copies, 1u);
}

// A process that ended before its activity records were flushed: its calls still say what
// they copied, and where their host memory lay.
TEST(DoctorParse, CopiesWithoutActivityRecordsAreJudgedFromTheirCalls) {
  std::string text = head();
  text += api("R", "copy_async", 1, 10, 11, kSiteA, "cudaMemcpyAsync_v3020", 0x1000, kMiB, 10, 77,
              'h', 'p', 0);
  text +=
      api("R", "copy", 2, 12, 13, kNone, "cudaMemcpy_v3020", 0x2000, 2 * kMiB, 10, 77, 'd', 'P');
  text += api("R", "copy_async", 3, 14, 15, kNone, "cudaMemcpyAsync_v3020", 0, kMiB, 10, 77, '-',
              '-');  // cudaMemcpyDefault: nothing to judge by
  text += api("R", "copy_async", 4, 16, 17, kNone, "cudaMemcpyAsync_v3020", 0x3000, kMiB, 10, 77,
              'h', 'p');
  text += memcpy_line(904, 4, 1, kMiB, 1, 3, 16, 17);  // this one's record was flushed
  const DoctorTrace t = parse_doctor_events(text + site(kSiteA, "step"));
  ASSERT_EQ(t.calls.size(), 4u);
  EXPECT_TRUE(t.calls[0].from_api);
  ASSERT_EQ(t.calls[0].copies.size(), 1u);
  EXPECT_EQ(t.calls[0].copies[0].direction, CopyDirection::kH2D);
  EXPECT_EQ(t.calls[0].copies[0].src_kind, DriverMemoryKind::kPageable);
  EXPECT_EQ(t.calls[0].copies[0].dst_kind, DriverMemoryKind::kDevice);
  EXPECT_EQ(t.calls[0].copies[0].bytes, kMiB);
  EXPECT_EQ(t.calls[0].copies[0].start_ns, t.calls[0].start_ns);
  EXPECT_EQ(t.calls[0].ptr, 0x1000u);
  EXPECT_EQ(t.calls[0].numa_node, 0);
  EXPECT_TRUE(t.calls[1].from_api);
  EXPECT_EQ(t.calls[1].copies[0].direction, CopyDirection::kD2H);
  EXPECT_EQ(t.calls[1].copies[0].dst_kind, DriverMemoryKind::kPinned);
  EXPECT_EQ(t.calls[1].numa_node, -1);
  EXPECT_FALSE(t.calls[2].from_api);
  EXPECT_TRUE(t.calls[2].copies.empty());
  EXPECT_FALSE(t.calls[3].from_api);
  EXPECT_EQ(t.calls[3].copies.size(), 1u);
  ASSERT_FALSE(t.notes.empty());
  EXPECT_NE(t.notes.back().find("2 copy call(s) have no activity record"), std::string::npos)
      << t.notes.back();
  // The judged copy counts in the findings as a flushed one would.
  const DoctorAnalysis a = analyse_doctor(record_with(t), t);
  const DoctorFinding* f = find(a, "pageable-async");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 2u);
  EXPECT_EQ(f->bytes, 2 * kMiB);
}

TEST(DoctorParse, EachProcessAndHowItEnded) {
  std::string text = head(10) + head(11) + head(12) + head(13);
  text += "E\t10\texit\n";
  text += "E\t11\texec\n";
  text += head(11);  // the new image starts the collector again
  text += "E\t11\texit\n";
  text += "E\t12\t_exit\n";
  // 13 said nothing: SIGKILL
  text += "E\t14\tsignal 15\n";  // a process that never initialised CUDA but was signalled
  const DoctorTrace t = parse_doctor_events(text);
  ASSERT_EQ(t.process_list.size(), 5u);
  EXPECT_EQ(t.process_list[0].end, "exit");
  EXPECT_EQ(t.process_list[1].end, "exec, exit");
  EXPECT_EQ(t.process_list[2].end, "_exit");
  EXPECT_EQ(t.process_list[3].end, "");
  EXPECT_EQ(t.process_list[4].end, "signal SIGTERM");
  EXPECT_EQ(t.signal, "SIGTERM");
  EXPECT_EQ(t.processes, 5);  // every H line: an exec'd image starts again
}

// The collector writes its A line without snprintf (events.hpp, LineOut): what it writes must
// be what the parser reads, at the extremes too.
TEST(DoctorParse, TheCollectorsApiLineReadsBack) {
  char line[512];
  const std::size_t n = events::Api::write(
      line, sizeof line, 4242, true, events::kCopyAsync, 4000000000u, 77, 1000000 + 5000,
      1000000 + 9000, -3, 0xdeadbeefcafeull, std::uint64_t{1} << 40, 0xab, events::Api::kToHost,
      events::Api::kPageable, -1, "cudaMemcpyAsync_v3020", events::Api::kLockedUnread);
  ASSERT_GT(n, 0u);
  EXPECT_EQ(std::string(line, n),
            "A\t4242\tR\tcopy_async\t4000000000\t77\t1005000\t1009000\t-3\t0xdeadbeefcafe\t"
            "1099511627776\t00000000000000ab\td\tp\t-1\tcudaMemcpyAsync_v3020\t-\n");
  const DoctorTrace t = parse_doctor_events("H\t4242\t130001\t1000000\n" + std::string(line, n));
  ASSERT_EQ(t.calls.size(), 1u);
  EXPECT_EQ(t.calls[0].status, -3);
  EXPECT_EQ(t.calls[0].ptr, 0xdeadbeefcafeull);
  EXPECT_EQ(t.calls[0].bytes, std::uint64_t{1} << 40);
  EXPECT_EQ(t.calls[0].direction, "d2h");
  EXPECT_EQ(t.calls[0].host, "pageable");
  EXPECT_EQ(t.calls[0].numa_node, -1);
  EXPECT_FALSE(t.calls[0].locked.has_value());
  // A buffer too small still gets a line that ends with '\n' (and the parser skips it).
  char small[24];
  const std::size_t m = events::Api::write(small, sizeof small, 1, false, events::kSync, 1, 1, 1, 2,
                                           0, 0, 0, 0, '-', '-', -1, "x", '-');
  ASSERT_EQ(m, sizeof small);
  EXPECT_EQ(small[m - 1], '\n');
  EXPECT_EQ(std::string(small, m).find('\n'), m - 1);
}

// A page-locking call's line ends with the driver's word on its range after the call; a line
// written before the collector read it ends at the API's name and reads as before, with the state
// unknown; a state that is not one letter makes the line one not understood.
TEST(DoctorParse, ThePageLockedStateAfterACallAndLinesWithoutIt) {
  namespace ev = experiments::doctor::events;
  char line[512];
  const std::size_t n =
      ev::Api::write(line, sizeof line, 10, true, ev::kRegister, 5, 77, 1000000 + 1000,
                     1000000 + 2000, 1, 0x7f0000000000ull, 8 * kMiB, 0, ev::Api::kUnknown,
                     ev::Api::kUnread, -1, "cudaHostRegister_v4000", ev::Api::kLockedNo);
  const std::string failed(line, n);
  EXPECT_EQ(failed.substr(failed.size() - 25), "cudaHostRegister_v4000\tU\n");
  const std::string old_line = api("R", "register", 6, 3, 4, kNone, "cudaHostRegister_v4000",
                                   0x7f0000000000ull, 8 * kMiB, 10, 77, '-', '-', -1, 712);
  const std::string locked = api("R", "alloc", 7, 5, 6, kNone, "cudaHostAlloc_v3020",
                                 0x7e0000000000ull, kMiB, 10, 77, '-', '-', -1, 0, 'L');
  const DoctorTrace t = parse_doctor_events(head() + failed + old_line + locked);
  ASSERT_EQ(t.calls.size(), 3u);
  EXPECT_EQ(t.calls[0].status, 1);
  ASSERT_TRUE(t.calls[0].locked.has_value());
  EXPECT_FALSE(*t.calls[0].locked);
  EXPECT_EQ(t.calls[1].status, 712);
  EXPECT_FALSE(t.calls[1].locked.has_value());  // the old line: not read
  ASSERT_TRUE(t.calls[2].locked.has_value());
  EXPECT_TRUE(*t.calls[2].locked);
  EXPECT_TRUE(t.notes.empty()) << t.notes.front();
  // The record keeps it, and reads back only true or false.
  const nlohmann::json j = to_json(t);
  EXPECT_EQ(j["calls"][0]["locked"], false);
  EXPECT_FALSE(j["calls"][1].contains("locked"));
  EXPECT_EQ(j["calls"][2]["locked"], true);
  const DoctorTrace back = doctor_trace_from_json(j);
  EXPECT_EQ(back.calls[0].locked, std::optional<bool>(false));
  EXPECT_EQ(back.calls[1].locked, std::nullopt);
  EXPECT_EQ(back.calls[2].locked, std::optional<bool>(true));
  nlohmann::json bad = j;
  bad["calls"][0]["locked"] = "no";
  try {
    doctor_trace_from_json(bad);
    FAIL() << "a locked state that is not true or false was read";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "run record: 'doctor.calls[0].locked' is \"no\", not true or false");
  }
  // A state of two letters: the line is not understood, and said so.
  std::string two = locked;
  two.insert(two.size() - 1, "L");
  const DoctorTrace skipped = parse_doctor_events(head() + two);
  EXPECT_TRUE(skipped.calls.empty());
  EXPECT_EQ(skipped.notes, std::vector<std::string>{"1 event line(s) were not understood"});
}

TEST(DoctorParse, TheCollectorsCopyAndKernelLinesReadBack) {
  char copy[256], kernel[256];
  const std::size_t c = events::Memcpy::write(copy, sizeof copy, 10, 4000000000u, 7, 1, 4 * kMiB, 1,
                                              3, 1000000 + 10000, 1000000 + 11000, 13, 0, 1);
  EXPECT_EQ(std::string(copy, c),
            "M\t10\t4000000000\t7\t1\t4194304\t1\t3\t1010000\t1011000\t13\t0\t1\n");
  const std::size_t k = events::Kernel::write(kernel, sizeof kernel, 10, 9, 1000000 + 10000,
                                              1000000 + 20000, 14, "spin(int)");
  EXPECT_EQ(std::string(kernel, k), "K\t10\t9\t1010000\t1020000\t14\tspin(int)\n");
  const DoctorTrace t = parse_doctor_events(
      head() + api("R", "copy_async", 7, 10, 11, kNone, "cudaMemcpyAsync_v3020") +
      std::string(copy, c) + std::string(kernel, k));
  ASSERT_EQ(t.calls.size(), 1u);
  ASSERT_EQ(t.calls[0].copies.size(), 1u);
  EXPECT_EQ(t.calls[0].copies[0].bytes, 4 * kMiB);
  EXPECT_EQ(t.kernels_total, 1u);
}

TEST(DoctorParse, TheCollectorFileKeepsWholeLinesAndDropsCutOnes) {
  using namespace std::string_literals;
  const std::string good = head() + pageable_loop(1);
  // A hole a killed writer claimed and never filled, a line cut inside its copy, then more.
  const std::string mapped = good + std::string(40, '\0') + "A\t10\tR\tcopy"s +
                             std::string(30, '\0') + "E\t10\texit\n" + "K\t10\t1";
  std::uint64_t cut = 0;
  const std::string text = collector_lines(mapped, "E\t11\t_exit\n", cut);
  EXPECT_EQ(cut, 2u);  // the cut line and the unfinished last one; the hole is no line
  EXPECT_EQ(text, good + "E\t10\texit\n" + "E\t11\t_exit\n");
  EXPECT_EQ(collector_lines("", "", cut), "");
  EXPECT_EQ(cut, 0u);
}

TEST(DoctorParse, AnExecdImageJoinsItsOwnCopies) {
  // The same pid, two images: the second's correlation ids start again from the first's.
  std::string text = head(10) + pageable_loop(2, kNone, 1);
  text += "E\t10\texec\n" + head(10) + pageable_loop(1, kNone, 1) + "E\t10\texit\n";
  const DoctorTrace t = parse_doctor_events(text);
  ASSERT_EQ(t.calls.size(), 3u);
  for (const DoctorCall& c : t.calls) {
    ASSERT_EQ(c.copies.size(), 1u) << c.start_ns;
    EXPECT_FALSE(c.from_api);
  }
  EXPECT_EQ(t.unmatched_copies, 0u);
  ASSERT_EQ(t.process_list.size(), 1u);
  EXPECT_EQ(t.process_list[0].end, "exec, exit");
}

TEST(DoctorAnalysis, AThreadsSiteIsNamedByItsLambdaNotTheThreadMachinery) {
  DoctorTrace t = parse_doctor_events(head() + site(kSiteA, "x") + pageable_loop(3));
  // As symbolise leaves a static runtime's frame (no line, a neighbour's name removed or kept by
  // an older pinbench) and a lambda inlined into std::thread's template.
  DoctorFrame inside;
  inside.module = "/bin/app";
  inside.offset = 0x99;
  inside.function = "std::error_code::default_error_condition() const";
  DoctorFrame run;
  run.module = "/bin/app";
  run.offset = 0x1234;
  run.function =
      "std::thread::_State_impl<std::thread::_Invoker<std::tuple<(anonymous "
      "namespace)::threads()::{lambda()#1}> > >::_M_run()";
  run.file = "/src/app.cu";
  run.line = 119;
  DoctorFrame start;
  start.module = "/usr/lib/x86_64-linux-gnu/libstdc++.so.6";
  start.offset = 0xecdb4;
  t.sites[0].frames = {inside, run, start};
  const DoctorAnalysis a = analyse_doctor(record_with(t), t);
  const DoctorFinding* f = find(a, "pageable-async");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->sites.size(), 1u);
  EXPECT_EQ(f->sites[0].where, "threads()::{lambda()#1} (/src/app.cu:119)");
  ASSERT_EQ(f->sites[0].frames.size(), 1u);
  EXPECT_EQ(f->sites[0].frames[0], "libstdc++.so.6+0xecdb4");
}

TEST(DoctorReport, EachProcessIsCountedWithHowItEnded) {
  std::string text = head(10) + head(11);
  text += pageable_loop(2, kNone, 1);  // pid 10, from activity records
  text += api("R", "copy_async", 5, 90, 91, kNone, "cudaMemcpyAsync_v3020", 0x1000, kMiB, 11, 78,
              'h', 'p');  // pid 11, killed before its record was flushed
  text += "E\t10\texit\n";
  const DoctorTrace t = parse_doctor_events(text);
  const RunRecord r = record_with(t);
  const DoctorAnalysis a = analyse_doctor(r, t);
  ASSERT_EQ(a.processes.size(), 2u);
  EXPECT_EQ(a.processes[0].pid, 10);
  EXPECT_EQ(a.processes[0].end, "exit");
  EXPECT_EQ(a.processes[0].copy_calls, 2u);
  EXPECT_EQ(a.processes[0].bytes, 8 * kMiB);
  EXPECT_EQ(a.processes[0].from_api, 0u);
  EXPECT_EQ(a.processes[1].end, "");
  EXPECT_EQ(a.processes[1].copy_calls, 1u);
  EXPECT_EQ(a.processes[1].from_api, 1u);
  const ReportModel m = analyse(r);
  const auto table = std::find_if(m.tables.begin(), m.tables.end(),
                                  [](const ReportTable& x) { return x.id == "doctor-processes"; });
  ASSERT_NE(table, m.tables.end());
  ASSERT_EQ(table->rows.size(), 2u);
  EXPECT_EQ(table->rows[1][1], "without a word (SIGKILL, or an end no hook saw)");
  EXPECT_EQ(table->rows[1][4], "1");
}

TEST(DoctorParse, ABusyCuptiIsSaid) {
  const DoctorTrace t = parse_doctor_events(
      "N\t10\tcupti-busy\tCUPTI is held by another profiler or debugger (error 39)\n");
  EXPECT_EQ(t.processes, 0);
  EXPECT_NE(t.cupti.find("held by another profiler"), std::string::npos);
  const DoctorAnalysis a = analyse_doctor(record_with(t), t);
  EXPECT_FALSE(a.no_cuda);  // not "made no CUDA calls": doctor could not see
}

// "Made no CUDA calls" is what doctor saw, not what it did not: every process seen to its end
// without asking for the CUDA driver. An empty trace alone says nothing (test_unseen_cuda.cpp).
TEST(DoctorAnalysis, AProgramSeenToItsEndWithoutCudaMadeNoCudaCalls) {
  DoctorTrace t = parse_doctor_events("L\t10\nW\t10\t0\t0\n");
  t.sight.recorded = true;
  t.sight.driver.state = DriverSight::State::kLoaded;
  const RunRecord r = record_with(t);
  const DoctorAnalysis a = analyse_doctor(r, t);
  EXPECT_TRUE(a.no_cuda);
  EXPECT_TRUE(a.findings.empty());
  EXPECT_NE(render_text(analyse(r)).find("made no CUDA calls"), std::string::npos);
  const DoctorTrace empty = parse_doctor_events("");
  EXPECT_FALSE(analyse_doctor(record_with(empty), empty).no_cuda);
  EXPECT_EQ(render_text(analyse(record_with(empty))).find("made no CUDA calls"), std::string::npos);
}

TEST(DoctorAnalysis, PageableAsyncCopiesWithTheirCostAndSite) {
  DoctorTrace t = parse_doctor_events(head() + site(kSiteA, "step") + pageable_loop());
  t.wall_ms = 200;
  const DoctorAnalysis a = analyse_doctor(record_with(t), t);
  const DoctorFinding* f = find(a, "pageable-async");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 10u);
  EXPECT_EQ(f->bytes, 40 * kMiB);
  EXPECT_DOUBLE_EQ(f->host_ms, 10.0);
  ASSERT_TRUE(f->lost_ms);
  EXPECT_NEAR(*f->lost_ms, 10 * (1.0 - 0.01), 1e-9);  // each call against a 0.01 ms pinned call
  ASSERT_TRUE(f->pinned_ms);
  EXPECT_NEAR(*f->pinned_ms, 10 * 4.0 * kMiB / 40e6, 1e-9);
  ASSERT_EQ(f->sites.size(), 1u);
  EXPECT_EQ(f->sites[0].where, "step (app+0x1234)");  // the runtime's own frame is skipped
  EXPECT_EQ(f->sites[0].frames, std::vector<std::string>{"main (app+0x10)"});
  EXPECT_NEAR(*a.blocked_share, 10.0 / 200, 1e-12);
  EXPECT_EQ(find(a, "pageable-sync-loop"), nullptr);
}

TEST(DoctorAnalysis, WithTheEnginesRatePageableFindingsSayWhatAccelWouldCost) {
  DoctorTrace t = parse_doctor_events(head() + site(kSiteA, "step") + pageable_loop());
  t.wall_ms = 200;
  RunRecord r = record_with(t);
  EXPECT_FALSE(find(analyse_doctor(r, t), "pageable-async")->accel_ms);  // no engine rate yet
  Case engine = rate_case("h2d", "pageable", 4 * kMiB, 4.0 * kMiB / (32.0 * 1e6), 0.1);
  engine.method = kAccelMethod;  // the staged engine at 32 GB/s
  engine.gate = "doctor/h2d/accel";
  r.cases.push_back(engine);
  r.gates.push_back({engine.gate, true, "ok"});
  const DoctorAnalysis a = analyse_doctor(r, t);
  const DoctorFinding* f = find(a, "pageable-async");
  ASSERT_NE(f, nullptr);
  ASSERT_TRUE(f->accel_ms);
  EXPECT_NEAR(*f->accel_ms, 10 * 4.0 * kMiB / 32e6, 1e-9);
  EXPECT_NE(f->evidence.back().find("pinbench accel -- PROGRAM"), std::string::npos);
  // The page-locked rate stays the page-locked one: the engine's case is not taken for it.
  EXPECT_NEAR(*f->pinned_ms, 10 * 4.0 * kMiB / 40e6, 1e-9);
  ASSERT_FALSE(a.rates.empty());
  ASSERT_TRUE(a.rates[0].engine_gb_per_s || a.rates[1].engine_gb_per_s);
  const ReportModel m = analyse(r);
  bool column = false;
  for (const ReportTable& table : m.tables) {
    if (table.id == "doctor-rates") column = table.header.back() == "accel GB/s";
  }
  EXPECT_TRUE(column);
}

TEST(DoctorAnalysis, ACopyBelowTheEnginesThresholdCostsUnderAccelWhatItCost) {
  // 4 KiB copies: accel passes them on, so their host time under it is their own.
  std::string text = head() + site(kSiteA, "step");
  for (unsigned i = 1; i <= 3; ++i) {
    const std::uint64_t t0 = 10000 * i;
    text += api("R", "copy_async", i, t0, t0 + 500, kSiteA, "cudaMemcpyAsync_v3020");
    text += memcpy_line(900 + i, i, 1, 4096, 1, 3, t0, t0 + 500);
  }
  DoctorTrace t = parse_doctor_events(text);
  RunRecord r = record_with(t);
  Case engine = rate_case("h2d", "pageable", 4096, 0.001, 0.001);
  engine.method = kAccelMethod;
  r.cases.push_back(engine);
  const DoctorAnalysis a = analyse_doctor(r, t);
  const DoctorFinding* f = find(a, "pageable-async");
  ASSERT_NE(f, nullptr);
  ASSERT_TRUE(f->accel_ms);
  EXPECT_NEAR(*f->accel_ms, f->host_ms, 1e-9);
}

TEST(DoctorAnalysis, WithoutRatesTimeLostIsAbsent) {
  const DoctorTrace t = parse_doctor_events(head() + site(kSiteA, "step") + pageable_loop());
  const DoctorAnalysis a = analyse_doctor(record_with(t, false), t);
  const DoctorFinding* f = find(a, "pageable-async");
  ASSERT_NE(f, nullptr);
  EXPECT_FALSE(f->lost_ms);
  EXPECT_FALSE(f->pinned_ms);
}

TEST(DoctorAnalysis, PinnedCopiesAreNotAFinding) {
  std::string text = head();
  for (unsigned i = 1; i <= 10; ++i) {
    text += api("R", "copy_async", i, 10 * i, 10 * i + 1, kNone, "cudaMemcpyAsync_v3020");
    text += memcpy_line(900 + i, i, 1, 4 * kMiB, 2, 3, 10 * i, 10 * i + 1);
  }
  const DoctorTrace t = parse_doctor_events(text);
  const DoctorAnalysis a = analyse_doctor(record_with(t), t);
  EXPECT_TRUE(a.findings.empty());
  EXPECT_EQ(a.copy_calls, 10u);
  EXPECT_EQ(a.pageable_copy_calls, 0u);
}

TEST(DoctorAnalysis, OverlapPreventedIsOtherStreamsWorkThatBeganAfterTheCall) {
  // One 2 ms pageable call whose copy runs 1 ms; a kernel on another stream starts when the
  // call returns and runs 3 ms: 1 ms of it (the copy's length) could have run beside the copy.
  std::string text = head() +
                     api("R", "copy_async", 1, 10000, 12000, kNone, "cudaMemcpyAsync_v3020") +
                     memcpy_line(901, 1, 1, 4 * kMiB, 1, 3, 11000, 12000, 13) +
                     "K\t10\t2\t13000000\t16000000\t14\tkern\n";
  const DoctorTrace t = parse_doctor_events(text);
  const DoctorAnalysis a = analyse_doctor(record_with(t), t);
  const DoctorFinding* f = find(a, "pageable-async");
  ASSERT_NE(f, nullptr);
  ASSERT_TRUE(f->overlap_prevented_ms);
  EXPECT_NEAR(*f->overlap_prevented_ms, 1.0, 1e-9);
  EXPECT_EQ(a.kernels, 1u);
}

TEST(DoctorAnalysis, CallSitesThatReadTheSameAreMerged) {
  // Two processes, two site ids, one source line: one row of 6 calls.
  std::string text = head(10) + head(11) + site(kSiteA, "step", 10) + site(kSiteB, "step", 11);
  text += pageable_loop(3, kSiteA, 1);
  for (unsigned i = 0; i < 3; ++i) {
    text += api("R", "copy_async", 50 + i, 900000 + 10000 * i, 901000 + 10000 * i, kSiteB,
                "cudaMemcpyAsync_v3020", 0, 0, 11);
    text += memcpy_line(950 + i, 50 + i, 1, 4 * kMiB, 1, 3, 900000 + 10000 * i, 901000 + 10000 * i,
                        13, 11);
  }
  const DoctorTrace t = parse_doctor_events(text);
  EXPECT_EQ(t.processes, 2);
  const DoctorAnalysis a = analyse_doctor(record_with(t), t);
  const DoctorFinding* f = find(a, "pageable-async");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->sites.size(), 1u);
  EXPECT_EQ(f->sites[0].count, 6u);
}

TEST(DoctorAnalysis, TiedSitesKeepAFixedOrder) {
  std::string text = head() + site(kSiteB, "zeta") + site(kSiteA, "alpha");
  text += pageable_loop(2, kSiteB, 1) + pageable_loop(2, kSiteA, 10);
  const DoctorTrace t = parse_doctor_events(text);
  const DoctorAnalysis a = analyse_doctor(record_with(t), t);
  const DoctorFinding* f = find(a, "pageable-async");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->sites.size(), 2u);
  EXPECT_EQ(*f->sites[0].lost_ms, *f->sites[1].lost_ms);
  EXPECT_EQ(f->sites[0].where, "alpha (app+0x1234)");
  EXPECT_EQ(f->sites[1].where, "zeta (app+0x1234)");
}

TEST(DoctorAnalysis, BlockingPageableCopiesOnlyInALoop) {
  std::string text = head() + site(kSiteA, "load") + site(kSiteB, "once");
  for (unsigned i = 1; i <= 4; ++i) {
    text += api("R", "copy", i, 10000 * i, 10000 * i + 2000, kSiteA, "cudaMemcpy_v3020");
    text += memcpy_line(900 + i, i, 1, 4 * kMiB, 1, 3, 10000 * i, 10000 * i + 2000);
  }
  text += api("R", "copy", 20, 100, 102, kSiteB, "cudaMemcpy_v3020");  // twice only
  text += memcpy_line(920, 20, 2, 4 * kMiB, 3, 1, 100, 102);
  text += api("R", "copy", 21, 110, 112, kSiteB, "cudaMemcpy_v3020");
  text += memcpy_line(921, 21, 2, 4 * kMiB, 3, 1, 110, 112);
  const DoctorTrace t = parse_doctor_events(text);
  const DoctorAnalysis a = analyse_doctor(record_with(t), t);
  const DoctorFinding* f = find(a, "pageable-sync-loop");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 4u);
  EXPECT_EQ(f->bytes, 16 * kMiB);
  ASSERT_TRUE(f->lost_ms);
  EXPECT_NEAR(*f->lost_ms, 4 * (2.0 - 4.0 * kMiB / 40e6), 1e-9);
  EXPECT_EQ(find(a, "pageable-async"), nullptr);
}

TEST(DoctorAnalysis, PinnedAllocationChurnAndItsAbsence) {
  std::string text = head() + site(kSiteA, "make_buffer");
  for (unsigned i = 0; i < 4; ++i) {
    const std::uint64_t t0 = 100 * i;
    text += api("R", "alloc", 10 + i, t0, t0 + 3, kSiteA, "cudaMallocHost_v3020", 0x7000, kMiB);
    text += api("R", "free", 20 + i, t0 + 50, t0 + 52, kNone, "cudaFreeHost_v3020", 0x7000);
  }
  DoctorTrace t = parse_doctor_events(text);
  DoctorAnalysis a = analyse_doctor(record_with(t), t);
  const DoctorFinding* f = find(a, "alloc-churn");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 4u);
  EXPECT_EQ(f->bytes, 4 * kMiB);
  EXPECT_DOUBLE_EQ(f->host_ms, 4 * 0.005);
  EXPECT_DOUBLE_EQ(*f->lost_ms, 3 * 0.005);  // all but the first
  EXPECT_EQ(a.peak_pinned_bytes, kMiB);
  // Allocated once, freed at the end: no churn.
  t = parse_doctor_events(head() +
                          api("R", "alloc", 1, 0, 3, kSiteA, "cudaHostAlloc_v3020", 0x7000, kMiB) +
                          api("R", "free", 2, 500, 502, kNone, "cudaFreeHost_v3020", 0x7000));
  a = analyse_doctor(record_with(t), t);
  EXPECT_EQ(find(a, "alloc-churn"), nullptr);
}

TEST(DoctorAnalysis, OverPinningAboveTheShare) {
  const std::uint64_t big = 20 * kGiB;  // of 64 GiB: 31%
  DoctorTrace t = parse_doctor_events(
      head() + api("R", "register", 1, 0, 2000, kNone, "cudaHostRegister_v4000", 0x10000, big));
  DoctorAnalysis a = analyse_doctor(record_with(t), t);
  const DoctorFinding* f = find(a, "over-pinning");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->bytes, big);
  EXPECT_EQ(a.peak_pinned_bytes, big);
  t = parse_doctor_events(head() + api("R", "register", 1, 0, 2000, kNone, "cudaHostRegister_v4000",
                                       0x10000, 8 * kGiB));
  a = analyse_doctor(record_with(t), t);
  EXPECT_EQ(find(a, "over-pinning"), nullptr);  // 12.5%
}

TEST(DoctorAnalysis, ManagedMigrations) {
  const DoctorTrace t = parse_doctor_events(head() + "U\t10\t1\t67108864\t1001000\t1003000\n" +
                                            "U\t10\t2\t1048576\t1004000\t1005000\n" +
                                            "U\t10\t3\t12\t1004000\t1004000\n");
  const DoctorAnalysis a = analyse_doctor(record_with(t), t);
  const DoctorFinding* f = find(a, "managed-migration");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 2u);
  EXPECT_EQ(f->bytes, 65 * kMiB);
  EXPECT_DOUBLE_EQ(f->host_ms, 0.003);  // 2 us and 1 us of migration time
}

TEST(DoctorAnalysis, FindingsAreRankedByTimeLost) {
  std::string text = head() + site(kSiteA, "step") + pageable_loop(2);
  for (unsigned i = 0; i < 4; ++i) {
    const std::uint64_t t0 = 1000000 + 100000 * i;
    text += api("R", "alloc", 100 + i, t0, t0 + 4000, kSiteA, "cudaMallocHost_v3020", 0x7000, kMiB);
    text += api("R", "free", 200 + i, t0 + 5000, t0 + 6000, kNone, "cudaFreeHost_v3020", 0x7000);
  }
  const DoctorTrace t = parse_doctor_events(text);
  const DoctorAnalysis a = analyse_doctor(record_with(t), t);
  ASSERT_EQ(a.findings.size(), 2u);
  // 2 pageable calls lose 2 x 0.99 ms; 3 of the 4 allocate/free pairs lose 3 x 5 ms.
  EXPECT_EQ(a.findings[0].id, "alloc-churn");
  EXPECT_EQ(a.findings[1].id, "pageable-async");
}

TEST(DoctorRecord, TheSectionRoundTripsThroughTheRecord) {
  DoctorTrace t = parse_doctor_events(head() + site(kSiteA, "step") + pageable_loop(3));
  t.command = {"./app", "--x"};
  t.wall_ms = 12.5;
  const RunRecord r = record_with(t);
  const RunRecord back = record_from_json(to_json(r));
  const DoctorTrace u = doctor_trace_from_json(back.section("doctor"));
  EXPECT_EQ(u.command, t.command);
  EXPECT_EQ(u.calls.size(), 3u);
  EXPECT_EQ(u.calls[1].copies[0].bytes, 4 * kMiB);
  EXPECT_EQ(u.sites[0].frames[1].offset, 0x1234u);
  EXPECT_EQ(to_json(u), to_json(t));
}

TEST(DoctorRecord, EveryBadFieldIsRefusedByName) {
  const DoctorTrace t = parse_doctor_events(head() + site(kSiteA, "step") + pageable_loop(1));
  const json good = to_json(record_with(t));
  const auto refused = [&](const std::function<void(json&)>& spoil, const std::string& says) {
    json j = good;
    spoil(j);
    try {
      record_from_json(j);
      ADD_FAILURE() << "accepted: " << says;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  refused([](json& j) { j["doctor"]["calls"][0]["kind"] = "teleport"; },
          "'doctor.calls[0].kind' is 'teleport'");
  refused([](json& j) { j["doctor"]["calls"][0]["copies"][0]["bytes"] = -1; },
          "'doctor.calls[0].copies[0].bytes' is -1");
  refused([](json& j) { j["doctor"]["calls"][0]["end_ns"] = 0; }, "'doctor.calls[0].end_ns'");
  refused([](json& j) { j["doctor"]["calls"][0]["site"] = "ffff"; },
          "a call site the record does not list");
  refused([](json& j) { j["doctor"]["wall_ms"] = "soon"; }, "'doctor.wall_ms'");
  refused(
      [](json& j) {
        j["doctor"]["kernels"] = json::array({json::array({5, 1, 0})});
      },
      "'doctor.kernels[0]'");
  refused([](json& j) { j["doctor"]["sites"][0]["frames"][0]["offset"] = "12"; },
          "not a hexadecimal number");
  refused([](json& j) { j["doctor"].erase("calls"); }, "'doctor.calls' is missing");
  refused([](json& j) { j["doctor"]["calls"][0]["host"] = "swap"; },
          "'doctor.calls[0].host' is 'swap'");
  refused([](json& j) { j["doctor"]["calls"][0]["direction"] = "up"; },
          "'doctor.calls[0].direction' is 'up'");
  refused([](json& j) { j["doctor"]["calls"][0]["numa_node"] = -2; },
          "'doctor.calls[0].numa_node'");
  refused(
      [](json& j) {
        j["doctor"]["process_list"] = json::array({json{{"end", "exit"}}});
      },
      "'doctor.process_list[0].pid' is missing");
}

TEST(DoctorRecord, WhatTheCallsSaidRoundTrips) {
  std::string text = head() + head(11);
  text += api("R", "copy_async", 1, 10, 11, kNone, "cudaMemcpyAsync_v3020", 0x1000, kMiB, 10, 77,
              'h', 'p', 1);
  text += api("R", "alloc", 2, 12, 13, kNone, "cudaHostAlloc_v3020", 0x8000, 4 * kMiB, 10, 77, '-',
              '-', 0);
  text += "E\t10\t_exit\n";
  const DoctorTrace t = parse_doctor_events(text);
  const RunRecord back = record_from_json(to_json(record_with(t)));
  const DoctorTrace u = doctor_trace_from_json(back.section("doctor"));
  ASSERT_EQ(u.calls.size(), 2u);
  EXPECT_EQ(u.calls[0].direction, "h2d");
  EXPECT_EQ(u.calls[0].host, "pageable");
  EXPECT_TRUE(u.calls[0].from_api);
  EXPECT_EQ(u.calls[0].numa_node, 1);
  EXPECT_EQ(u.calls[1].numa_node, 0);
  EXPECT_EQ(u.calls[1].direction, "");
  ASSERT_EQ(u.process_list.size(), 2u);
  EXPECT_EQ(u.process_list[0].end, "_exit");
  EXPECT_EQ(u.process_list[1].end, "");
  EXPECT_EQ(to_json(u), to_json(t));
}

TEST(DoctorReport, TheModelHasAFindingTableAndAChartOfTimeLost) {
  DoctorTrace t = parse_doctor_events(head() + site(kSiteA, "step") + pageable_loop());
  t.command = {"./app"};
  t.wall_ms = 500;
  const RunRecord r = record_with(t);
  const ReportModel m = analyse(r);
  EXPECT_EQ(m.title, "pinbench doctor: ./app");
  bool table = false;
  for (const ReportTable& tab : m.tables) table = table || tab.id == "finding-pageable-async";
  EXPECT_TRUE(table);
  ASSERT_EQ(m.charts.size(), 1u);
  EXPECT_EQ(m.charts[0].bars.size(), 1u);
  const std::string text = test::unwrapped(render_text(m));
  EXPECT_NE(text.find("[pageable-async]: 10 calls, 40 MiB, 10.000 ms host time, 9.900 ms lost"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("2.0% of the program's wall time"), std::string::npos) << text;
  EXPECT_NE(text.find("cudaMallocHost(&host, bytes);"), std::string::npos) << text;
}

// Copies to the host write into pageable memory: their findings say so, and the asynchronous ones
// are a finding of their own (they return only once the data is in place).
TEST(DoctorAnalysis, ADeviceToHostFindingIsIntoPageableMemory) {
  std::string text = head() + site(kSiteA, "drain");
  for (unsigned i = 1; i <= 4; ++i) {
    text += api("R", "copy_async", i, 10000 * i, 10000 * i + 1000, kSiteA, "cudaMemcpyAsync_v3020");
    text += memcpy_line(900 + i, i, 2, 4 * kMiB, 3, 1, 10000 * i, 10000 * i + 1000);
    text +=
        api("R", "copy", 10 + i, 90000 + 10000 * i, 91000 + 10000 * i, kSiteA, "cudaMemcpy_v3020");
    text += memcpy_line(910 + i, 10 + i, 2, 4 * kMiB, 3, 1, 90000 + 10000 * i, 91000 + 10000 * i);
  }
  const DoctorTrace t = parse_doctor_events(text);
  const DoctorAnalysis a = analyse_doctor(record_with(t), t);
  EXPECT_EQ(find(a, "pageable-async"), nullptr);
  ASSERT_NE(find(a, "pageable-async-d2h"), nullptr);
  EXPECT_EQ(find(a, "pageable-async-d2h")->title,
            "Device-to-host copies into pageable memory requested as asynchronous");
  EXPECT_EQ(find(a, "pageable-async-d2h")->count, 4u);
  ASSERT_NE(find(a, "pageable-sync-loop"), nullptr);
  EXPECT_EQ(find(a, "pageable-sync-loop")->title, "Blocking copies into pageable memory in a loop");
  // To the device they read from it, and both ways are said as both.
  const DoctorTrace h2d = parse_doctor_events(head() + site(kSiteA, "step") + pageable_loop());
  EXPECT_EQ(find(analyse_doctor(record_with(h2d), h2d), "pageable-async")->title,
            "Asynchronous copies from pageable memory");
}

// The fixes name the engine's class as include/pinbench/staged_copy.hpp spells it.
TEST(DoctorAnalysis, TheFixesNameTheStagedCopier) {
  DoctorTrace t = parse_doctor_events(
      head() + site(kSiteA, "step") + pageable_loop() +
      api("R", "register", 90, 0, 2000, kNone, "cudaHostRegister_v4000", 0x10000, 20 * kGiB));
  const DoctorAnalysis a = analyse_doctor(record_with(t), t);
  ASSERT_NE(find(a, "pageable-async"), nullptr);
  ASSERT_NE(find(a, "over-pinning"), nullptr);
  EXPECT_NE(find(a, "pageable-async")->fix.find("(pinbench::StagedCopier)"), std::string::npos);
  EXPECT_EQ(find(a, "over-pinning")->fix_code,
            "pinbench::StagedCopier copier(options);   // a small pinned ring\n"
            "copier.copy_to_device(dev, pageable_data, bytes, stream);");
  for (const DoctorFinding& f : a.findings) {
    EXPECT_EQ((f.fix + f.fix_code).find("StagedCopy "), std::string::npos) << f.id;
    EXPECT_EQ((f.fix + f.fix_code).find("StagedCopy)"), std::string::npos) << f.id;
  }
}

// The fix's code keeps its line breaks in every printer: a fenced block in markdown, <pre> in
// HTML, indented lines in the terminal.
TEST(DoctorReport, TheFixCodeKeepsItsLineBreaks) {
  DoctorTrace t = parse_doctor_events(head() + site(kSiteA, "step") + pageable_loop());
  t.command = {"./app"};
  const RunRecord r = record_with(t);
  const ReportModel m = analyse(r);
  const std::string code =
      "cudaMallocHost(&host, bytes);  // instead of malloc, once\n"
      "cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, stream);";
  EXPECT_NE(render_markdown(m).find("\n```\n" + code + "\n```\n"), std::string::npos)
      << render_markdown(m);
  EXPECT_NE(render_html(r, m, {}).find("<pre><code>" + xml_escape(code) + "</code></pre>"),
            std::string::npos);
  EXPECT_NE(render_text(m).find("\n      cudaMallocHost(&host, bytes);  // instead of malloc, "
                                "once\n      cudaMemcpyAsync("),
            std::string::npos)
      << render_text(m);
}

// Without any calibration, no table of dashes: one note says no rates were calibrated.
TEST(DoctorReport, WithoutRatesOneNoteAndNoTableOfDashes) {
  DoctorTrace t = parse_doctor_events(head() + site(kSiteA, "step") + pageable_loop());
  const ReportModel m = analyse(record_with(t, false));
  for (const ReportTable& tab : m.tables) EXPECT_NE(tab.id, "doctor-rates");
  EXPECT_EQ(std::count_if(
                m.notes.begin(), m.notes.end(),
                [](const std::string& n) { return n.rfind("No rates were calibrated", 0) == 0; }),
            1);
  const ReportModel rated = analyse(record_with(t));
  EXPECT_TRUE(std::any_of(rated.tables.begin(), rated.tables.end(),
                          [](const ReportTable& tab) { return tab.id == "doctor-rates"; }));
  for (const std::string& n : rated.notes) EXPECT_EQ(n.find("No rates were calibrated"), n.npos);
}

// A doctor record made where there is no GPU: no calls, so no timeline, and no calibration. Its
// HTML report is the record without the timeline, named by nothing empty.
TEST(DoctorReport, ARecordWithNothingToDrawRendersWithoutATimeline) {
  DoctorTrace t = parse_doctor_events("");
  t.command = {"true"};
  const std::string path = test::temp_dir() + "/doctor-no-gpu.json";
  test::write_file(path, to_json(record_with(t, false)).dump(1));
  const RunRecord r = load_record(path);
  const ReportModel m = analyse(r);
  EXPECT_FALSE(m.timeline);
  const std::string html = render_html(r, m, html_extras_for(path));
  EXPECT_EQ(html.find("Timeline"), std::string::npos);
  EXPECT_NE(html.find("Rendered by pinbench report from doctor-no-gpu.json.\n"), std::string::npos)
      << html;
  // A record's own timeline names no file: no "events from ," and no "and ." at the end.
  const std::string committed =
      std::string(PINBENCH_DATA_DIR) + "/runs/doctor-pageable-async-h200-2026-12-01T100629Z.json";
  const RunRecord c = load_record(committed);
  // The record's own timeline, which its analysis put in the model: the page draws it, there
  // being no trace beside the record.
  const ReportModel own = analyse(c);
  const std::optional<Trace> calls = own.timeline;
  ASSERT_TRUE(calls);
  const std::string page = render_html(c, own, html_extras_for(committed));
  EXPECT_EQ(page.find("events from ,"), std::string::npos);
  EXPECT_EQ(page.find(" and .\n"), std::string::npos);
  EXPECT_NE(page.find(fmt::format("<figcaption>{} events, ",
                                  timeline_from_json(perfetto_json(*calls)).event_count)),
            std::string::npos);
}

}  // namespace
}  // namespace pinbench
