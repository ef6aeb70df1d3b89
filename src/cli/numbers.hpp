// Every number the command line takes goes through one reader (framework/numbers.hpp): decimal
// only ("010" is ten, "0x10" is refused), never infinity or NaN, within the range its option
// states in the help ("(0 to 60000)"), and within the type it is read into. An option's kind is
// its metavariable (cli/help_format.hpp): N is a whole number; PCT, MS, US, SECONDS, X and GBPS
// are real numbers; SIZE, SIZES, COUNTS and RANGE are texts read by their own parser (whose
// numbers go through the one reader) while the command line is read; FILE, NAME, LIST and the
// rest are texts.
//
//   whole(sub->add_option("--flush-ms", f.flush_ms, "..."), 0, 60000)->type_name("MS");
//   real(sub->add_option("--threshold", o.percent, "..."), {0.0})->type_name("PCT");
//   read_by(sub->add_option("--budget", text, "..."), [](const std::string& v) { parse_size(v); })
//
// hold_numbers(app), called once the whole command tree is built, walks every option of every
// subcommand and refuses (std::logic_error, so pinbench cannot start) a numeric option that
// skips the reader or states no range, and an option of an unknown kind: a numeric option
// cannot be added that CLI11 would read the C way (strtoll base 0: octal, hexadecimal, -1 into
// an unsigned). An option whose range comes from CLI11's own check (CLI::Range) gets the reader
// attached by its kind, in front of that check.
#pragma once

#include <functional>
#include <limits>
#include <string>
#include <type_traits>

#include <CLI/CLI.hpp>

#include "framework/errors.hpp"
#include "framework/numbers.hpp"

namespace pinbench::cli {

// The name of the check every numeric option carries: its value read by the one reader.
inline const std::string kReaderName = "pinbench-number";

// What a validator says of an empty value: parse_error_line turns "--flag: " and it into the
// one line every empty value gets ("--flag was given an empty value; ...").
inline const std::string kEmptyValue = "an empty value";

// What an option's value is, by its metavariable.
enum class ValueKind { kText, kWhole, kReal, kParsed };

// The kind of metavariable `metavar` ("N", "SIZE", "FILE"); throws std::logic_error for one
// that is not a known metavariable.
ValueKind value_kind(const std::string& metavar);

// The reader as a CLI11 check on `o`, whose value is stored as a T: a whole number within
// [min, max] (T's own range by default), rewritten to plain decimal digits before CLI11 converts
// it. The help states the range.
template <class T>
CLI::Option* whole(CLI::Option* o, T min = std::numeric_limits<T>::lowest(),
                   T max = std::numeric_limits<T>::max()) {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>);
  return o->transform(CLI::Validator(
      [min, max](std::string& v) -> std::string {
        if (v.empty()) return kEmptyValue;
        try {
          v = std::to_string(read_whole<T>(v, min, max));
          return "";
        } catch (const InputError& e) {
          return e.what();
        }
      },
      "[" + range_words(min, max) + "]", kReaderName));
}

// The reader as a CLI11 check on `o`, whose value is stored as a double: a finite decimal number
// within `r`. The help states the range.
CLI::Option* real(CLI::Option* o, const RealRange& r);

// A text option read later by `parse`, which throws InputError: it is also read while the
// command line is, so a malformed value is a parse error naming the flag, before anything runs.
CLI::Option* read_by(CLI::Option* o, std::function<void(const std::string&)> parse);

// Walks every option of `app` and of its subcommands, as the header says. Throws
// std::logic_error naming the first option that breaks the rule.
void hold_numbers(CLI::App& app);

}  // namespace pinbench::cli
