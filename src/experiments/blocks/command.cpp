// `pinbench blocks`: many scattered blocks moved by every method, both ways, from page-locked and
// pageable memory; --recommend FILE writes where each method wins as JSON.
#include <algorithm>

#include <fmt/format.h>

#include "cli/defaults.hpp"
#include "cli/measuring_command.hpp"
#include "cli/numbers.hpp"
#include "cli/progress.hpp"
#include "experiments/blocks/analysis.hpp"
#include "experiments/blocks/measure.hpp"
#include "experiments/blocks/plan.hpp"
#include "framework/errors.hpp"
#include "framework/numbers.hpp"
#include "framework/text.hpp"
#include "framework/text_file.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::blocks {

using namespace pinbench::cli;

std::vector<Command> commands(CLI::App& app) {
  using C = BlocksConfig;
  MeasuringCommand<C> blocks(app, "blocks", C::defaults());
  std::string method_names;
  for (BlocksMethod m : all_blocks_methods()) {
    method_names += (method_names.empty() ? "" : ",") + std::string(to_string(m));
  }
  blocks.options({
      {"--sizes", text(&C::block_sizes, parse_sizes, size_range_default(4 * kKiB, 4 * kMiB, 4)),
       "Block sizes: a list (4KiB,1MiB) or a range START:END:xF", "SIZES"},
      {"--counts", text(&C::counts, parse_block_counts, "1:4096:x4"),
       fmt::format("Blocks per call: a list (1,16) or a range START:END:xF, each 1 to {}",
                   kMaxBlocks),
       "COUNTS"},
      {"--budget", size(&C::budget_bytes), "The most bytes one cell moves (blocks x size)"},
      {"--directions", text(&C::directions, parse_directions, "h2d,d2h"), "h2d, d2h"},
      {"--memory", text(&C::memory, parse_blocks_memory, "pinned,pageable"),
       "Host memory of the arenas: pinned, pageable"},
      {"--methods", text(&C::methods, parse_blocks_methods, method_names),
       "Ways to move the blocks, comma-separated"},
      {"--sms",
       text<C>("0",
               [](C& c, const std::string& v) {
                 const std::vector<int> all =
                     parse_list<int>(v, "SM count", [](std::string_view part) {
                       try {
                         return read_whole<int>(part);  // a negative one: validate() names it
                       } catch (const InputError& e) {
                         throw InputError(std::string("SM count ") + e.what());
                       }
                     });
                 c.sms = all.front();
                 c.more_sms.assign(all.begin() + 1, all.end());
               }),
       "SMs the kernel may use, at most the device's (0: all of them); a list (0,16,32) "
       "measures the kernel at each, the further ones as methods kernel-smsN",
       "COUNTS"},
      {"--seed", value(&C::seed, 0), "Seed of the blocks' placement in the arenas"},
      {"--warmups", value(&C::warmups, 0), "Untimed runs before each case"},
      {"--force", flag(&C::force), "Allow pinning more than half of host memory"},
      {"--beside", text(&C::beside, parse_beside_kernel, "none"),
       "Run a kernel back to back beside every copy and record its slowdown: compute, memory, "
       "gemm (cuBLAS, loaded at run time)",
       "NAME"},
  });
  blocks.options(stop_rule_options<C>());
  auto recommend = std::make_shared<std::string>();
  // Given or not is the option's count: no value of it means "not given".
  auto max_slowdown = std::make_shared<double>(0.0);
  const CLI::Option* max_slowdown_option =
      real(blocks.sub().add_option("--max-slowdown", *max_slowdown,
                                   "With --recommend: rules from the methods whose kernel "
                                   "slowdown (a run with --beside) is at most PCT percent"),
           {0.0, 10000.0})  // a slowdown budget's range: base/slowdown_range.hpp
          ->type_name("PCT");
  blocks.keep_in_replay(max_slowdown_option);
  blocks.keep_in_replay(
      blocks.sub()
          .add_option("--recommend", *recommend,
                      "Write where each method wins, per direction and memory kind, as JSON a "
                      "serving engine can read (docs/blocks.md); with a replay too")
          ->type_name("FILE"));
  blocks.write_from_record(
      recommend, "recommendation",
      [recommend, max_slowdown, max_slowdown_option](const RunRecord& full) {
        const bool budget = max_slowdown_option->count() > 0;
        if (recommend->empty()) {
          if (budget)
            throw InputError("--max-slowdown shapes --recommend's rules: give --recommend FILE");
          return;
        }
        const RunRecord record = budget ? within_slowdown(full, *max_slowdown) : full;
        const BlocksAnalysis a = analyse_blocks(record);
        // Rules from nothing would read as "no method is better anywhere".
        if (std::none_of(a.crossovers.begin(), a.crossovers.end(),
                         [](const BlocksCrossover& c) { return c.cells > 0; })) {
          throw InputError(
              "--recommend: the record has no blocks cell with a verified figure, so there are no "
              "rules to write");
        }
        write_text_file(
            *recommend,
            recommend_json(record, a, budget ? std::optional<double>(*max_slowdown) : std::nullopt)
                    .dump(2) +
                "\n");
      });
  return {blocks.measure(kTables, [](C c, const MeasuringFlags&) {
    c.normalize();
    c.validate();
    return with_progress([&] { return run_blocks(c, terminal_progress); });
  })};
}

}  // namespace pinbench::experiments::blocks
