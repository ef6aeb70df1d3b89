// A seam for a measurement's GPU tests: one byte of a destination is changed after the sample
// numbered `corrupt_sample` (from 0, within each case) has run and before that sample's check,
// which must then fail the case. -1: never.
#pragma once

namespace pinbench {

struct CorruptHook {
  int corrupt_sample = -1;

  bool corrupts(int sample) const { return corrupt_sample >= 0 && corrupt_sample == sample; }
};

}  // namespace pinbench
