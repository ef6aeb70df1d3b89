// Planted for check_one_asker.py: the record's reader including the asker, which stands above it
// (one place).
#include "framework/by_experiment.hpp"
