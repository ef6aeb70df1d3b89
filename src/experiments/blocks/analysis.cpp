// The blocks analysis (analysis.hpp): cells from the record's cases, the fastest method of each,
// the rules of where each method wins, and the cost of a call.
#include "experiments/blocks/analysis.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "base/slowdown_range.hpp"
#include "experiments/blocks/plan.hpp"
#include "framework/case_figures.hpp"
#include "framework/errors.hpp"
#include "framework/report_tables.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::blocks {
namespace {

const char* const kReference = to_string(BlocksMethod::kContiguous);
// Closer than this, host-clock medians of the copy engine's methods trade places from run to run.
constexpr double kTie = kBlocksTie;

std::size_t index_of(std::vector<std::string>& names, const std::string& name) {
  const auto it = std::find(names.begin(), names.end(), name);
  if (it != names.end()) return static_cast<std::size_t>(it - names.begin());
  names.push_back(name);
  return names.size() - 1;
}

void rank(BlocksCell& cell) {
  std::vector<const BlocksRate*> ranked;
  for (const BlocksRate& r : cell.rates) {
    if (r.method != kReference && r.gb_per_s) ranked.push_back(&r);
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const BlocksRate* x, const BlocksRate* y) {
    return *x->gb_per_s > *y->gb_per_s;
  });
  if (ranked.empty()) return;
  cell.fastest = ranked[0]->method;
  if (ranked.size() > 1) {
    cell.next = ranked[1]->method;
    cell.margin = *ranked[0]->gb_per_s / *ranked[1]->gb_per_s;
  }
  if (const BlocksRate* ref = cell.rate_of(kReference); ref != nullptr && ref->gb_per_s) {
    cell.of_contiguous = *ranked[0]->gb_per_s / *ref->gb_per_s;
  }
}

std::optional<double> ratio(const BlocksCell& cell, const std::string& a, const std::string& b) {
  const BlocksRate* x = cell.rate_of(a);
  const BlocksRate* y = cell.rate_of(b);
  if (x == nullptr || y == nullptr || !x->gb_per_s || !y->gb_per_s) return std::nullopt;
  return *x->gb_per_s / *y->gb_per_s;
}

// The lower middle of (figure, cell) pairs by figure: one cell's own figure, never an average.
template <typename Holder>
void set_median(Holder& h, std::vector<std::pair<double, const BlocksCell*>> v) {
  h.margin_cells = v.size();
  if (v.empty()) return;
  std::stable_sort(v.begin(), v.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  const auto& m = v[(v.size() - 1) / 2];
  h.margin = m.first;
  h.margin_cell = m.second;
}

std::vector<std::uint64_t> sorted_unique(std::vector<std::uint64_t> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

// Whether `m` is as good as the fastest method in `cell`: within kTie of its rate.
bool good(const BlocksCell& cell, const std::string& m) {
  const BlocksRate* r = cell.rate_of(m);
  const BlocksRate* best = cell.rate_of(cell.fastest);
  return r != nullptr && best != nullptr && r->gb_per_s && *r->gb_per_s * kTie >= *best->gb_per_s;
}

// The rate of the best method but `m` (the reference apart) over `m`'s, inverted: how far `m`
// stands above (or below) every other method in the cell.
std::optional<double> over_the_rest(const BlocksCell& cell, const std::string& m) {
  const BlocksRate* r = cell.rate_of(m);
  double best = 0;
  for (const BlocksRate& o : cell.rates) {
    if (o.method != m && o.method != kReference && o.gb_per_s) best = std::max(best, *o.gb_per_s);
  }
  if (r == nullptr || !r->gb_per_s || best <= 0) return std::nullopt;
  return *r->gb_per_s / best;
}

// The most block sizes, and counts, a rule's bounds are drawn from in one group. A group that
// measured more is cut into this many runs of consecutive sizes (counts), and a bound falls at a
// run's edge: the search for rules then costs the same in a group of any size beyond them, and
// the analysis stays linear in the cells.
constexpr std::size_t kMostEdges = 16;

// The runs of `values` (sorted, distinct) a bound is drawn from: one per value up to
// kMostEdges, else kMostEdges runs of near-equal length. `first[i]`, `last[i]`: run i's ends.
struct Runs {
  std::vector<std::uint64_t> first, last;
  std::size_t of(std::uint64_t v) const {
    return static_cast<std::size_t>(std::upper_bound(first.begin(), first.end(), v) -
                                    first.begin()) -
           1;
  }
};

Runs runs_of(const std::vector<std::uint64_t>& values) {
  Runs r;
  const std::size_t n = std::min(values.size(), kMostEdges);
  for (std::size_t i = 0; i < n; ++i) {
    r.first.push_back(values[i * values.size() / n]);
    r.last.push_back(values[(i + 1) * values.size() / n - 1]);
  }
  return r;
}

// The cells of a group not yet claimed by a rule, by (size run, count run), with what each run
// pair holds: how many, and in how many each method is a good pick.
struct Unclaimed {
  Runs sizes, counts;
  std::size_t methods = 0;
  std::vector<std::vector<std::size_t>> cells;  // by run pair: indices into the group's cells
  std::vector<int> inside;                      // by run pair
  std::vector<int> good;                        // by run pair, then method
  std::vector<char> good_of;                    // by cell, then method: a good pick there

  std::size_t pair(std::size_t s, std::size_t n) const { return s * counts.first.size() + n; }
};

Unclaimed unclaimed_of(const std::vector<const BlocksCell*>& cells,
                       const std::vector<std::string>& methods,
                       const std::vector<std::uint64_t>& sizes,
                       const std::vector<std::uint64_t>& counts) {
  Unclaimed u;
  u.sizes = runs_of(sizes);
  u.counts = runs_of(counts);
  u.methods = methods.size();
  const std::size_t pairs = u.sizes.first.size() * u.counts.first.size();
  u.cells.resize(pairs);
  u.inside.assign(pairs, 0);
  u.good.assign(pairs * methods.size(), 0);
  u.good_of.assign(cells.size() * methods.size(), 0);
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const BlocksCell& cell = *cells[i];
    const std::size_t p = u.pair(u.sizes.of(cell.block_bytes), u.counts.of(cell.count));
    u.cells[p].push_back(i);
    ++u.inside[p];
    for (std::size_t m = 0; m < methods.size(); ++m) {
      if (!good(cell, methods[m])) continue;
      u.good_of[i * methods.size() + m] = 1;
      ++u.good[p * methods.size() + m];
    }
  }
  return u;
}

// The best rule for method `m` over the cells not yet claimed: the rectangle of runs of sizes and
// counts that adds most cells picked well (ties: the one holding more cells, so bounds reach the
// measured edges). Its gain is 0 when no rectangle adds one. Sums over rectangles come from
// prefix sums over the run pairs.
std::pair<int, BlocksRule> best_rule(const std::string& name, std::size_t m, std::size_t fallback,
                                     const Unclaimed& u) {
  const std::size_t ns = u.sizes.first.size(), nc = u.counts.first.size();
  // gain and inside summed over run pairs [0, s) x [0, n), (ns + 1) x (nc + 1).
  std::vector<int> gain((ns + 1) * (nc + 1), 0), inside((ns + 1) * (nc + 1), 0);
  const auto at = [nc](std::size_t s, std::size_t n) { return s * (nc + 1) + n; };
  for (std::size_t s = 0; s < ns; ++s) {
    for (std::size_t n = 0; n < nc; ++n) {
      const std::size_t p = u.pair(s, n);
      const int g = u.good[p * u.methods + m] - u.good[p * u.methods + fallback];
      gain[at(s + 1, n + 1)] = g + gain[at(s, n + 1)] + gain[at(s + 1, n)] - gain[at(s, n)];
      inside[at(s + 1, n + 1)] =
          u.inside[p] + inside[at(s, n + 1)] + inside[at(s + 1, n)] - inside[at(s, n)];
    }
  }
  const auto sum = [&](const std::vector<int>& v, std::size_t s0, std::size_t s1, std::size_t n0,
                       std::size_t n1) {
    return v[at(s1 + 1, n1 + 1)] - v[at(s0, n1 + 1)] - v[at(s1 + 1, n0)] + v[at(s0, n0)];
  };
  int best_gain = 0;
  int best_cells = 0;
  BlocksRule best;
  for (std::size_t s0 = 0; s0 < ns; ++s0) {
    for (std::size_t s1 = s0; s1 < ns; ++s1) {
      for (std::size_t n0 = 0; n0 < nc; ++n0) {
        for (std::size_t n1 = n0; n1 < nc; ++n1) {
          const int g = sum(gain, s0, s1, n0, n1);
          const int in = sum(inside, s0, s1, n0, n1);
          if (g > best_gain || (g == best_gain && g > 0 && in > best_cells)) {
            best_gain = g;
            best_cells = in;
            best = BlocksRule();
            best.method = name;
            if (s0 > 0) best.min_block_bytes = u.sizes.first[s0];
            if (s1 + 1 < ns) best.max_block_bytes = u.sizes.last[s1];
            if (n0 > 0) best.min_blocks = u.counts.first[n0];
            if (n1 + 1 < nc) best.max_blocks = u.counts.last[n1];
          }
        }
      }
    }
  }
  return {best_gain, best};
}

// The rules of one group. A method is picked well in a cell when it is the fastest or within
// kTie of it, so two methods a hair apart are not told apart on noise. The default is the method
// picked well in most cells (ties: more outright wins, then the methods' order); then, while one
// adds a cell picked well, the rule (a method and a rectangle of measured sizes and counts) that
// adds most, taken first-match over the cells no earlier rule holds.
BlocksCrossover crossover(const std::vector<const BlocksCell*>& group,
                          const std::vector<std::string>& methods) {
  BlocksCrossover c;
  c.direction = group.front()->direction;
  c.memory = group.front()->memory;
  std::vector<const BlocksCell*> won;
  std::vector<std::uint64_t> sizes, counts;
  for (const BlocksCell* cell : group) {
    sizes.push_back(cell->block_bytes);
    counts.push_back(cell->count);
    if (!cell->fastest.empty()) won.push_back(cell);
  }
  sizes = sorted_unique(sizes);
  counts = sorted_unique(counts);
  c.smallest_block = sizes.front();
  c.largest_block = sizes.back();
  c.fewest = counts.front();
  c.most = counts.back();
  c.cells = won.size();
  if (won.empty()) return c;
  std::vector<std::pair<std::size_t, std::size_t>> score(methods.size());  // (good, wins)
  for (const BlocksCell* cell : won) {
    for (std::size_t i = 0; i < methods.size(); ++i) {
      score[i].first += good(*cell, methods[i]) ? 1 : 0;
      score[i].second += cell->fastest == methods[i] ? 1 : 0;
    }
  }
  std::size_t first = 0;  // the first of the best scores, in the methods' order
  for (std::size_t i = 1; i < methods.size(); ++i) {
    if (score[i] > score[first]) first = i;
  }
  c.fallback = methods[first];

  Unclaimed u = unclaimed_of(won, methods, sizes, counts);
  while (true) {
    int best_gain = 0;
    BlocksRule best;
    for (std::size_t m = 0; m < methods.size(); ++m) {
      if (m == first) continue;
      auto [gain, rule] = best_rule(methods[m], m, first, u);
      if (gain > best_gain) {
        best_gain = gain;
        best = std::move(rule);
      }
    }
    if (best_gain <= 0) break;
    // Every cell the rule holds is claimed, whether or not it picks well there.
    std::vector<std::size_t> claimed;
    for (std::size_t s = 0; s < u.sizes.first.size(); ++s) {
      for (std::size_t n = 0; n < u.counts.first.size(); ++n) {
        if (!best.covers(u.sizes.first[s], u.counts.first[n])) continue;
        const std::size_t p = u.pair(s, n);
        for (const std::size_t i : u.cells[p]) {
          --u.inside[p];
          for (std::size_t m = 0; m < u.methods; ++m)
            u.good[p * u.methods + m] -= u.good_of[i * u.methods + m];
          claimed.push_back(i);
        }
        u.cells[p].clear();
      }
    }
    std::sort(claimed.begin(), claimed.end());  // the cells' order, for the median's ties
    std::vector<std::pair<double, const BlocksCell*>> margins;
    for (const std::size_t i : claimed) {
      const BlocksCell& cell = *won[i];
      if (!good(cell, best.method)) continue;
      ++best.wins;
      if (const auto r = ratio(cell, best.method, c.fallback)) margins.emplace_back(*r, &cell);
    }
    set_median(best, std::move(margins));
    c.rules.push_back(std::move(best));
  }

  std::vector<std::pair<double, const BlocksCell*>> margins;
  for (const BlocksCell* cell : won) {
    const std::string picked = c.pick(cell->block_bytes, cell->count);
    if (!good(*cell, picked)) continue;
    ++c.right;
    if (picked != c.fallback) continue;
    if (const auto r = over_the_rest(*cell, picked)) margins.emplace_back(*r, cell);
  }
  set_median(c, std::move(margins));
  return c;
}

std::vector<BlocksCallCost> call_costs(const std::vector<const BlocksCell*>& group,
                                       const std::vector<std::string>& methods) {
  std::vector<BlocksCallCost> out;
  std::uint64_t smallest = group.front()->block_bytes;
  for (const BlocksCell* cell : group) smallest = std::min(smallest, cell->block_bytes);
  for (const std::string& m : methods) {
    const BlocksCell* few = nullptr;
    const BlocksCell* many = nullptr;
    for (const BlocksCell* cell : group) {
      const BlocksRate* r = cell->rate_of(m);
      if (cell->block_bytes != smallest || r == nullptr || !r->ms) continue;
      if (few == nullptr || cell->count < few->count) few = cell;
      if (many == nullptr || cell->count > many->count) many = cell;
    }
    if (few == nullptr) continue;
    BlocksCallCost cost;
    cost.direction = few->direction;
    cost.memory = few->memory;
    cost.method = m;
    cost.block_bytes = smallest;
    cost.fewest = few->count;
    cost.most = many->count;
    const BlocksRate& f = *few->rate_of(m);
    const BlocksRate& n = *many->rate_of(m);
    cost.fewest_us = *f.ms * 1000.0;
    if (many->count > few->count) {
      cost.per_block_us = (*n.ms - *f.ms) * 1000.0 / static_cast<double>(many->count - few->count);
    }
    cost.calls = n.calls;
    if (n.call_ms && n.calls > 0)
      cost.per_call_us = *n.call_ms * 1000.0 / static_cast<double>(n.calls);
    out.push_back(cost);
  }
  return out;
}

std::string size_words(const BlocksRule& r) {
  if (r.min_block_bytes && r.max_block_bytes) {
    return *r.min_block_bytes == *r.max_block_bytes
               ? fmt::format("blocks of {}", exact_size(*r.min_block_bytes))
               : fmt::format("blocks of {} to {}", exact_size(*r.min_block_bytes),
                             exact_size(*r.max_block_bytes));
  }
  if (r.max_block_bytes) return fmt::format("blocks of {} or less", exact_size(*r.max_block_bytes));
  if (r.min_block_bytes) return fmt::format("blocks of {} or more", exact_size(*r.min_block_bytes));
  return "blocks of any size";
}

std::string count_words(const BlocksRule& r) {
  const auto blocks = [](std::uint64_t n) { return n == 1 ? "block" : "blocks"; };
  if (r.min_blocks && r.max_blocks) {
    return *r.min_blocks == *r.max_blocks
               ? fmt::format("{} {}", *r.min_blocks, blocks(*r.min_blocks))
               : fmt::format("{} to {} blocks", *r.min_blocks, *r.max_blocks);
  }
  if (r.min_blocks) return fmt::format("{} blocks or more", *r.min_blocks);
  if (r.max_blocks) return fmt::format("at most {} {}", *r.max_blocks, blocks(*r.max_blocks));
  return "any number of blocks";
}

std::string median_words(std::size_t cells, const BlocksCell* cell) {
  return cells == 1 ? fmt::format("at {}", cell_words(cell->block_bytes, cell->count))
                    : fmt::format("median of {} cells: {}", cells,
                                  cell_words(cell->block_bytes, cell->count));
}

}  // namespace

const BlocksRate* BlocksCell::rate_of(const std::string& method) const {
  for (const BlocksRate& r : rates) {
    if (r.method == method) return &r;
  }
  return nullptr;
}

bool BlocksRule::covers(std::uint64_t block_bytes, std::uint64_t count) const {
  return (!min_block_bytes || block_bytes >= *min_block_bytes) &&
         (!max_block_bytes || block_bytes <= *max_block_bytes) &&
         (!min_blocks || count >= *min_blocks) && (!max_blocks || count <= *max_blocks);
}

std::string BlocksCrossover::pick(std::uint64_t block_bytes, std::uint64_t count) const {
  for (const BlocksRule& r : rules) {
    if (r.covers(block_bytes, count)) return r.method;
  }
  return fallback;
}

std::string cell_words(std::uint64_t block_bytes, std::uint64_t count) {
  return fmt::format("{} x {}", exact_size(block_bytes), count);
}

namespace {

// A blocks case's extra, as measure.cpp writes it: the cell's shape, the calls a sample made,
// and beside a kernel (--beside) its slowdown and the host's CPU.
struct BlocksExtra {
  std::uint64_t count = 1;
  std::uint64_t block_bytes = 0;
  std::uint64_t calls = 0;
  bool has_slowdown = false;  // the key is there, a number or not
  std::optional<double> slowdown_pct;
  std::optional<double> host_cpu_ms;
};

BlocksExtra blocks_extra_from(const Case& c) {
  const auto number = [&](const char* name) -> std::optional<double> {
    const auto it = c.extra.find(name);
    if (it == c.extra.end() || !it->is_number()) return std::nullopt;
    return it->get<double>();
  };
  BlocksExtra x;
  x.count = std::max<std::uint64_t>(1, extra_u64(c, "blocks", 1));
  x.block_bytes = extra_u64(c, "block_bytes", c.bytes / x.count);
  x.calls = extra_u64(c, "calls", 0);
  x.has_slowdown = c.extra.contains("slowdown_pct");
  x.slowdown_pct = number("slowdown_pct");
  x.host_cpu_ms = number("host_cpu_ms");
  return x;
}

// The kernel run beside the copies (config.beside.name); empty: none.
std::string beside_from(const nlohmann::json& config) {
  if (const auto b = config.find("beside");
      b != config.end() && b->is_object() && b->contains("name") && (*b)["name"].is_string()) {
    return (*b)["name"].get<std::string>();
  }
  return "";
}

}  // namespace

std::string beside_kernel(const nlohmann::json& config) {
  return beside_from(config);
}

BlocksAnalysis analyse_blocks(const RunRecord& record) {
  BlocksAnalysis a;
  a.beside = beside_from(record.config);
  std::vector<std::string> directions, memories;
  using Key = std::tuple<std::size_t, std::size_t, std::uint64_t, std::uint64_t>;
  std::map<Key, BlocksCell> cells;
  for (const Case& c : record.cases_of("blocks")) {
    const BlocksExtra x = blocks_extra_from(c);
    const std::uint64_t count = x.count;
    const std::uint64_t block = x.block_bytes;
    const Key key{index_of(directions, c.direction), index_of(memories, c.memory), block, count};
    BlocksCell& cell = cells[key];
    cell.direction = c.direction;
    cell.memory = c.memory;
    cell.block_bytes = block;
    cell.count = count;
    index_of(a.methods, c.method);
    const CaseFigures f = figures_of(c);
    BlocksRate r;
    r.method = c.method;
    r.gb_per_s = f.gb_per_s;
    if (f.samples) r.ms = f.samples->median;
    r.call_ms = f.call_median_ms;
    r.calls = x.calls;
    r.gate = c.gate;
    r.slowdown_pct = x.slowdown_pct;
    r.host_cpu_ms = x.host_cpu_ms;
    cell.rates.push_back(r);
  }
  for (auto& [key, cell] : cells) {
    rank(cell);
    a.cells.push_back(std::move(cell));
  }
  // The methods in their own order (plan.hpp), the reference last; a name pinbench does not
  // know (a newer record's) after them.
  const auto rank_of = [](const std::string& m) {
    const std::vector<BlocksMethod> all = all_blocks_methods();
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (m == to_string(all[i])) return i;
    }
    return all.size();
  };
  std::stable_sort(
      a.methods.begin(), a.methods.end(),
      [&](const std::string& x, const std::string& y) { return rank_of(x) < rank_of(y); });
  std::vector<std::string> winners;  // methods that may win: every one but the reference
  for (const std::string& m : a.methods) {
    if (m != kReference) winners.push_back(m);
  }
  for (std::size_t i = 0; i < a.cells.size();) {
    std::vector<const BlocksCell*> group;
    std::size_t j = i;
    for (; j < a.cells.size() && a.cells[j].direction == a.cells[i].direction &&
           a.cells[j].memory == a.cells[i].memory;
         ++j) {
      group.push_back(&a.cells[j]);
    }
    a.crossovers.push_back(crossover(group, winners));
    for (BlocksCallCost& cost : call_costs(group, a.methods)) a.costs.push_back(cost);
    i = j;
  }
  return a;
}

std::string crossover_words(const BlocksCrossover& c) {
  std::string head = direction_words(c.direction);
  if (!head.empty()) head[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(head[0])));
  head += fmt::format(", {} memory: ", c.memory);
  if (c.cells == 0) return head + "no method has a figure.";
  std::vector<std::string> parts;
  for (const BlocksRule& r : c.rules) {
    std::string part = fmt::format("with {} and {}, {}", size_words(r), count_words(r), r.method);
    if (r.margin) {
      part += fmt::format(", at {:.2f}x {} ({})", *r.margin, c.fallback,
                          median_words(r.margin_cells, r.margin_cell));
    }
    parts.push_back(part);
  }
  std::string fallback = parts.empty() ? c.fallback + " throughout" : "elsewhere " + c.fallback;
  if (c.margin) {
    fallback += fmt::format(", at {:.2f}x the best other method ({})", *c.margin,
                            median_words(c.margin_cells, c.margin_cell));
  }
  parts.push_back(fallback);
  std::string out = head;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? "; " : "") + parts[i];
  return out + fmt::format(
                   ". These rules pick the fastest method, or one within {:.0f}% of it, in {} of "
                   "{} cells.",
                   (kTie - 1) * 100, c.right, c.cells);
}

nlohmann::json recommend_json(const RunRecord& record, const BlocksAnalysis& a,
                              std::optional<double> max_slowdown_pct) {
  nlohmann::json choices = nlohmann::json::array();
  for (const BlocksCrossover& c : a.crossovers) {
    if (c.cells == 0) continue;
    nlohmann::json rules = nlohmann::json::array();
    for (const BlocksRule& r : c.rules) {
      nlohmann::json j = {{"method", r.method}};
      if (r.min_block_bytes) j["min_block_bytes"] = *r.min_block_bytes;
      if (r.max_block_bytes) j["max_block_bytes"] = *r.max_block_bytes;
      if (r.min_blocks) j["min_blocks"] = *r.min_blocks;
      if (r.max_blocks) j["max_blocks"] = *r.max_blocks;
      if (r.margin) j["margin"] = std::round(*r.margin * 1000.0) / 1000.0;
      rules.push_back(j);
    }
    choices.push_back({{"direction", c.direction},
                       {"memory", c.memory},
                       {"default", c.fallback},
                       {"rules", rules},
                       {"measured",
                        {{"min_block_bytes", c.smallest_block},
                         {"max_block_bytes", c.largest_block},
                         {"min_blocks", c.fewest},
                         {"max_blocks", c.most}}},
                       {"cells", c.cells},
                       {"cells_picked_well", c.right}});
  }
  nlohmann::json doc = {{"schema", "pinbench.blocks-recommend"},
                        {"version", 1},
                        {"good_within", std::round((kTie - 1) * 1000.0) / 1000.0},
                        {"measured_on",
                         {{"device", record.machine.device_name},
                          {"driver_version", record.machine.driver_version},
                          {"created_utc", record.created_utc},
                          {"pinbench_version", record.pinbench_version}}},
                        {"choices", choices}};
  if (max_slowdown_pct) {
    doc["max_slowdown_pct"] = *max_slowdown_pct;
    doc["beside"] = a.beside;
  }
  return doc;
}

RunRecord within_slowdown(const RunRecord& record, double pct) {
  if (!slowdown_budget_in_range(pct)) {
    throw InputError(fmt::format("--max-slowdown {} is not {}", pct, kSlowdownBudgetWords));
  }
  const auto has = [](const Case& c) { return blocks_extra_from(c).has_slowdown; };
  if (std::none_of(record.cases.begin(), record.cases.end(), has)) {
    throw InputError(
        "--max-slowdown: the record has no slowdown figures; measure with --beside KERNEL");
  }
  RunRecord out = record;
  out.cases.clear();
  for (const Case& c : record.cases) {
    const bool reference = c.method == kReference;
    const std::optional<double> slowdown = blocks_extra_from(c).slowdown_pct;
    if (reference || (slowdown && *slowdown <= pct)) {
      out.cases.push_back(c);
    }
  }
  return out;
}

CaseShape blocks_case_shape(const Case& c) {
  const BlocksExtra x = blocks_extra_from(c);
  return {{x.block_bytes, x.count}, fmt::format("{} x {}", x.count, format_size(x.block_bytes))};
}

}  // namespace pinbench::experiments::blocks
