// The config of a record of a program run under pinbench (accel, doctor): the program as asked
// for, its key written (put_fields) and validated (fields_of, config_fields) from one list.
#pragma once

#include <string>

#include "framework/config_schema.hpp"

namespace pinbench {

struct ProgramRecordConfig {
  std::string program;

  static constexpr auto fields() {
    return std::make_tuple(field("program", &ProgramRecordConfig::program, FieldKind::kText));
  }
};

}  // namespace pinbench
