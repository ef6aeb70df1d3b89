// Verdicts on what a record is judged against: the lesson's predictions and the staged engine's
// and the pipeline's goals. Each is split into claims, and each claim is held, failed, undecided
// because of noise, or not evaluated, with the numbers that decided it. Shared by the lesson
// analysis, the trace evidence of prediction 4 and the goals.
//
// One vocabulary, for every printer (text, markdown, the HTML badge, CSV): verdict_word. A
// prediction that failed "died", as the lesson's page says of a refuted prediction; a goal that
// failed was "missed", as a target is. The other words are the same for both: "held",
// "undecided", "not evaluated". Always lower case, so a word reads and sorts the same wherever
// it is printed.
#pragma once

#include <string>
#include <vector>

#include "base/enum_names.hpp"

namespace pinbench {

// kUndecided: the numbers lean one way, but the samples' noise leaves room for the other (the
// claim's evidence says how much); a student who runs the lesson again might see either.
// kDied: the numbers say no: a prediction died, a goal was missed.
enum class Verdict { kHeld, kDied, kUndecided, kNotEvaluated };

// What was judged: a prediction (the lesson's) or a goal (what the engine aims for).
enum class Judged { kPrediction, kGoal };

// The words for a verdict, the same in every printer: "held", "died" (a prediction) or "missed"
// (a goal), "undecided", "not evaluated".
inline constexpr EnumName<Verdict> kPredictionVerdictWords[] = {
    {Verdict::kHeld, "held"},
    {Verdict::kDied, "died"},
    {Verdict::kUndecided, "undecided"},
    {Verdict::kNotEvaluated, "not evaluated"}};
inline constexpr EnumName<Verdict> kGoalVerdictWords[] = {
    {Verdict::kHeld, "held"},
    {Verdict::kDied, "missed"},
    {Verdict::kUndecided, "undecided"},
    {Verdict::kNotEvaluated, "not evaluated"}};
constexpr const char* verdict_word(Verdict v, Judged what) {
  return what == Judged::kPrediction ? name_in(kPredictionVerdictWords, v)
                                     : name_in(kGoalVerdictWords, v);
}

// "Prediction" or "Goal", before an item's number.
inline constexpr EnumName<Judged> kJudgedNouns[] = {{Judged::kPrediction, "Prediction"},
                                                    {Judged::kGoal, "Goal"}};
constexpr const char* judged_noun(Judged what) {
  return name_in(kJudgedNouns, what);
}

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
