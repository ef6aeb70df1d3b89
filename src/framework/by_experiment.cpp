// What the framework asks of a record's experiment, all in one place (by_experiment.hpp): the
// registry is asked here and nowhere else below the command line.
#include "framework/by_experiment.hpp"

#include <algorithm>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "framework/errors.hpp"
#include "framework/input_limits.hpp"
#include "framework/text_file.hpp"

namespace pinbench {

using nlohmann::json;

RunRecord record_from_json(const json& j) {
  RunRecord rec = common_record_from_json(j);
  const Experiment& experiment = experiment_for(rec.experiment);
  // Its own config keys: a record of an experiment no one registered is checked against none.
  check_fields(rec.config, "config", experiment.descriptor().config_fields);
  for (std::size_t i = 0; i < rec.cases.size(); ++i) {
    check_fields(rec.cases[i].extra, fmt::format("cases[{}].extra", i), case_extra_fields());
  }
  // The experiments' own sections, each read by the experiment whose key it is, whichever
  // experiment the record is of (its own rules on its own records come with validate, below).
  for (const Experiment* e : all_experiments()) {
    const std::string& key = e->descriptor().section_key;
    if (key.empty() || !j.contains(key)) continue;
    json kept = e->read_section(j[key]);
    if (!kept.is_null()) rec.sections[key] = std::move(kept);
  }
  experiment.validate(rec);  // its own rules: a check's floors, say
  return rec;
}

RunRecord load_record(const std::string& path) {
  const std::string text = read_input_file(path, kMaxRecordBytes, "run record");
  if (text.empty()) throw InputError(fmt::format("run record '{}' is empty", path));
  json j;
  try {
    j = parse_record_text(text);
  } catch (const InputError& e) {
    const std::string what = e.what();
    if (what.rfind("is not valid ", 0) == 0) {
      throw InputError(fmt::format("run record '{}' {}", path, what));
    }
    throw InputError(fmt::format("'{}': {}", path, what));
  }
  try {
    return record_from_json(j);
  } catch (const InputError& e) {
    throw InputError(fmt::format("'{}': {}", path, e.what()));
  }
}

ReportModel analyse(const RunRecord& record, const TextOptions& options) {
  const Experiment& experiment = experiment_for(record.experiment);
  ReportModel model = common_model(record);
  experiment.analyse(record, model);
  settle_checks(record, experiment.descriptor().gates_meaning, model);
  model.text = experiment.text(record, model, options);
  return model;
}

const std::vector<RangeGate>& range_gates() {
  static const std::vector<RangeGate> gates = [] {
    std::vector<RangeGate> out;
    for (const Experiment* e : all_experiments()) {
      const std::vector<RangeGate>& own = e->descriptor().range_gates;
      out.insert(out.end(), own.begin(), own.end());
    }
    return out;
  }();
  return gates;
}

const std::vector<ConfigField>& case_extra_fields() {
  static const std::vector<ConfigField> fields = [] {
    std::vector<ConfigField> out = framework_extra_fields();
    for (const Experiment* e : all_experiments()) {
      for (const ConfigField& f : e->descriptor().extra_fields) {
        const bool known = std::any_of(out.begin(), out.end(), [&](const ConfigField& g) {
          return std::string_view(g.key) == f.key;
        });
        if (!known) out.push_back(f);
      }
    }
    return out;
  }();
  return fields;
}

std::vector<Condition> conditions_of(const RunRecord& record) {
  std::vector<Condition> out = {
      {"experiment", record.experiment},
      {"GPU model", record.machine.device_name.empty() ? "none" : record.machine.device_name}};
  for (Condition& c : experiment_for(record.experiment).conditions(record)) {
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace pinbench
