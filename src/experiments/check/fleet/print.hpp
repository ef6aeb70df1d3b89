// How a fleet record ends a command, `pinbench fleet` or rank 0 of `pinbench check --mpi`: its
// text on stdout, the record and the HTML report where asked for, and the exit code.
#pragma once

#include <string>

#include "framework/record.hpp"

namespace pinbench::experiments::check {

struct FleetOutputs {
  std::string json;         // the fleet record; empty: not written
  std::string html;         // the HTML report; empty: not written
  std::string record_name;  // how the HTML report names the record it came from
  std::string prometheus;   // every GPU's figures for node_exporter's textfile collector
};

// Prints the fleet's text, writes what `out` asks for (each file whole or not at all, and a line
// saying where it went), and returns 0, or 1 when a check failed or a GPU was flagged.
int print_fleet(const RunRecord& fleet, const FleetOutputs& out);

}  // namespace pinbench::experiments::check
