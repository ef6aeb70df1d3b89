#include "cli/numbers.hpp"

#include <map>
#include <stdexcept>

#include <fmt/format.h>

namespace pinbench::cli {
namespace {

// The metavariables, each with its kind: those help_format.hpp's metavariables() lists.
const std::map<std::string, ValueKind>& kinds() {
  static const std::map<std::string, ValueKind> k = {
      {"FILE", ValueKind::kText},       {"DIR", ValueKind::kText},
      {"RECORD", ValueKind::kText},     {"A", ValueKind::kText},
      {"B", ValueKind::kText},          {"PROGRAM", ValueKind::kText},
      {"LIST", ValueKind::kText},       {"NAME", ValueKind::kText},
      {"SUBCOMMAND", ValueKind::kText}, {"N", ValueKind::kWhole},
      {"PCT", ValueKind::kReal},        {"MS", ValueKind::kReal},
      {"US", ValueKind::kReal},         {"SECONDS", ValueKind::kReal},
      {"X", ValueKind::kReal},          {"GBPS", ValueKind::kReal},
      {"SIZE", ValueKind::kParsed},     {"SIZES", ValueKind::kParsed},
      {"COUNTS", ValueKind::kParsed},   {"RANGE", ValueKind::kParsed}};
  return k;
}

bool has_reader(CLI::Option& o) {
  try {
    o.get_validator(kReaderName);
    return true;
  } catch (const CLI::OptionNotFound&) {
    return false;
  }
}

// The reader with no range of its own, for an option whose range a CLI11 check states: the value
// rewritten to the plain text that check, and CLI11's conversion after it, read as the same
// number.
CLI::Validator plain_reader(ValueKind kind) {
  return CLI::Validator(
      [kind](std::string& v) -> std::string {
        if (v.empty()) return kEmptyValue;
        try {
          if (kind == ValueKind::kWhole) {
            const DecimalWhole d = decimal_whole(v);
            if (d.overflow) refuse_whole(v, d.negative, "the largest whole number");
            v = (d.negative && d.magnitude != 0 ? "-" : "") + std::to_string(d.magnitude);
          } else {
            // 17 digits: CLI11's strtold, then the cast to double, land on this very double.
            v = fmt::format("{:.17g}", read_real(v));
          }
          return "";
        } catch (const InputError& e) {
          return e.what();
        }
      },
      "", kReaderName);
}

std::string where(const CLI::App& app, const CLI::Option& o) {
  const std::string command = app.get_parent() == nullptr ? "pinbench" : app.get_name();
  return fmt::format("option {} of {}", o.get_name(), command);
}

void hold_options(CLI::App& app) {
  for (CLI::Option* o : app.get_options()) {
    if (o->get_expected_max() == 0) continue;  // a flag
    const std::string full = o->get_type_name();
    const std::string metavar = full.substr(0, full.find(':'));
    const ValueKind kind = value_kind(metavar);
    if (kind == ValueKind::kText || has_reader(*o)) continue;
    const bool stated = full.find(':') != std::string::npos;  // a CLI11 check says its range
    if (kind == ValueKind::kParsed || !stated) {
      throw std::logic_error(fmt::format(
          "{} takes a {} without pinbench's number reader and a stated range (cli/numbers.hpp)",
          where(app, *o), metavar));
    }
    o->transform(plain_reader(kind), kReaderName);
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) hold_options(*sub);
}

}  // namespace

ValueKind value_kind(const std::string& metavar) {
  const auto it = kinds().find(metavar);
  if (it == kinds().end()) {
    throw std::logic_error(fmt::format("'{}' is not a metavariable of pinbench's", metavar));
  }
  return it->second;
}

CLI::Option* real(CLI::Option* o, const RealRange& r) {
  return o->transform(CLI::Validator(
      [r](std::string& v) -> std::string {
        if (v.empty()) return kEmptyValue;
        try {
          v = fmt::format("{:.17g}", read_real(v, r));
          return "";
        } catch (const InputError& e) {
          return e.what();
        }
      },
      "[" + range_words(r) + "]", kReaderName));
}

CLI::Option* read_by(CLI::Option* o, std::function<void(const std::string&)> parse) {
  return o->check(CLI::Validator(
      [parse = std::move(parse)](std::string& v) -> std::string {
        if (v.empty()) return kEmptyValue;
        try {
          parse(v);
          return "";
        } catch (const InputError& e) {
          return e.what();
        }
      },
      "", kReaderName));
}

void hold_numbers(CLI::App& app) {
  hold_options(app);
}

}  // namespace pinbench::cli
