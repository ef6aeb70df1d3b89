// Hand-made records for analysis and report tests, the committed records, golden files, and a
// subprocess runner for CLI tests.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "framework/record.hpp"

namespace pinbench::test {

// Paths of committed data.
std::string h200_lesson_path();          // the H200 lesson run the golden files are made from
std::string h200_earlier_lesson_path();  // an earlier run of the same day, same machine
std::string h200_traced_lesson_path();   // a traced run of 2026-11-30, with its timeline
// The newest lesson run (traced, 2026-12-01, the last of six back to back), which a replay
// without a GPU picks.
std::string h200_newest_lesson_path();
std::string t4_reference_path();  // the page's published tables under data/reference/

// A complete, verified lesson record built from the figures given. Part 1 uses the page's five
// sizes; pinned_ms and pageable_ms list one median per size (each case gets exactly that sample).
struct LessonFigures {
  std::vector<double> h2d_pageable_ms{0.30, 0.93, 3.46, 14.69, 59.18};
  std::vector<double> h2d_pinned_ms{0.10, 0.36, 1.39, 5.46, 21.75};
  std::vector<double> d2h_pageable_ms{0.30, 0.90, 3.40, 13.00, 52.00};
  std::vector<double> d2h_pinned_ms{0.10, 0.36, 1.39, 5.46, 21.75};
  double async_pageable_call_ms = 14.7, async_pageable_completion_ms = 14.8;
  double async_pinned_call_ms = 0.006, async_pinned_completion_ms = 5.46;
  double resident_ms = 0.55, mapped_ms = 5.43, device_copy_ms = 0.5;
};
RunRecord make_lesson_record(const LessonFigures& f = {});

// A record of an experiment that is not the lesson, for the generic report path: experiment
// and part "sweep", methods "ce" and "sm", directions h2d and d2h, memory kinds pageable,
// pinned, registered and write-combined, sizes 4 KiB to 1 GiB in steps of 4x, three samples per
// case from a latency + bandwidth model. One case failed its gate (sm d2h write-combined
// 1 MiB), two carry `extra` annotations, and the note holds characters that need escaping.
RunRecord make_sweep_record();

// Hand-made records of the staged experiments, built from figures rather than measured:
//  - staged: h2d and d2h; staged, pinned, pageable-driver, batch-async-stream,
//    multithread-driver and register-copy-unregister at 4 KiB, 1 MiB, 64 MiB and 1 GiB, plus
//    64 MiB + 5 B at +3/+1. Host to device meets every goal; device to host misses 95% of pinned
//    at 64 MiB, and its register-copy-unregister case at 1 GiB failed its gate.
//  - staged-tune: three shapes per direction at 64 MiB and 1 GiB.
//  - pipeline: pinned and staged at 1 and 2 streams with their bounds; pinned at two streams
//    reaches 96% of the bound, staged 80%.
RunRecord make_staged_record();
RunRecord make_staged_tune_record();
RunRecord make_pipeline_record();

// A hand-made Chrome trace for the sweep record: three streams of copies and kernels.
std::string sweep_trace_path();

// Runs `command` through the shell; captures stdout and stderr separately.
struct Result {
  int exit_code = -1;
  std::string out;
  std::string err;
};
Result run(const std::string& command);

// Runs `command` in the background through the shell, waits (up to 10 s) for the file `ready` to
// appear, sends the background process `signal` ("USR1") and waits for it: what a job runner
// does to pinbench. Captures as run() does.
Result run_and_signal(const std::string& command, const std::string& ready,
                      const std::string& signal);

// A fresh empty directory under the system's temp folder.
std::string temp_dir();

// Compares `rendered` with tests/golden/NAME, after rewriting it there first when
// PINBENCH_UPDATE_GOLDEN=1. Read the diff before committing a rewritten file. A NAME ending in
// .html is compared normalised (golden_normalise.hpp): no style sheet, no chart coordinates.
void expect_matches_golden(const std::string& rendered, const std::string& name);
std::string golden_path(const std::string& name);

// Terminal text with its wrapped paragraphs joined again (a line break and the indent after it
// become one space), for tests that look for a sentence wherever the 100-column wrap broke it.
std::string unwrapped(const std::string& text);

// The CLI's own list of its subcommands and options: `pinbench help --reference` (docs/cli.md),
// read back. A test that walks it covers an option not yet written.
struct OptionRow {
  std::string names;  // "--sizes", "-h, --help", or an argument's name ("RECORD")
  std::string metavar;
  std::string meaning;  // the help's words, with the range it states: "... (0 to 60000)"
};
std::string cli_reference();
// Each subcommand's options, read from the markdown reference: "## NAME" then a table whose rows
// are "| `NAMES` | `METAVAR` | `DEFAULT` | MEANING |".
std::map<std::string, std::vector<OptionRow>> reference_options(const std::string& reference);
// The long name of an option row ("-h, --help" -> "--help"), or "" for an argument.
std::string long_name(const OptionRow& o);

std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& text);

}  // namespace pinbench::test
