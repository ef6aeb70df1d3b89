// Sizes and rates. MiB is 2^20 bytes; GB/s is 10^9 bytes per second. Every rate in pinbench
// comes from gb_per_s() so the convention lives in one place.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pinbench {

constexpr std::uint64_t kKiB = 1ull << 10;
constexpr std::uint64_t kMiB = 1ull << 20;
constexpr std::uint64_t kGiB = 1ull << 30;

// Parses "64MiB", "4 KiB", "1GiB", "65536", "1.5GiB", "16MB" (decimal units are accepted and
// mean powers of ten). The number is decimal ("010" is ten bytes; "0x10" is refused), read by
// framework/numbers.hpp's one reader. Throws InputError for empty, negative, zero, malformed or
// overflowing input, naming the text it could not read.
std::uint64_t parse_size(std::string_view text);

// parse_size, where a size of zero ("0", "0MiB") is allowed: an option's "0: none".
std::uint64_t parse_size_or_zero(std::string_view text);

// Parses a comma-separated list of sizes, e.g. "1MiB,4MiB,16MiB". Same errors as parse_size.
std::vector<std::uint64_t> parse_size_list(std::string_view text);

// Sizes from a list ("4KiB,1MiB") or a range "START:END:xFACTOR" (geometric) or
// "START:END:+STEP" (arithmetic), END included when the steps land on it. Throws InputError for
// empty or inverted ranges, factors below 2, zero steps and lists of more than 4096 sizes.
std::vector<std::uint64_t> parse_sizes(std::string_view text);

// "64 MiB", "4 KiB", "1.5 GiB", "100 B": binary units, at most two decimals, no trailing zeros.
std::string format_size(std::uint64_t bytes);

// "64 MiB", "64 MiB + 5 B", "1 GiB - 1 B", "1000 B": exact, unlike format_size, which rounds.
// The largest binary unit the size is a whole number of, give or take under 1/64 of the unit.
std::string exact_size(std::uint64_t bytes);

// Decimal gigabytes per second for `bytes` moved in `ms` milliseconds. ms must be > 0.
double gb_per_s(std::uint64_t bytes, double ms);

}  // namespace pinbench
