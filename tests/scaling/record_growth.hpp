// Records of every kind pinbench reads, grown from a committed one to any size: the inputs of the
// scaling tests (test_scaling.cpp, python/test_scaling.py), which read each at N and 8N units and
// require the time per unit not to grow. One growth per record kind a registered experiment
// makes (its name), so a new experiment without one fails Scaling.EveryRecordKindGrows; and the
// files beside records that pinbench reads too: the doctor's event lines and BlockCopier's
// calibration tables and rules files.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pinbench::test {

// How one kind of record grows.
struct RecordGrowth {
  std::string kind;      // the record's "experiment", an Experiment's name()
  std::string unit;      // what it holds more of: "cases", "cells", "calls", "processes", "hosts"
  std::string source;    // the committed record it grows from, under the source tree
  std::size_t base = 0;  // N: the units of the smaller record the tests read (the larger: 8N)
  // The template, read and parsed, grown to `units` units (at least 1).
  std::function<nlohmann::json(const nlohmann::json& source, std::size_t units)> grow;
  // Whether `pinbench compare` reads two of them: it matches records by their cases, and a
  // fleet record keeps its hosts' cases inside its members, so compare refuses it.
  bool compared = true;
};

// Every growth, one per record kind.
const std::vector<RecordGrowth>& record_growths();
// The growth of `kind`, or nullptr.
const RecordGrowth* growth_for(const std::string& kind);

// The record of `kind` grown to `units` units, as the JSON text pinbench writes. Throws
// std::runtime_error for a kind without a growth or a template that cannot be read.
std::string grown_record(const std::string& kind, std::size_t units);

// The doctor's event lines of a program that made `calls` copy calls at `calls` / 4 call
// sites, from the committed pageable-async record's calls and sites.
std::string grown_doctor_events(std::size_t calls);

// A BlockCopier calibration table (calibration_to_json's text) of at least `points` points,
// from the committed blocks record's cells, on a grid grown in both block sizes and counts.
std::string grown_calibration(std::size_t points);
// A `blocks --recommend` rules file of `rules` rules per group, from tests/golden's.
std::string grown_rules(std::size_t rules);

// The path of the source tree's file `relative` (PINBENCH_SOURCE_DIR).
std::string source_path(const std::string& relative);

}  // namespace pinbench::test
