// Sizes as the help prints their defaults: the way format_size prints them ("64 MiB"), so every
// subcommand's help reads alike, and taken from the experiments' own configs where they have
// one, so the help cannot drift from what runs. Every text here parses back to its size.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pinbench::cli {

// format_size(bytes) where it is exact ("64 MiB"), else the bytes ("4099 B").
std::string size_default(std::uint64_t bytes);

// size_default of each, comma-separated: "64 MiB,1 GiB".
std::string size_list_default(const std::vector<std::uint64_t>& sizes);

// A range as parse_sizes reads it: "4 KiB:1 GiB:x4".
std::string size_range_default(std::uint64_t first, std::uint64_t last, int factor);

// "2,3,4,6".
std::string count_list_default(const std::vector<int>& counts);

}  // namespace pinbench::cli
