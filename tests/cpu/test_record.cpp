#include <gtest/gtest.h>

#include <filesystem>

#include "fixtures.hpp"
#include "framework/by_experiment.hpp"
#include "framework/errors.hpp"
#include "framework/record.hpp"
#include "framework/run_library.hpp"

namespace pinbench {
namespace {

using nlohmann::json;

std::string error_of(const std::string& path) {
  try {
    load_record(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Record, RoundTripKeepsEveryField) {
  RunRecord r = test::make_lesson_record();
  r.machine.pcie = {5, 5, 16, 16, "32.0 GT/s PCIe", "32.0 GT/s PCIe"};
  r.machine.numa_node = 1;
  r.machine.driver_release = "580.159.04";
  r.note = "a note";
  r.cases[0].samples_ms = {1.5, 2.25, 3.0};
  r.gates.push_back({"failing", false, "first difference at byte 7 of 8"});
  const RunRecord back = record_from_json(json::parse(to_json(r).dump()));
  EXPECT_EQ(to_json(back), to_json(r));
  EXPECT_EQ(back.machine.pcie.max_width, 16);
  EXPECT_EQ(back.cases[0].samples_ms, (std::vector<double>{1.5, 2.25, 3.0}));
  EXPECT_FALSE(back.all_gates_passed());
}

TEST(Record, SaveThenLoadFromDisk) {
  const std::string dir = test::temp_dir();
  const RunRecord r = test::make_lesson_record();
  save_record(r, dir + "/run.json");
  EXPECT_FALSE(std::filesystem::exists(dir + "/run.json.tmp"));
  EXPECT_EQ(to_json(load_record(dir + "/run.json")), to_json(r));
}

TEST(Record, SaveToAnUnwritablePlaceIsAnInputError) {
  EXPECT_THROW(save_record(test::make_lesson_record(), "/nonexistent-dir/x/run.json"), InputError);
}

TEST(Record, CommittedH200RunLoads) {
  const RunRecord r = load_record(test::h200_lesson_path());
  EXPECT_EQ(r.experiment, "lesson");
  EXPECT_EQ(r.machine.device_name, "NVIDIA H200");
  EXPECT_EQ(r.machine.pcie.current_gen, 5);
  EXPECT_EQ(r.machine.pcie.current_width, 16);
  EXPECT_TRUE(r.all_gates_passed());
  ASSERT_NE(r.find("copy", "h2d", "pinned", 64 << 20), nullptr);
  EXPECT_EQ(r.find("copy", "h2d", "pinned", 64 << 20)->samples_ms.size(), 10u);
}

TEST(Record, MissingEmptyTruncatedAndForeignFilesAreInputErrors) {
  const std::string dir = test::temp_dir();
  EXPECT_EQ(error_of(dir + "/absent.json"), "cannot open run record '" + dir + "/absent.json'");

  test::write_file(dir + "/empty.json", "");
  EXPECT_EQ(error_of(dir + "/empty.json"), "run record '" + dir + "/empty.json' is empty");

  const std::string whole = test::read_file(test::h200_lesson_path());
  test::write_file(dir + "/cut.json", whole.substr(0, whole.size() / 2));
  EXPECT_NE(error_of(dir + "/cut.json").find("is not valid JSON (truncated?)"), std::string::npos);

  test::write_file(dir + "/foreign.json", R"({"name": "something else"})");
  EXPECT_NE(error_of(dir + "/foreign.json").find("not a pinbench run record"), std::string::npos);

  test::write_file(dir + "/array.json", "[1, 2, 3]");
  EXPECT_NE(error_of(dir + "/array.json").find("not a pinbench run record"), std::string::npos);
}

TEST(Record, DamagedFieldsAreNamedByTheirPath) {
  json j = to_json(test::make_lesson_record());
  j["cases"][3].erase("bytes");
  EXPECT_THROW(
      {
        try {
          record_from_json(j);
        } catch (const InputError& e) {
          EXPECT_STREQ(e.what(), "run record: 'cases[3].bytes' is missing");
          throw;
        }
      },
      InputError);

  j = to_json(test::make_lesson_record());
  j["machine"]["sm_count"] = "many";
  try {
    record_from_json(j);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "run record: 'machine.sm_count' has the wrong type (string)");
  }

  j = to_json(test::make_lesson_record());
  j["cases"][0]["samples_ms"] = json::array({1.0, -2.0});
  EXPECT_THROW(record_from_json(j), InputError);

  j = to_json(test::make_lesson_record());
  j["schema_version"] = 99;
  try {
    record_from_json(j);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "run record has schema version 99, this pinbench reads 1 to 1");
  }

  j = to_json(test::make_lesson_record());
  j["cases"][0]["bytes"] = 0;
  EXPECT_THROW(record_from_json(j), InputError);
}

TEST(RunLibrary, PicksTheNewestMeasuredRecordOfTheExperiment) {
  const std::string dir = test::temp_dir();
  RunRecord older = test::make_lesson_record();
  older.created_utc = "2026-01-01T00:00:00Z";
  RunRecord newer = test::make_lesson_record();
  newer.created_utc = "2026-06-01T00:00:00Z";
  RunRecord published = test::make_lesson_record();
  published.created_utc = "2027-01-01T00:00:00Z";
  published.source = "published";
  RunRecord other = test::make_lesson_record();
  other.experiment = "sweep";
  other.created_utc = "2027-01-01T00:00:00Z";
  save_record(older, dir + "/a.json");
  save_record(newer, dir + "/b.json");
  save_record(published, dir + "/c.json");
  save_record(other, dir + "/d.json");
  test::write_file(dir + "/trace.json", R"({"traceEvents": []})");
  EXPECT_EQ(newest_record(dir, "lesson"), dir + "/b.json");
  EXPECT_EQ(newest_record(dir, "pipeline"), std::nullopt);
  EXPECT_EQ(newest_record(dir + "/nothing-here", "lesson"), std::nullopt);
}

TEST(RunLibrary, OrdersByTheInstantAndSkipsInterruptedRuns) {
  const std::string dir = test::temp_dir();
  RunRecord utc = test::make_lesson_record();
  utc.created_utc = "2026-06-01T00:30:00Z";
  RunRecord offset = test::make_lesson_record();  // 23:00 UTC the day before, though it reads later
  offset.created_utc = "2026-06-01T01:00:00+02:00";
  RunRecord cut = test::make_lesson_record();
  cut.created_utc = "2026-07-01T00:00:00Z";
  cut.incomplete = true;
  cut.interrupted_by = "SIGINT";
  save_record(utc, dir + "/a.json");
  save_record(offset, dir + "/b.json");
  save_record(cut, dir + "/c.json");
  EXPECT_EQ(newest_record(dir, "lesson"), dir + "/a.json");
}

}  // namespace
}  // namespace pinbench
