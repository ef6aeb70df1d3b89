// Date-times as pinbench writes them into run records, the block copier's calibration cache and
// `blocks --recommend` files ("2026-11-30T16:04:05Z"), and the one rule every reader of such a
// field checks it by: RFC 3339's date-time (section 5.6), the profile of ISO 8601 that says
// which instant it is. No CUDA, no JSON: the engine's library reads its cache with it too.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace pinbench {

// Seconds since 1970 for an RFC 3339 date-time: `YYYY-MM-DDTHH:MM:SS`, an optional fraction of a
// second, then `Z` or an offset `+HH:MM`/`-HH:MM` (applied); `T` and `Z` may be lower case, a leap
// second `:60` is allowed, and the date must exist (no 2026-02-29). Nothing when `text` is not
// one ("yesterday", "2026-11-30", "2026-11-30 16:04:05"). With offsets allowed, string order is
// not time order: order records by this.
std::optional<std::int64_t> rfc3339_seconds(std::string_view text);

// How a message names the form: "an RFC 3339 date-time like 2026-11-30T16:04:05Z".
inline constexpr const char* kTimestampWords = "an RFC 3339 date-time like 2026-11-30T16:04:05Z";

}  // namespace pinbench
