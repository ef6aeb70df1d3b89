// `pinbench pin`'s measurement (being written).
#include "experiments/pin/measure.hpp"

#include "framework/errors.hpp"

namespace pinbench {

RunRecord run_pin(const PinConfig&) { throw InputError("pinbench pin: not measured yet"); }

}  // namespace pinbench
