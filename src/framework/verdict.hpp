// Verdicts on the page's predictions: each prediction is split into claims, and each claim is
// held, died, undecided because of noise, or not evaluated, with the numbers that decided it.
// Shared by the lesson analysis and the trace evidence of prediction 4.
#pragma once

#include <string>
#include <vector>

namespace pinbench {

// kUndecided: the numbers lean one way, but the samples' noise leaves room for the other (the
// claim's evidence says how much); a student who runs the lesson again might see either.
enum class Verdict { kHeld, kDied, kUndecided, kNotEvaluated };
const char* to_string(Verdict v);

struct Claim {
  std::string text;
  Verdict verdict = Verdict::kNotEvaluated;
  std::string evidence;  // the numbers that decided it
};

struct Prediction {
  int number = 0;
  std::string statement;
  Verdict verdict = Verdict::kNotEvaluated;  // held only when every claim held
  std::vector<Claim> claims;
};

}  // namespace pinbench
