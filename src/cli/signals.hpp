// SIGINT and SIGTERM: during a measurement the first one asks the experiment to stop after the
// case in flight (framework/interrupt.hpp), so the record of everything measured is still written,
// marked incomplete, and the process exits 128 + N. Outside a measurement, or at a second
// signal, the process ends at once, as the signal's default would end it, after removing the
// temporary files of outputs in flight. SIGPIPE is ignored, so a closed pipe is a write error
// that ends the command quietly.
#pragma once

namespace pinbench::cli {

// The process's signal dispositions, set once, first thing in main(): the handler above for SIGINT
// and SIGTERM, and SIGPIPE ignored (pinbench's only place that ignores it).
void install_signal_handlers();

// While one lives, a first SIGINT or SIGTERM stops the measurement between cases.
class MeasuringScope {
 public:
  MeasuringScope();
  ~MeasuringScope();
  MeasuringScope(const MeasuringScope&) = delete;
  MeasuringScope& operator=(const MeasuringScope&) = delete;
};

}  // namespace pinbench::cli
