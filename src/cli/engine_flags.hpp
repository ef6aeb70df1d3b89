// The staged engine's settings as command-line flags, shared by `pinbench staged` and
// `pinbench pipeline` (and whatever else runs the engine). Their defaults are the library's
// (StagedCopyOptions), so the help text cannot drift from what the engine does.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "framework/engine_options.hpp"
#include "pinbench/staged_options.hpp"

namespace pinbench::cli {

struct EngineFlags {
  EngineFlags();
  std::string h2d_chunk;
  int h2d_depth = 0;
  int h2d_threads = 0;
  std::string d2h_chunk;
  int d2h_depth = 0;
  int d2h_threads = 0;
  std::string edge_chunk;
  std::string h2d_direct_below;
  std::string d2h_direct_below;
  std::string max_staging;
  bool no_streaming_drain = false;
  bool no_streaming_fill_edges = false;
  bool no_caller_copies = false;
  bool no_caller_drives = false;
  int host_threads = 0;
  std::string prefault_from;
  bool no_huge_pages = false;
};

// The ring's flags, which --tune replaces with its grid.
struct RingOptions {
  std::vector<const CLI::Option*> all;
};

RingOptions add_engine_flags(CLI::App* sub, EngineFlags& flags);

// The options the flags give; bad sizes are InputErrors (exit 2).
StagedCopyOptions engine_options(const EngineFlags& flags);

}  // namespace pinbench::cli
