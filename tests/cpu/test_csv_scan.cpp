// scan_csv, the streaming core under parse_csv and the nsys reader: fields are views into the
// text where they can be, records are handed out as they are met, and the errors are the same.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "framework/errors.hpp"
#include "framework/csv_reader.hpp"

namespace pinbench {
namespace {

TEST(CsvScan, PlainFieldsAreViewsIntoTheText) {
  const std::string text = "a,bb\n\"q,1\",\"say \"\"hi\"\"\"\n";
  std::vector<std::vector<std::string>> seen;
  std::vector<bool> inside;
  scan_csv(text, "t.csv", [&](const CsvRow& r) {
    std::vector<std::string> fields(r.fields.begin(), r.fields.end());
    seen.push_back(fields);
    for (const std::string_view f : r.fields) {
      inside.push_back(f.data() >= text.data() && f.data() + f.size() <= text.data() + text.size());
    }
  });
  EXPECT_EQ(seen, (std::vector<std::vector<std::string>>{{"a", "bb"}, {"q,1", "say \"hi\""}}));
  // Only the field with doubled quotes had to be copied.
  EXPECT_EQ(inside, (std::vector<bool>{true, true, true, false}));
}

TEST(CsvScan, RecordsBeforeAnErrorAreHandedOutFirst) {
  std::vector<std::size_t> lines;
  try {
    scan_csv("a\nb\n\"open\n", "t.csv", [&](const CsvRow& r) { lines.push_back(r.line); });
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "t.csv line 3: a quoted field is never closed (truncated file?)");
  }
  EXPECT_EQ(lines, (std::vector<std::size_t>{1, 2}));
}

}  // namespace
}  // namespace pinbench
