// What `pinbench check` holds a GPU to: the floors, their defaults, their JSON in a check
// record's config.floors (validated when the record is read, like every field) and the small
// file or flags that set them. docs/fleet.md gives why the defaults are what they are.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "framework/numbers.hpp"

namespace pinbench::experiments::check {

// What a GPU must reach. A rate floor is absolute (GB/s) when set, else a share of the link's
// rate for its maximum generation and width (host_info.hpp pcie_link_gb_per_s).
struct CheckFloors {
  double pinned_share = 0.75;    // gen 5 x16: 47.3 GB/s (an H200 moves about 55)
  double pageable_share = 0.05;  // gen 5 x16: 3.15 GB/s (an H200 moves 8 to 15)
  std::optional<double> pinned_h2d_gb_per_s, pinned_d2h_gb_per_s;
  std::optional<double> pageable_h2d_gb_per_s, pageable_d2h_gb_per_s;
  double round_trip_p50_us = 50.0;  // 4 KiB pinned, there and back (an H200: about 20)
  double round_trip_p99_us = 250.0;
  double peer_margin = 0.10;  // each GPU's pinned rates within 10% of the host's median
  // One cudaHostAlloc of the pin size (2 GiB by default), in GB/s. The H100 VM pinned 32 GiB in
  // one call at 1.97 GB/s, and smaller sizes pin faster per byte on most hosts: a quarter of that
  // is a floor a healthy host passes with room, and one that pins slower (a host short of free
  // memory, reclaiming or compacting to find pages) holds a serving engine's start-up for
  // minutes per 100 GiB.
  double pin_gb_per_s = 0.5;
};

nlohmann::json to_json(const CheckFloors& f);

// The floors as a reader reads them: "pinned at least 75% and pageable at least 5% of the
// link's rate at its maximum generation and width; 4 KiB round trip p50 at most 50 µs, p99 at
// most 250 µs; each GPU's pinned rates within 10% of its host's medians; pinning at least
// 0.5 GB/s". A floor set in GB/s is named per direction.
std::string floors_words(const CheckFloors& f);

// From a check record's config.floors; InputError naming the field when one is out of range.
CheckFloors floors_from_json(const nlohmann::json& j);

// Sets floors from the text of a floors file: one `key = value` per line, '#' starts a comment.
// Keys are the JSON names (pinned_share, pinned_h2d_gb_per_s, ..., round_trip_p99_us,
// peer_margin, pin_gb_per_s). InputError "floors file 'NAME' line N: ..." for an unknown key, a
// value that is not a number, a share outside (0, 1], a rate or time that is not positive, or a key
// twice.
void apply_floors_text(CheckFloors& floors, const std::string& text, const std::string& name);

// The values floor `key` may take (a share: more than 0, at most 1; a margin: 0 to less than 1;
// a rate or a time: more than 0), which the flags state; InputError for an unknown key.
RealRange floor_range(const std::string& key);

// Sets one floor by its key, refused as the file's lines are ("WHERE: ..."): for flags.
void apply_floor(CheckFloors& floors, const std::string& key, double value,
                 const std::string& where);

}  // namespace pinbench::experiments::check
