// A measuring subcommand, declared once: its options as a table, each bound to a field of the
// experiment's config (so the help shows the config's own default and nothing copies flags into
// a config by hand), then the outputs and replay flags every measuring subcommand has, and the
// function that measures. The command line's config is the experiment's defaults with every
// option given applied. Numbers are read by the one number reader within their stated range
// (cli/numbers.hpp), and texts (sizes, lists) by their parsers, while the command line is read,
// so bad input is exit 2 before the GPU is asked for, and so is the config's own validate().
//
//   MeasuringCommand<RaceConfig> race(app, "race", {});  // its help: race.help
//   race.options({{"--size", size(&RaceConfig::bytes), "Bytes per copy"},
//                 {"--trials", value(&RaceConfig::trials, 1), "Copies per mode"}});
//   return race.measure(kJsonOnly, [](RaceConfig c, const MeasuringFlags&) {
//     c.validate();
//     return run_race(c);
//   });
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/command_help.hpp"
#include "cli/commands.hpp"
#include "cli/defaults.hpp"
#include "cli/numbers.hpp"
#include "cli/outputs.hpp"
#include "cli/replay.hpp"
#include "cli/trace_option.hpp"
#include "framework/errors.hpp"
#include "framework/record.hpp"
#include "framework/sampling.hpp"
#include "framework/units.hpp"

namespace pinbench::cli {

// What the options of one subcommand are bound to while the command line is read: a copy of the
// config's defaults that CLI11 writes numbers and flags into, and the texts parsed later.
template <class Config>
class ConfigBinding {
 public:
  using Parse = std::function<void(Config&, const std::string&)>;

  explicit ConfigBinding(Config defaults) : defaults_(defaults), bound_(std::move(defaults)) {}

  const Config& defaults() const { return defaults_; }
  Config& bound() { return bound_; }

  // Adds FLAG as a text option: when given, `parse` reads its text into the config. It reads it
  // once more while the command line is read (into a copy of the defaults), so a malformed value
  // is refused, naming its flag, before anything runs.
  CLI::Option* add_text(CLI::App& sub, const std::string& flag, const std::string& help,
                        const std::string& shown, Parse parse) {
    Text& t = texts_.emplace_back();
    t.parse = std::move(parse);
    t.option = sub.add_option(flag, t.value, help)->default_str(shown)->type_name("LIST");
    read_by(t.option, [this, &t](const std::string& v) {
      Config scratch = defaults_;
      t.parse(scratch, v);
    });
    return t.option;
  }

  // The config the command line asks for: the defaults, with every option given applied. A text
  // that does not parse is an InputError that names its flag first ("--sizes: ...").
  Config config() const {
    Config c = bound_;
    for (const Text& t : texts_) {
      if (t.option->count() == 0) continue;
      try {
        t.parse(c, t.value);
      } catch (const InputError& e) {
        throw InputError(flagged(t.option->get_name(), e.what()));
      }
    }
    return c;
  }

 private:
  struct Text {
    std::string value;
    Parse parse;
    CLI::Option* option = nullptr;
  };
  Config defaults_;
  Config bound_;
  std::deque<Text> texts_;  // a deque: CLI11 holds a reference to each value
};

// One row of a subcommand's option table: the flag, how it binds to the config, the help.
template <class Config>
struct ConfigOption {
  using Bind = std::function<CLI::Option*(CLI::App&, const std::string& flag,
                                          const std::string& help, ConfigBinding<Config>&)>;
  std::string flag;
  Bind bind;
  std::string help;
  // The value's name in the help (cli/help_format.hpp's metavariables()); "" keeps the one the
  // binding chose (SIZE, SIZES, N, X, LIST).
  std::string metavar = {};
};

// A whole number read into field `m` by the one number reader (cli/numbers.hpp), from `min` to
// `max` (by default the field type's largest); the help states the range.
template <class Config, class T>
typename ConfigOption<Config>::Bind value(
    T Config::*m, typename std::common_type<T>::type min,
    typename std::common_type<T>::type max = std::numeric_limits<T>::max()) {
  static_assert(std::is_integral_v<T>, "a real-valued option states its range with real()");
  return [m, min, max](CLI::App& sub, const std::string& flag, const std::string& help,
                       ConfigBinding<Config>& b) {
    return whole<T>(sub.add_option(flag, b.bound().*m, help)->capture_default_str(), min, max)
        ->type_name("N");
  };
}

// A flag that sets field `m` to `to` when given.
template <class Config>
typename ConfigOption<Config>::Bind flag(bool Config::*m, bool to = true) {
  return [m, to](CLI::App& sub, const std::string& name, const std::string& help,
                 ConfigBinding<Config>& b) {
    return sub.add_flag_callback(
        name, [&b, m, to] { b.bound().*m = to; }, help);
  };
}

// A text read into the config by `parse` (Config&, text); the help shows `shown`.
template <class Config>
typename ConfigOption<Config>::Bind text(std::string shown,
                                         typename ConfigBinding<Config>::Parse parse) {
  return [shown = std::move(shown), parse = std::move(parse)](
             CLI::App& sub, const std::string& flag, const std::string& help,
             ConfigBinding<Config>& b) { return b.add_text(sub, flag, help, shown, parse); };
}

// A text parsed into field `m` by `parse` (a text to the field's type); the help shows `shown`.
template <class Config, class T, class Parse>
typename ConfigOption<Config>::Bind text(T Config::*m, Parse parse, std::string shown) {
  return text<Config>(std::move(shown),
                      [m, parse](Config& c, const std::string& v) { c.*m = parse(v); });
}

// A byte count ("64MiB"); the help shows the default as format_size does.
template <class Config>
typename ConfigOption<Config>::Bind size(std::uint64_t Config::*m) {
  return [m](CLI::App& sub, const std::string& flag, const std::string& help,
             ConfigBinding<Config>& b) {
    return b
        .add_text(sub, flag, help, size_default(b.defaults().*m),
                  [m](Config& c, const std::string& v) { c.*m = parse_size(v); })
        ->type_name("SIZE");
  };
}

// A list of byte counts, read by `parse` (parse_size_list, or a parser that takes ranges too).
template <class Config, class Parse>
typename ConfigOption<Config>::Bind sizes(std::vector<std::uint64_t> Config::*m, Parse parse) {
  return [m, parse](CLI::App& sub, const std::string& flag, const std::string& help,
                    ConfigBinding<Config>& b) {
    return b
        .add_text(sub, flag, help, size_list_default(b.defaults().*m),
                  [m, parse](Config& c, const std::string& v) { c.*m = parse(v); })
        ->type_name("SIZES");
  };
}

// A count of the stop rule (framework/sampling.hpp) that sits in the config's `stop`: at least 2,
// as StopRule::validate() asks.
template <class Config>
typename ConfigOption<Config>::Bind stop_rule_count(int StopRule::*m) {
  return [m](CLI::App& sub, const std::string& flag, const std::string& help,
             ConfigBinding<Config>& b) {
    return whole<int>(sub.add_option(flag, b.bound().stop.*m, help)->capture_default_str(), 2)
        ->type_name("N");
  };
}

// The stop rule's time cap, in ms: more than 0.
template <class Config>
typename ConfigOption<Config>::Bind stop_rule_time_cap() {
  return [](CLI::App& sub, const std::string& flag, const std::string& help,
            ConfigBinding<Config>& b) {
    RealRange positive;
    positive.min = 0.0;
    positive.min_excluded = true;
    return real(sub.add_option(flag, b.bound().stop.time_cap_ms, help)->capture_default_str(),
                positive)
        ->type_name("MS");
  };
}

// --max-spread: a percentage, where the stop rule holds a fraction.
template <class Config>
typename ConfigOption<Config>::Bind max_spread_percent() {
  return [](CLI::App& sub, const std::string& flag, const std::string& help,
            ConfigBinding<Config>& b) {
    return real(sub.add_option_function<double>(
                    flag, [&b](double percent) { b.bound().stop.max_spread = percent / 100.0; },
                    help),
                {0.0, 100.0, true, false})
        ->default_str(fmt::format("{:g}", b.defaults().stop.max_spread * 100.0))
        ->type_name("PCT");
  };
}

// --max-spread, --time-cap, --min-samples and --max-samples: the stop rule of a config whose
// `stop` holds one (the sweep's, blocks').
template <class Config>
std::vector<ConfigOption<Config>> stop_rule_options() {
  return {{"--max-spread", max_spread_percent<Config>(),
           "Stop sampling when stddev/mean of the times is at most this many percent"},
          {"--time-cap", stop_rule_time_cap<Config>(), "Stop sampling a case after this many ms"},
          {"--min-samples", stop_rule_count<Config>(&StopRule::min_samples),
           "Never fewer timed samples per case"},
          {"--max-samples", stop_rule_count<Config>(&StopRule::max_samples),
           "Never more timed samples per case"}};
}

// The options every measuring subcommand has beside its experiment's own.
struct MeasuringFlags {
  OutputPaths outputs;
  ReplayFlags replay;
  std::string reference_path;  // --reference, where the command adds it
};

// Which outputs a subcommand writes: --json always; --csv and --markdown; --trace.
enum MeasuringOutputs : unsigned { kJsonOnly = 0, kTables = 1, kTrace = 2 };

template <class Config>
class MeasuringCommand {
 public:
  using Measure = std::function<RunRecord(Config, const MeasuringFlags&)>;

  // The subcommand `name`, with its help from NAME.help (cli/command_help.hpp).
  MeasuringCommand(CLI::App& app, const std::string& name, Config defaults)
      : state_(std::make_shared<State>(std::move(defaults))),
        sub_(add_command(app, name)),
        name_(name) {}

  CLI::App& sub() { return *sub_; }
  MeasuringFlags& flags() { return state_->flags; }

  CLI::Option* option(const ConfigOption<Config>& o) {
    CLI::Option* added = o.bind(*sub_, o.flag, o.help, state_->binding);
    if (!o.metavar.empty()) added->type_name(o.metavar);
    return added;
  }
  std::vector<CLI::Option*> options(std::initializer_list<ConfigOption<Config>> rows) {
    return options(std::vector<ConfigOption<Config>>(rows));
  }
  std::vector<CLI::Option*> options(const std::vector<ConfigOption<Config>>& rows) {
    std::vector<CLI::Option*> added;
    for (const ConfigOption<Config>& o : rows) added.push_back(option(o));
    return added;
  }

  // Replays take these options too (lesson: --reference); every other is refused with --replay.
  void keep_in_replay(const CLI::Option* o) { state_->flags.replay.kept.push_back(o); }

  // An output made from the record alone, written after a live run and a replay alike (blocks:
  // --recommend); its option should be kept in replays. `path` is the option's value (empty: not
  // asked for), named `what` in messages: it is checked with the other outputs, and against the
  // replayed record, before anything is measured or printed.
  void write_from_record(std::shared_ptr<const std::string> path, std::string what,
                         std::function<void(const RunRecord&)> write) {
    state_->record_output = {std::move(path), std::move(what)};
    state_->write_from_record = std::move(write);
  }

  // Adds the outputs and the replay flags (after every other option, as replay needs) and
  // returns the command. It measures `measure(config, flags)`, or replays a record of
  // `experiments()` (default: the command's own name; the first is the one measured).
  Command measure(unsigned outputs, Measure measure,
                  std::function<std::vector<std::string>()> experiments = {},
                  const std::string& replayed = "") {
    MeasuringFlags& f = state_->flags;
    add_output_flags(sub_, f.outputs, (outputs & kTables) != 0);
    if ((outputs & kTrace) != 0) add_trace_option(sub_, f.outputs.trace);
    add_replay_flags(sub_, f.replay, replayed.empty() ? name_ : replayed);
    if (!experiments) experiments = [name = name_] { return std::vector<std::string>{name}; };
    return {sub_, [state = state_, sub = sub_, measure = std::move(measure),
                   experiments = std::move(experiments)] {
              return measure_or_replay(
                  *sub, state->flags.replay,
                  {experiments(),
                   state->flags.reference_path,
                   [state, measure] { return measure(state->binding.config(), state->flags); },
                   state->flags.outputs,
                   {},
                   state->write_from_record,
                   state->more_outputs(),
                   {}});
            }};
  }

 private:
  struct State {
    explicit State(Config defaults) : binding(std::move(defaults)) {}
    ConfigBinding<Config> binding;
    MeasuringFlags flags;
    std::function<void(const RunRecord&)> write_from_record;
    std::pair<std::shared_ptr<const std::string>, std::string> record_output;
    std::vector<NamedPath> more_outputs() const {
      if (!record_output.first) return {};
      return {{*record_output.first, record_output.second}};
    }
  };

  std::shared_ptr<State> state_;
  CLI::App* sub_;
  std::string name_;
};

}  // namespace pinbench::cli
