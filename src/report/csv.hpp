// The run record as CSV: a header row and one row per measured case, in the record's order, for
// spreadsheets and scripts. RFC 4180: CRLF line ends, and a field holding a comma, quote or line
// break is quoted with its quotes doubled. A case whose gate failed keeps its row but has empty
// figures, so no spreadsheet can pick up a rate whose bytes were wrong.
#pragma once

#include <string>

#include "core/record/record.hpp"

namespace pinbench {

std::string render_csv(const RunRecord& record);

// One field, quoted when RFC 4180 requires it.
std::string csv_field(const std::string& text);

}  // namespace pinbench
