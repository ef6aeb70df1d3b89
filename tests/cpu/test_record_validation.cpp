// The one validation every record reader goes through (record_from_json, load_record): each bad
// field is refused with its exact one-line message, and every committed record still passes.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <functional>

#include "fixtures.hpp"
#include "framework/by_experiment.hpp"
#include "framework/errors.hpp"
#include "framework/input_limits.hpp"
#include "framework/record.hpp"
#include "framework/text_file.hpp"

namespace pinbench {
namespace {

using nlohmann::json;

// The message record_from_json refuses `j` with, or "(accepted)".
std::string refusal(const json& j) {
  try {
    record_from_json(j);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

// The hand-made lesson record after `change`.
std::string refusal_after(const std::function<void(json&)>& change) {
  json j = to_json(test::make_lesson_record());
  change(j);
  return refusal(j);
}

// The hand-made staged record after `change`: the engine's options are the staged experiment's
// config, checked by its own rules.
std::string staged_refusal_after(const std::function<void(json&)>& change) {
  json j = to_json(test::make_staged_record());
  change(j);
  return refusal(j);
}

std::string load_error(const std::string& path) {
  try {
    load_record(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(RecordValidation, EveryCommittedRecordPasses) {
  namespace fs = std::filesystem;
  std::size_t n = 0;
  for (const char* dir : {"/runs", "/reference"}) {
    for (const fs::directory_entry& e :
         fs::directory_iterator(std::string(PINBENCH_DATA_DIR) + dir)) {
      const std::string path = e.path().string();
      if (e.path().extension() != ".json" || path.find(".trace.json") != std::string::npos)
        continue;
      EXPECT_NO_THROW(load_record(path)) << path << ": " << load_error(path);
      ++n;
    }
  }
  EXPECT_GE(n, 14u);
  // The records kept in the squeezed sets of runs under data/evidence/ (each a JSON object with
  // an "experiment"; benchmark files and texts beside them are not records).
  std::size_t squeezed = 0;
  for (const fs::directory_entry& e :
       fs::directory_iterator(std::string(PINBENCH_DATA_DIR) + "/evidence")) {
    if (e.path().extension() != ".json") continue;
    const json set = parse_record_text(read_input_file(e.path().string(), kMaxRecordBytes, "set"));
    for (const auto& [name, file] : set.at("files").items()) {
      if (!file.is_object() || !file.contains("experiment")) continue;
      EXPECT_EQ(refusal(file), "(accepted)") << e.path().string() << "#" << name;
      ++squeezed;
    }
  }
  EXPECT_GE(squeezed, 200u);
  EXPECT_EQ(refusal(to_json(test::make_lesson_record())), "(accepted)");
  EXPECT_EQ(refusal(to_json(test::make_sweep_record())), "(accepted)");
}

TEST(RecordValidation, ByteCountsArePositiveAndBelow2To63) {
  EXPECT_EQ(refusal_after([](json& j) { j["cases"][3]["bytes"] = -1048576; }),
            "run record: 'cases[3].bytes' is -1048576: a byte count cannot be negative");
  EXPECT_EQ(refusal_after([](json& j) { j["cases"][3]["bytes"] = 0; }),
            "run record: 'cases[3].bytes' is zero; a byte count must be positive");
  // 2^64 is past every 64-bit integer, so JSON readers hold it as a double.
  EXPECT_EQ(refusal_after([](json& j) { j["cases"][3]["bytes"] = 18446744073709551616.0; }),
            "run record: 'cases[3].bytes' is 1.8446744073709552e+19, too large for a byte count "
            "(the most is 2^63 - 1)");
  EXPECT_EQ(refusal_after([](json& j) { j["cases"][3]["bytes"] = std::uint64_t{1} << 63; }),
            "run record: 'cases[3].bytes' is 9223372036854775808, too large for a byte count (the "
            "most is 2^63 - 1)");
  EXPECT_EQ(refusal_after([](json& j) { j["cases"][3]["bytes"] = 1.5; }),
            "run record: 'cases[3].bytes' is 1.5, not a whole number for a byte count");
  EXPECT_EQ(refusal_after([](json& j) { j["cases"][3]["bytes"] = "4096"; }),
            "run record: 'cases[3].bytes' has the wrong type (string)");
  EXPECT_EQ(refusal_after([](json& j) { j["cases"][3]["bytes"] = (std::uint64_t{1} << 63) - 1; }),
            "(accepted)");
  EXPECT_EQ(refusal_after([](json& j) { j["machine"]["device_memory_bytes"] = -1; }),
            "run record: 'machine.device_memory_bytes' is -1: a byte count cannot be negative");
  EXPECT_EQ(refusal_after([](json& j) { j["machine"]["host_memory_bytes"] = 1e19; }),
            "run record: 'machine.host_memory_bytes' is 1e+19, too large for a byte count (the "
            "most is 2^63 - 1)");
  // Zero means "not known" for the machine's memory (published records).
  EXPECT_EQ(refusal_after([](json& j) { j["machine"]["device_memory_bytes"] = 0; }), "(accepted)");
}

TEST(RecordValidation, ConfigSizesAndCountsAreChecked) {
  EXPECT_EQ(refusal_after([](json& j) { j["config"]["sizes_bytes"][2] = -4096; }),
            "run record: 'config.sizes_bytes[2]' is -4096: a byte count cannot be negative");
  EXPECT_EQ(refusal_after([](json& j) { j["config"]["async_bytes"] = 0; }),
            "run record: 'config.async_bytes' is zero; a byte count must be positive");
  EXPECT_EQ(refusal_after([](json& j) { j["config"]["iterations"] = "ten"; }),
            "run record: 'config.iterations' has the wrong type (string)");
  EXPECT_EQ(refusal_after([](json& j) { j["config"]["warmups"] = 4294967296; }),
            "run record: 'config.warmups' is 4294967296, more than a count allows (2147483647)");
  EXPECT_EQ(
      staged_refusal_after([](json& j) {
        j["config"]["engine"] = {{"to_device", {{"chunk_bytes", -1}}}, {"to_host", json::object()}};
      }),
      "run record: 'config.engine.to_device.chunk_bytes' is -1: a byte count cannot be "
      "negative");
  // The staged reports print the engine's rings one number per field.
  EXPECT_EQ(
      staged_refusal_after([](json& j) {
        j["config"]["engine"] = {{"to_device", {{"threads", {4, 8}}}}, {"to_host", json::object()}};
      }),
      "run record: 'config.engine.to_device.threads' has the wrong type (array)");
  EXPECT_EQ(staged_refusal_after([](json& j) {
              j["config"]["engine"] = {{"to_host", 3}, {"to_device", json::object()}};
            }),
            "run record: 'config.engine.to_host' is not an object");
  // Both rings are printed once either is there.
  EXPECT_EQ(staged_refusal_after([](json& j) {
              j["config"]["engine"] = {{"to_device", json::object()}};
            }),
            "run record: 'config.engine' has 'to_device' but no 'to_host'");
  EXPECT_EQ(refusal_after([](json& j) { j["config"]["threads"] = {4, 8, 16}; }), "(accepted)");
  EXPECT_EQ(staged_refusal_after([](json& j) { j["config"]["skipped"] = {"sm"}; }),
            "run record: 'config.skipped[0]' has the wrong type (string)");
  // Each experiment checks the keys it reads: the lesson reads no engine, so its record does not
  // fail on one, while the staged record does.
  EXPECT_EQ(refusal_after([](json& j) {
              j["config"]["engine"] = {{"to_device", 3}};
            }),
            "(accepted)");
  EXPECT_EQ(refusal_after([](json& j) {
              j["cases"][0]["extra"] = {{"trials", {{{"new_words", -1}}}}};
            }),
            "run record: 'cases[0].extra.trials[0].new_words' is -1: a count cannot be negative");
  EXPECT_EQ(refusal_after([](json& j) { j["config"] = json::array(); }),
            "run record: 'config' is not an object");
  EXPECT_EQ(refusal_after([](json& j) {
              j["cases"][0]["extra"] = {{"path", 3}};
            }),
            "run record: 'cases[0].extra.path' has the wrong type (number)");
  EXPECT_EQ(refusal_after([](json& j) {
              j["trace"] = {{"prediction4", {{"pinned", {{"bytes", -5}}}}}};
            }),
            "run record: 'trace.prediction4.pinned.bytes' is -5: a byte count cannot be negative");
}

TEST(RecordValidation, SampleTimesArePositiveAndFinite) {
  EXPECT_EQ(refusal_after([](json& j) { j["cases"][2]["samples_ms"] = json::array(); }),
            "run record: 'cases[2].samples_ms' is empty: a case without samples has no figure to "
            "show");
  EXPECT_EQ(refusal_after([](json& j) {
              j["cases"][2]["samples_ms"] = {1.0, 0.0};
            }),
            "run record: 'cases[2].samples_ms[1]' is 0.0 ms; a timed sample takes a positive time");
  EXPECT_EQ(
      refusal_after([](json& j) { j["cases"][2]["samples_ms"] = {-2.0}; }),
      "run record: 'cases[2].samples_ms[0]' is -2.0 ms; a timed sample takes a positive time");
  EXPECT_EQ(refusal_after([](json& j) { j["cases"][2]["samples_ms"] = {1e-9}; }),
            "run record: 'cases[2].samples_ms[0]' is 1e-09 ms, less than 1 ns");
  EXPECT_EQ(refusal_after([](json& j) { j["cases"][2]["samples_ms"] = {1e300}; }),
            "run record: 'cases[2].samples_ms[0]' is 1e+300 ms, more than a day");
  EXPECT_EQ(refusal_after([](json& j) { j["cases"][2]["samples_ms"] = {"1"}; }),
            "run record: 'cases[2].samples_ms[0]' has the wrong type (string)");
  EXPECT_EQ(refusal_after([](json& j) { j["cases"][2].erase("samples_ms"); }),
            "run record: 'cases[2].samples_ms' is missing");
  EXPECT_EQ(refusal_after([](json& j) {
              j["cases"][2]["call_ms"] = {0.5, 0.5};
            }),
            "run record: 'cases[2].call_ms' has 2 entries for 1 samples");
  EXPECT_EQ(refusal_after([](json& j) { j["cases"][2]["call_ms"] = {0.0}; }),
            "run record: 'cases[2].call_ms[0]' is 0.0 ms; a timed sample takes a positive time");
  EXPECT_EQ(refusal_after([](json& j) { j["wall_ms"] = -1.0; }),
            "run record: 'wall_ms' is -1.0; a wall time is finite and not negative");
  EXPECT_EQ(refusal_after([](json& j) { j["wall_ms"] = 0.0; }), "(accepted)");
}

TEST(RecordValidation, GatesAndCasesAgree) {
  EXPECT_EQ(refusal_after([](json& j) { j["cases"][1]["gate"] = "nope"; }),
            "run record: 'cases[1].gate' names 'nope', which is not in 'gates'");
  EXPECT_EQ(refusal_after([](json& j) { j["gates"][0]["passed"] = false; }),
            "run record: 'cases[0].verified' is true, but its gate 'copy/h2d/pageable' (gates[0]) "
            "failed");
  EXPECT_EQ(refusal_after([](json& j) { j["cases"][4]["verified"] = false; }),
            "run record: 'cases[4].verified' is false, yet no gate in the record failed");
  // A failed gate and the case it covers unverified: a real failed run, readable.
  EXPECT_EQ(refusal_after([](json& j) {
              j["gates"].push_back({{"name", "copy/h2d/pinned/16MiB"}, {"passed", false}});
              j["cases"][7]["gate"] = "copy/h2d/pinned/16MiB";
              j["cases"][7]["verified"] = false;
            }),
            "(accepted)");
  EXPECT_EQ(refusal_after([](json& j) { j["gates"][0]["name"] = ""; }),
            "run record: 'gates[0].name' is empty");
}

TEST(RecordValidation, DatesAreRfc3339) {
  EXPECT_EQ(refusal_after([](json& j) { j["created_utc"] = "not a date"; }),
            "run record: 'created_utc' is \"not a date\", not an RFC 3339 date-time like "
            "2026-11-30T16:04:05Z");
  for (const char* bad :
       {"2026-11-30", "2026-11-30 16:04:05Z", "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z",
        "2026-11-30T24:00:00Z", "2026-11-30T16:04:05", "2026-11-30T16:04:05+0100",
        "2026-11-30T16:04:05Z ", "2026-11-31T00:00:00Z"}) {
    EXPECT_NE(refusal_after([&](json& j) { j["created_utc"] = bad; }), "(accepted)") << bad;
  }
  for (const char* good :
       {"2026-11-30T16:04:05Z", "2028-02-29T00:00:00Z", "2026-11-30T16:04:05.123456Z",
        "2026-11-30T17:04:05+01:00", "2026-11-30t16:04:05z", "2016-12-31T23:59:60Z"}) {
    EXPECT_EQ(refusal_after([&](json& j) { j["created_utc"] = good; }), "(accepted)") << good;
  }
  EXPECT_EQ(rfc3339_seconds("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(rfc3339_seconds("2026-11-30T16:04:05Z"), 1796054645);
  EXPECT_EQ(rfc3339_seconds("2026-11-30T17:04:05+01:00"), rfc3339_seconds("2026-11-30T16:04:05Z"));
  EXPECT_EQ(rfc3339_seconds("yesterday"), std::nullopt);
}

TEST(RecordValidation, SchemaVersionSourceAndMachine) {
  EXPECT_EQ(refusal_after([](json& j) { j["schema_version"] = 2; }),
            "run record has schema version 2, this pinbench reads 1 to 1");
  EXPECT_EQ(refusal_after([](json& j) { j["schema_version"] = "1"; }),
            "run record has schema version \"1\", this pinbench reads 1 to 1");
  EXPECT_EQ(refusal_after([](json& j) { j["source"] = "guessed"; }),
            "run record: 'source' is \"guessed\", not \"measured\" or \"published\"");
  EXPECT_EQ(refusal_after([](json& j) { j["machine"]["compute_capability"] = "9.0abc"; }),
            "run record: 'machine.compute_capability' is '9.0abc', not MAJOR.MINOR");
  EXPECT_EQ(refusal_after([](json& j) { j["machine"]["numa_node"] = -2; }),
            "run record: 'machine.numa_node' is -2, less than a count allows (-1)");
  EXPECT_EQ(
      refusal_after([](json& j) { j["machine"]["sm_count"] = 1e10; }),
      "run record: 'machine.sm_count' is 10000000000.0, more than a count allows (2147483647)");
  EXPECT_EQ(refusal_after([](json& j) { j["cases"][0]["warmups"] = -1; }),
            "run record: 'cases[0].warmups' is -1: a count cannot be negative");
}

TEST(RecordValidation, ParsingNamesTheFieldOfANumberOutOfRange) {
  std::string text = to_json(test::make_lesson_record()).dump();
  const std::string key = "\"bytes\":1048576";
  const std::size_t at = text.find(key);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, key.size(), "\"bytes\":1e400");
  try {
    parse_record_text(text);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "run record: 'cases[0].bytes' is 1e400, a number out of range");
  }
  try {
    parse_record_text(R"({"cases": [{"samples_ms": [1.0, 2.0, -1e999]}]})");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "run record: 'cases[0].samples_ms[2]' is -1e999, a number out of range");
  }
  try {
    parse_record_text(std::string(100, '[') + std::string(100, ']'));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), ("run record: '" +
                            [] {
                              std::string p;
                              for (int i = 0; i < kMaxJsonDepth; ++i) p += "[0]";
                              return p;
                            }() +
                            "' is nested deeper than 64 levels")
                               .c_str());
  }
}

TEST(RecordValidation, OtherJsonInputsParseTheSameWay) {
  try {
    parse_json_text(R"({"traceEvents": [{"ts": 1}, {"ts": 1e999}]})", "trace");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "trace: 'traceEvents[1].ts' is 1e999, a number out of range");
  }
  EXPECT_EQ(parse_json_text(R"({"a": [1, {"b": null}]})", "trace")["a"][1], json({{"b", nullptr}}));
}

TEST(RecordValidation, LoadRecordNamesTheFile) {
  const std::string dir = test::temp_dir();
  std::string text = to_json(test::make_lesson_record()).dump();
  const std::string key = "\"bytes\":1048576";
  text.replace(text.find(key), key.size(), "\"bytes\":1e400");
  test::write_file(dir + "/huge.json", text);
  EXPECT_EQ(
      load_error(dir + "/huge.json"),
      "'" + dir + "/huge.json': run record: 'cases[0].bytes' is 1e400, a number out of range");

  json j = to_json(test::make_lesson_record());
  j["cases"][3]["bytes"] = -1048576;
  test::write_file(dir + "/negative.json", j.dump());
  EXPECT_EQ(load_error(dir + "/negative.json"),
            "'" + dir +
                "/negative.json': run record: 'cases[3].bytes' is -1048576: a byte count cannot "
                "be negative");

  EXPECT_EQ(load_error(dir), "'" + dir + "' is a directory, not a run record");
  test::write_file(dir + "/cut.json", "{\"schema\": ");
  EXPECT_EQ(load_error(dir + "/cut.json"),
            "run record '" + dir + "/cut.json' is not valid JSON (truncated?) near byte 12");
}

TEST(RecordValidation, InputsPastTheCapAreRefusedWithoutReadingThem) {
  const std::string dir = test::temp_dir();
  // A sparse file one byte past the cap: refused by its size, nothing read.
  const std::string big = dir + "/big.json";
  const int fd = ::open(big.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(kMaxRecordBytes + 1)), 0);
  ::close(fd);
  EXPECT_EQ(load_error(big),
            "run record '" + big + "' is larger than 64 MiB, the most pinbench reads");

  // Bytes that are not UTF-8 are called that, not "truncated".
  test::write_file(dir + "/latin1.json", "{\"schema\": \"caf\xe9\"}");
  EXPECT_EQ(load_error(dir + "/latin1.json"),
            "run record '" + dir +
                "/latin1.json' is not valid UTF-8 at byte 15 (JSON text is "
                "UTF-8)");

  // A stream that never ends is not read at all: only regular files are.
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(load_error("/dev/zero"),
            "'/dev/zero' is a character device, not a regular file: pinbench reads a run record "
            "only from a file");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

}  // namespace
}  // namespace pinbench
