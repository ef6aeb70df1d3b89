#include "experiments/host/analysis.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "framework/case_figures.hpp"
#include "framework/errors.hpp"
#include "framework/report_model.hpp"

namespace pinbench::experiments::host {
namespace {

// A host case's GPU (its extra's "gpu"), or -1.
int host_gpu_from(const Case& c) {
  return extra_int(c, "gpu", -1);
}

// A peer case: from its GPU to the peer, whether peer access was on, and its rate.
PeerCell peer_cell_from(const Case& c) {
  return {host_gpu_from(c), extra_int(c, "peer", -1), c.extra.value("peer_access", false),
          figures_of(c).gb_per_s};
}

std::optional<double> rate(const RunRecord& r, const std::string& part, const std::string& dir,
                           const std::string& mem, int gpu) {
  for (const Case& c : r.cases) {
    if (c.part == part && c.direction == dir && c.memory == mem && host_gpu_from(c) == gpu) {
      return figures_of(c).gb_per_s;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<double> HostRow::ratio() const {
  if (!alone_gb_per_s || !together_gb_per_s || *alone_gb_per_s <= 0.0) return std::nullopt;
  return *together_gb_per_s / *alone_gb_per_s;
}

HostAnalysis analyse_host(const RunRecord& r) {
  if (r.experiment != "host") {
    throw InputError(fmt::format("a record of experiment '{}' is not a host run", r.experiment));
  }
  HostAnalysis a;
  std::vector<int> gpus;
  for (const GpuInfo& g : r.machine.gpus) gpus.push_back(g.index);
  a.gpus = static_cast<int>(gpus.size());
  for (const char* dir : {"h2d", "d2h", "bidir"}) {
    for (const char* mem : {"pinned", "pageable"}) {
      HostRow sum{dir, mem, -1, 0.0, std::nullopt};
      bool any = false;
      for (int g : gpus) {
        HostRow row{dir, mem, g, rate(r, "alone", dir, mem, g), rate(r, "together", dir, mem, g)};
        if (!row.alone_gb_per_s && !row.together_gb_per_s) continue;
        any = true;
        if (row.alone_gb_per_s && sum.alone_gb_per_s) {
          *sum.alone_gb_per_s += *row.alone_gb_per_s;
        } else {
          sum.alone_gb_per_s.reset();
        }
        a.rows.push_back(row);
      }
      if (!any) continue;
      for (const Case& c : r.cases) {
        if (c.part == "aggregate" && c.direction == dir && c.memory == mem) {
          sum.together_gb_per_s = figures_of(c).gb_per_s;
        }
      }
      a.rows.push_back(sum);
    }
  }
  for (const Case& c : r.cases) {
    if (c.part != "peer") continue;
    a.peers.push_back(peer_cell_from(c));
  }
  return a;
}

ChartSpec host_chart(const HostAnalysis& a) {
  ChartSpec chart = rate_bar_chart("host-alone-together", "Every GPU alone and all together");
  for (const HostRow& row : a.rows) {
    // With one GPU the aggregate is that GPU again.
    if (row.gpu < 0 && a.gpus < 2) continue;
    const std::string who = row.gpu < 0 ? std::string("all GPUs") : fmt::format("GPU {}", row.gpu);
    const std::string label = fmt::format("{} {} {}", who, row.memory, row.direction);
    const std::string detail = direction_words(row.direction);
    chart.bars.push_back(
        {label + (row.gpu < 0 ? " alone (sum)" : " alone"), "alone", row.alone_gb_per_s, detail});
    chart.bars.push_back({label + " together", "together", row.together_gb_per_s, detail});
  }
  chart.caption =
      "Each GPU's rate copying alone, then with every GPU's thread released at one instant; a "
      "bar missing is a failed gate. Bidirectional rates count both directions' bytes.";
  return chart;
}

std::vector<ReportTable> host_tables(const HostAnalysis& a) {
  std::vector<ReportTable> out;
  ReportTable t;
  t.id = "host-rates";
  t.title = fmt::format("Every GPU alone, then all {} together (median GB/s)", a.gpus);
  t.header = {"direction", "memory", "GPU", "alone GB/s", "together GB/s", "together/alone"};
  t.numeric = {false, false, false, true, true, true};
  for (const HostRow& row : a.rows) {
    t.rows.push_back({direction_words(row.direction), row.memory,
                      row.gpu < 0 ? std::string("all (aggregate)") : std::to_string(row.gpu),
                      figure_cell(row.alone_gb_per_s), figure_cell(row.together_gb_per_s),
                      ratio_cell(row.ratio())});
  }
  t.notes.push_back(
      "Together: every GPU's thread released at one instant; a GPU's rate is its bytes over its "
      "own interval. The aggregate is every GPU's bytes over the union of their intervals; its "
      "'alone' column is the sum of the GPUs' alone rates. Bidirectional rates count both "
      "directions' bytes.");
  out.push_back(std::move(t));
  if (!a.peers.empty()) {
    ReportTable p;
    p.id = "host-peers";
    p.title = "Peer to peer, cudaMemcpyPeerAsync (median GB/s)";
    p.header = {"from GPU", "to GPU", "without peer access", "with peer access"};
    p.numeric = {true, true, true, true};
    std::vector<std::pair<int, int>> pairs;
    for (const PeerCell& c : a.peers) {
      if (std::find(pairs.begin(), pairs.end(), std::make_pair(c.from, c.to)) == pairs.end()) {
        pairs.emplace_back(c.from, c.to);
      }
    }
    for (const auto& [from, to] : pairs) {
      std::optional<double> off, on;
      for (const PeerCell& c : a.peers) {
        if (c.from == from && c.to == to) (c.peer_access ? on : off) = c.gb_per_s;
      }
      p.rows.push_back(
          {std::to_string(from), std::to_string(to), figure_cell(off), figure_cell(on)});
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace pinbench::experiments::host
