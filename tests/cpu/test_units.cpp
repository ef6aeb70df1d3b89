#include <gtest/gtest.h>

#include "framework/errors.hpp"
#include "framework/units.hpp"

namespace pinbench {
namespace {

TEST(ParseSize, BinaryAndDecimalUnits) {
  EXPECT_EQ(parse_size("64MiB"), 64 * kMiB);
  EXPECT_EQ(parse_size("64 MiB"), 64 * kMiB);
  EXPECT_EQ(parse_size("4KiB"), 4 * kKiB);
  EXPECT_EQ(parse_size("1GiB"), kGiB);
  EXPECT_EQ(parse_size("1gib"), kGiB);
  EXPECT_EQ(parse_size("2M"), 2 * kMiB);
  EXPECT_EQ(parse_size("16MB"), 16000000u);
  EXPECT_EQ(parse_size("1KB"), 1000u);
  EXPECT_EQ(parse_size("65536"), 65536u);
  EXPECT_EQ(parse_size("100B"), 100u);
  EXPECT_EQ(parse_size("1.5GiB"), kGiB + kGiB / 2);
  EXPECT_EQ(parse_size("  8MiB  "), 8 * kMiB);
}

TEST(ParseSize, RejectsBadInputWithTheTextInTheMessage) {
  for (const char* bad : {"", "   ", "0", "0MiB", "-1", "-64MiB", "abc", "MiB", "12XB", "1.5B",
                          "64 MiBs", "1..2", "99999999999999GiB", "1e6"}) {
    EXPECT_THROW(parse_size(bad), InputError) << "'" << bad << "'";
  }
  try {
    parse_size("-64MiB");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "size '-64MiB' is negative");
  }
  try {
    parse_size("12XB");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown unit 'XB'"), std::string::npos) << e.what();
  }
}

TEST(ParseSizeList, SplitsOnCommas) {
  EXPECT_EQ(parse_size_list("1MiB,4MiB, 16MiB"),
            (std::vector<std::uint64_t>{kMiB, 4 * kMiB, 16 * kMiB}));
  EXPECT_EQ(parse_size_list("7"), (std::vector<std::uint64_t>{7}));
  EXPECT_THROW(parse_size_list(""), InputError);
  EXPECT_THROW(parse_size_list("1MiB,,2MiB"), InputError);
  EXPECT_THROW(parse_size_list("1MiB,"), InputError);
  EXPECT_THROW(parse_size_list("1MiB,0"), InputError);
}

TEST(FormatSize, BinaryUnitsWithoutTrailingZeros) {
  EXPECT_EQ(format_size(64 * kMiB), "64 MiB");
  EXPECT_EQ(format_size(4 * kKiB), "4 KiB");
  EXPECT_EQ(format_size(kGiB + kGiB / 2), "1.5 GiB");
  EXPECT_EQ(format_size(100), "100 B");
  EXPECT_EQ(format_size(0), "0 B");
  EXPECT_EQ(format_size(1536), "1.5 KiB");
  EXPECT_EQ(format_size(kMiB + 1), "1 MiB");
}

TEST(GbPerS, DecimalGigabytesPerSecond) {
  EXPECT_DOUBLE_EQ(gb_per_s(1000000000, 1000.0), 1.0);
  EXPECT_DOUBLE_EQ(gb_per_s(64 * kMiB, 1.0), 67.108864);
}

}  // namespace
}  // namespace pinbench
