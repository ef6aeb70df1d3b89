// A kernel's slowdown beside a copy, in percent: how much longer the kernel took while the copy
// was in flight than alone (`pinbench blocks --beside`'s `slowdown_pct`, and a point's in the
// block copier's calibration table). The values it may take are one range, read by every reader
// of such a figure (run records, the calibration cache): a copy cannot make a kernel run faster
// than alone, so below 0 is noise, allowed down to -5%; above 10,000% the kernel made less than
// 1% of its progress, a slowdown too large to state (the measurement then writes none). A figure
// outside is not a measurement: -200% or -1e308 would make the slowdown budget pick it.
#pragma once

namespace pinbench {

inline constexpr double kLeastSlowdownPct = -5.0;
inline constexpr double kMostSlowdownPct = 10000.0;

// Whether `pct` is a slowdown a measurement can give: finite, within the range above.
constexpr bool slowdown_in_range(double pct) {
  return pct >= kLeastSlowdownPct && pct <= kMostSlowdownPct;  // false for NaN
}

// Whether `pct` is a slowdown budget a caller may set (`blocks --max-slowdown`, a rules file's
// max_slowdown_pct, BlockCopierOptions::max_slowdown_pct): 0 to the most a slowdown can be. A
// budget past that admits every figure, and one below 0 none a measurement can pass.
constexpr bool slowdown_budget_in_range(double pct) {
  return pct >= 0 && pct <= kMostSlowdownPct;  // false for NaN
}

// "0 to 10000": the budget's range in words, for a refusal.
inline constexpr const char* kSlowdownBudgetWords = "a slowdown budget in percent from 0 to 10000";

}  // namespace pinbench
