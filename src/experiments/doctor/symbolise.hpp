// Names the native frames of a doctor trace's call sites by function and file:line, through
// addr2line (binutils) where the machine has it and the module has debug information. Without
// it a frame stays its module and offset, and `symbolizer` says so.
#pragma once

#include "experiments/doctor/trace.hpp"

namespace pinbench::experiments::doctor {

void symbolise(DoctorTrace& t);

}  // namespace pinbench::experiments::doctor
