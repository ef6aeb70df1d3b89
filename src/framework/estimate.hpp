// A median with an interval that says how far the samples let it move, and the three-way
// judgement of a claim on it: held, died, or undecided because the interval straddles the bound.
//
// The interval is distribution-free: the order statistics x(k) and x(n+1-k) for the largest k
// with P(Binomial(n, 1/2) < k) <= 2.5%, which cover the true median with at least 95%
// probability whatever the samples' distribution (n = 10 gives x(2) to x(9)). Under nine samples
// the interval is the samples' whole range (under six, not even that reaches 95%). A bimodal case
// gets an interval that reaches across both modes, so a claim that holds in only one mode is
// undecided.
#pragma once

#include <string>
#include <vector>

#include "framework/verdict.hpp"

namespace pinbench {

struct Estimate {
  double lo = 0.0;
  double mid = 0.0;  // the median
  double hi = 0.0;
};

// Throws std::invalid_argument on no samples.
Estimate median_estimate(const std::vector<double>& samples);

// The ratio of two independently measured medians, its interval from the ends of theirs.
// `den.lo` must be above zero.
Estimate ratio_of(const Estimate& num, const Estimate& den);

// The same interval scaled by a positive constant (a time into a rate, say).
Estimate scaled(const Estimate& e, double factor);

// Held when the whole interval is at or above `bound`, died when it is all below, else undecided.
Verdict judge_at_least(const Estimate& e, double bound);
// Held when the whole interval is below `bound`, died when it is all at or above, else undecided.
Verdict judge_below(const Estimate& e, double bound);
// Held when the whole interval lies in [lo, hi], died when none of it does, else undecided.
Verdict judge_within(const Estimate& e, double lo, double hi);

// "7.63x (3.02x to 7.71x)", with `unit` after each figure.
std::string describe(const Estimate& e, const char* spec = "{:.2f}", const char* unit = "x");

}  // namespace pinbench
