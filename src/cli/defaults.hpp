// Option values as the help shows them and as the command line gives them. Defaults print the way
// a user types a value ("64MiB", "4KiB:1GiB:x4"), taken from the experiments' own configs where
// they have one, so the help cannot drift from what runs; every text here parses back to its
// value. A value read after CLI11 has parsed the line names its flag when it is malformed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pinbench::cli {

// "64MiB" where format_size is exact, else the bytes ("4099").
std::string size_default(std::uint64_t bytes);

// size_default of each, comma-separated: "64MiB,1GiB".
std::string size_list_default(const std::vector<std::uint64_t>& sizes);

// A range as parse_sizes reads it: "4KiB:1GiB:x4".
std::string size_range_default(std::uint64_t first, std::uint64_t last, int factor);

// "2,3,4,6".
std::string count_list_default(const std::vector<int>& counts);

// `message` about the value of `flag`, starting with the flag: "--sizes: bad size 'x'".
std::string flagged(const std::string& flag, const std::string& message);

// parse_size(text), its InputError naming `flag`.
std::uint64_t parse_size_of(const std::string& flag, const std::string& text);

}  // namespace pinbench::cli
