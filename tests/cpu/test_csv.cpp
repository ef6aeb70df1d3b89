// The RFC 4180 reader: quoting, line ends, byte order marks, and errors that name file and line.
#include <gtest/gtest.h>

#include "framework/errors.hpp"
#include "framework/csv_reader.hpp"
#include "fixtures.hpp"

namespace pinbench {
namespace {

using Fields = std::vector<std::string>;

std::vector<Fields> fields_of(const std::string& text) {
  std::vector<Fields> out;
  for (const CsvRecord& r : parse_csv(text, "t.csv")) out.push_back(r.fields);
  return out;
}

std::string error_of(const std::string& text) {
  try {
    parse_csv(text, "t.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Csv, PlainRecords) {
  EXPECT_EQ(fields_of("a,b,c\n1,2,3\n"), (std::vector<Fields>{{"a", "b", "c"}, {"1", "2", "3"}}));
  EXPECT_EQ(fields_of("a,b"), (std::vector<Fields>{{"a", "b"}}));  // no final line end
  EXPECT_EQ(fields_of(""), std::vector<Fields>{});
}

TEST(Csv, EmptyFieldsAreKept) {
  EXPECT_EQ(fields_of(",,\n1,,3\n"), (std::vector<Fields>{{"", "", ""}, {"1", "", "3"}}));
  EXPECT_EQ(fields_of("a,\n"), (std::vector<Fields>{{"a", ""}}));
}

TEST(Csv, QuotedFieldsHoldCommasQuotesAndLineBreaks) {
  EXPECT_EQ(fields_of("\"scale_copy(const float *, float *)\",7\n"),
            (std::vector<Fields>{{"scale_copy(const float *, float *)", "7"}}));
  EXPECT_EQ(fields_of("\"say \"\"hi\"\"\",x\n"), (std::vector<Fields>{{"say \"hi\"", "x"}}));
  EXPECT_EQ(fields_of("\"two\nlines\",x\n"), (std::vector<Fields>{{"two\nlines", "x"}}));
  EXPECT_EQ(fields_of("\"\",\"\"\"\"\n"), (std::vector<Fields>{{"", "\""}}));
}

TEST(Csv, CrLfAndByteOrderMark) {
  EXPECT_EQ(fields_of("\xEF\xBB\xBFStart (ns),Name\r\n1,cudaMalloc\r\n"),
            (std::vector<Fields>{{"Start (ns)", "Name"}, {"1", "cudaMalloc"}}));
  EXPECT_EQ(fields_of("a\rb\r"), (std::vector<Fields>{{"a"}, {"b"}}));  // old Mac line ends
}

TEST(Csv, BlankLinesAreSkippedAndLineNumbersKept) {
  const std::vector<CsvRecord> r = parse_csv("a\n\n\"x\ny\",z\n\r\nlast\n", "t.csv");
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].line, 1u);
  EXPECT_EQ(r[1].line, 3u);  // the record that spans lines 3 and 4
  EXPECT_EQ(r[2].line, 6u);
}

TEST(Csv, AStrayQuoteInsideAnUnquotedFieldIsKept) {
  EXPECT_EQ(fields_of("5\" disk,x\n"), (std::vector<Fields>{{"5\" disk", "x"}}));
}

TEST(Csv, MalformedInputNamesFileAndLine) {
  EXPECT_EQ(error_of("a,b\n\"open,c\n\n"),
            "t.csv line 2: a quoted field is never closed (truncated file?)");
  EXPECT_EQ(error_of("a\n\"x\"y,z\n"), "t.csv line 2: unexpected 'y' after a closing quote");
  EXPECT_EQ(error_of(std::string("ok\nbin\0ary\n", 11)),
            "t.csv line 2: binary data (a NUL byte), not CSV text");
}

TEST(Csv, ReadingAFileThatIsNotThere) {
  const std::string dir = test::temp_dir();
  EXPECT_THROW(read_text_file(dir + "/absent.csv"), InputError);
  EXPECT_THROW(read_text_file(dir), InputError);  // a folder
  test::write_file(dir + "/x.csv", "a,b\n");
  EXPECT_EQ(read_text_file(dir + "/x.csv"), "a,b\n");
}

}  // namespace
}  // namespace pinbench
