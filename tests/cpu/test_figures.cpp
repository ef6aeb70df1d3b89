// Every figure read for what it means, not only for being a number: the typed readers of an
// experiment's section (framework/json_fields.hpp) on hand-made edge cases; blocks' slowdowns in
// records and in the block copier's calibration cache; every date-time of every record, found by
// walking the committed records, refused when it is not one; a fleet's rows read by their named
// columns only; and Prometheus labels that no two hosts share.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "base/slowdown_range.hpp"
#include "base/timestamp.hpp"
#include "experiments/check/analysis.hpp"
#include "experiments/check/fleet/analysis.hpp"
#include "experiments/check/prometheus.hpp"
#include "fixtures.hpp"
#include "framework/by_experiment.hpp"
#include "framework/errors.hpp"
#include "framework/json_fields.hpp"
#include "framework/record.hpp"
#include "pinbench/block_choice.hpp"

namespace pinbench {
using namespace experiments::check;
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kBin = std::string(PINBENCH_BINARY) + " ";

// The message of the InputError `read` throws, or "(read)" when it throws none.
std::string refusal_of(const std::function<void()>& read) {
  try {
    read();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(read)";
}

// --- the typed readers ------------------------------------------------------------------------

TEST(FigureReaders, EachReadsWhatItsFieldMeansAndNamesTheFieldOtherwise) {
  const json j = json::parse(R"({
    "rate": 12.5, "neg_rate": -1, "huge_rate": 1e308, "text_rate": "12",
    "ms": 0, "neg_ms": -0.001, "year_ms": 4e10,
    "count": 7, "frac": 2.5, "neg": -3, "two64": 18446744073709551616, "float_count": 1e3,
    "pid": 4194304, "big_pid": 4194305,
    "status": 255, "big_status": 256,
    "ns": 4611686018427387904, "big_ns": 4611686018427387905,
    "when": "2026-11-30T16:04:05Z", "offset": "2026-11-30T17:04:05+01:00",
    "yesterday": "yesterday", "no_time": "2026-11-30", "spaced": "2026-11-30 16:04:05Z",
    "feb29": "2026-02-29T00:00:00Z", "number_time": 1764518645, "empty": "",
    "slowdown": -5, "slowdown_top": 10000, "slowdown_low": -5.0001, "slowdown_forged": -200,
    "slowdown_tiny": -1e308})");
  const JsonFields f(j, "x");
  EXPECT_EQ(f.rate("rate"), 12.5);
  EXPECT_EQ(f.ms("ms"), 0.0);
  EXPECT_EQ(f.count("count", 10), 7u);
  EXPECT_EQ(f.count("float_count", 1000), 1000u);
  EXPECT_EQ(f.pid("pid"), 4194304);
  EXPECT_EQ(f.exit_status("status"), 255);
  EXPECT_EQ(f.ns("ns"), std::int64_t{1} << 62);
  EXPECT_EQ(f.timestamp("when"), "2026-11-30T16:04:05Z");
  EXPECT_EQ(f.timestamp("offset"), "2026-11-30T17:04:05+01:00");
  EXPECT_EQ(rfc3339_seconds("2026-11-30T17:04:05+01:00"), rfc3339_seconds("2026-11-30T16:04:05Z"));
  const auto slowdown = [&](const char* key) {
    return f.percent(key, "a kernel's slowdown", kLeastSlowdownPct, kMostSlowdownPct);
  };
  EXPECT_EQ(slowdown("slowdown"), -5.0);
  EXPECT_EQ(slowdown("slowdown_top"), 10000.0);

  const std::vector<std::pair<std::function<void()>, std::string>> refused = {
      {[&] { f.rate("neg_rate"); }, "'x.neg_rate' is -1, not a rate in GB/s from 0 to 1000000"},
      {[&] { f.rate("huge_rate"); }, "'x.huge_rate' is 1e+308, not a rate in GB/s"},
      {[&] { f.rate("text_rate"); }, "'x.text_rate' is \"12\", not a rate in GB/s"},
      {[&] { f.rate("absent"); }, "'x.absent' is missing"},
      {[&] { f.ms("neg_ms"); }, "'x.neg_ms' is -0.001, not a time in ms from 0 to 31536000000"},
      {[&] { f.ms("year_ms"); }, "'x.year_ms' is 40000000000.0, not a time in ms"},
      {[&] { f.count("frac", 10); }, "'x.frac' is 2.5, not a whole number for a count"},
      {[&] { f.count("neg", 10); }, "'x.neg' is -3: a count cannot be negative"},
      {[&] { f.count("count", 8, 10); }, "'x.count' is 7, less than a count allows (8)"},
      {[&] { f.count("two64", 10); },
       "'x.two64' is 1.8446744073709552e+19, more than a count allows (10)"},
      {[&] { f.bytes("neg"); }, "'x.neg' is -3: a byte count cannot be negative"},
      {[&] { f.pid("big_pid"); },
       "'x.big_pid' is 4194305, more than a process id allows (4194304)"},
      {[&] { f.exit_status("big_status"); },
       "'x.big_status' is 256, more than an exit status allows (255)"},
      {[&] { f.ns("big_ns"); }, "'x.big_ns' is 4611686018427387905, more than a time in ns allows"},
      {[&] { f.timestamp("yesterday"); },
       "'x.yesterday' is \"yesterday\", not an RFC 3339 date-time like 2026-11-30T16:04:05Z"},
      {[&] { f.timestamp("no_time"); }, "'x.no_time' is \"2026-11-30\", not an RFC 3339"},
      {[&] { f.timestamp("spaced"); }, "'x.spaced' is \"2026-11-30 16:04:05Z\", not an RFC"},
      {[&] { f.timestamp("feb29"); }, "'x.feb29' is \"2026-02-29T00:00:00Z\", not an RFC"},
      {[&] { f.timestamp("number_time"); }, "'x.number_time' is 1764518645, not an RFC 3339"},
      {[&] { f.timestamp("empty"); }, "'x.empty' is \"\", not an RFC 3339"},
      {[&] { slowdown("slowdown_low"); },
       "'x.slowdown_low' is -5.0001, not a kernel's slowdown in percent from -5 to 10000"},
      {[&] { slowdown("slowdown_forged"); }, "'x.slowdown_forged' is -200, not a kernel's"},
      {[&] { slowdown("slowdown_tiny"); }, "'x.slowdown_tiny' is -1e+308, not a kernel's"},
  };
  for (const auto& [read, expected] : refused) {
    const std::string got = refusal_of(read);
    EXPECT_EQ(got.rfind("run record: " + expected, 0), 0u) << got << "\nnot: " << expected;
  }
}

// --- blocks' slowdowns ------------------------------------------------------------------------

const std::string kBlocksRecord =
    std::string(PINBENCH_DATA_DIR) + "/runs/blocks-h200-2026-12-02T064418Z.json";

// The committed blocks record as if measured beside a kernel, each case's slowdown `pct` (the
// kernel method's 30%: the budget's rules leave it out at 5%).
json beside(double pct) {
  json j = parse_record_text(test::read_file(kBlocksRecord));
  j["config"]["beside"] = {{"name", "compute"},
                           {"work_rounds", 2048},
                           {"launch_ms", 0.1},
                           {"blocks_per_sm", 2},
                           {"threads_per_block", 512}};
  for (json& c : j["cases"]) {
    c["extra"]["slowdown_pct"] = c["method"] == "kernel" ? 30.0 : pct;
    c["extra"]["beside_train"] = 12;
    c["extra"]["beside_alone_ms"] = 1.2;
    c["extra"]["beside_with_ms"] = 1.25;
  }
  return j;
}

TEST(BlocksSlowdown, OnlyAFigureWithinMinusFiveToTenThousandPercentIsRead) {
  for (double ok : {-5.0, -0.5, 0.0, 1.5, 9999.99, 10000.0}) {
    EXPECT_EQ(refusal_of([&] { record_from_json(beside(ok)); }), "(read)") << ok;
  }
  for (double forged : {-200.0, -1e308, -5.001, 10000.5, 1e308}) {
    json j = beside(1.0);
    j["cases"][3]["extra"]["slowdown_pct"] = forged;
    const std::string got = refusal_of([&] { record_from_json(j); });
    EXPECT_EQ(got.rfind(fmt::format("run record: 'cases[3].extra.slowdown_pct' is {}, not a "
                                    "kernel's slowdown in percent from -5 to 10000",
                                    shown(json(forged))),
                        0),
              0u)
        << got;
  }
  EXPECT_TRUE(slowdown_in_range(kLeastSlowdownPct) && slowdown_in_range(kMostSlowdownPct));
  EXPECT_FALSE(slowdown_in_range(std::nan("")));
}

// The forged figure does not reach the rules: --max-slowdown's replay refuses the record in one
// line (exit 2) instead of writing rules that pick the forged method.
TEST(BlocksSlowdown, AForgedRecordWritesNoRules) {
  const std::string dir = test::temp_dir();
  json j = beside(1.0);
  for (json& c : j["cases"]) {
    if (c["method"] == "kernel") c["extra"]["slowdown_pct"] = -200.0;
  }
  test::write_file(dir + "/forged.json", j.dump());
  const test::Result r = test::run(kBin + "blocks --replay " + dir +
                                   "/forged.json --max-slowdown 5 --recommend " + dir + "/r.json");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  EXPECT_NE(r.err.find("extra.slowdown_pct' is -200.0, not a kernel's slowdown in percent from "
                       "-5 to 10000"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir + "/r.json"));
}

TEST(BlocksSlowdown, TheCalibrationCacheHoldsTheSameRange) {
  CalibrationTable t;
  t.identity = {"Test GPU", 13000, "0.1.0"};
  t.created_utc = "2026-12-03T10:00:00Z";
  t.sizes = {4096};
  t.counts = {1};
  t.points.push_back(
      {BlockDirection::kToDevice, BlockMemory::kPinned, BlockMethod::kBatch, 4096, 1, 5.0, 1.5});
  t.points.push_back(
      {BlockDirection::kToDevice, BlockMemory::kPinned, BlockMethod::kKernel, 4096, 1, 9.0, 40.0});
  const auto kind_of = [&](const CalibrationTable& table, std::string* what) {
    try {
      calibration_from_json(calibration_to_json(table), t.identity, "cache.json");
    } catch (const BlockCalibrationError& e) {
      *what = e.what();
      return static_cast<int>(e.kind());
    }
    return -1;
  };
  std::string what;
  EXPECT_EQ(kind_of(t, &what), -1) << what;
  for (double forged : {-200.0, -1e308, -5.5, 10001.0}) {
    CalibrationTable bad = t;
    bad.points[1].slowdown_pct = forged;
    EXPECT_EQ(kind_of(bad, &what), static_cast<int>(BlockCalibrationError::Kind::kMalformed))
        << forged;
    EXPECT_EQ(what.rfind("cache.json: point h2d pinned kernel 4096 x 1's \"slowdown_pct\" is ", 0),
              0u)
        << what;
    EXPECT_NE(what.find("not a kernel's slowdown in percent from -5 to 10000"), std::string::npos)
        << what;
    // A table in memory is held to the same rule.
    EXPECT_THROW(validate_calibration(bad, "t"), BlockCalibrationError);
  }
  for (const char* when : {"yesterday", "", "2026-13-01T00:00:00Z"}) {
    CalibrationTable bad = t;
    bad.created_utc = when;
    EXPECT_EQ(kind_of(bad, &what), static_cast<int>(BlockCalibrationError::Kind::kMalformed));
    EXPECT_NE(what.find("\"created_utc\" is \"" + std::string(when) + "\", not an RFC 3339"),
              std::string::npos)
        << what;
  }
}

// --- every date-time of every record ----------------------------------------------------------

// Every string of `j` that is a date-time, by its path as the messages name it.
void find_times(const json& j, const std::string& path, std::vector<std::string>* paths) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      find_times(*it, path.empty() ? it.key() : path + "." + it.key(), paths);
    }
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) {
      find_times(j[i], fmt::format("{}[{}]", path, i), paths);
    }
  } else if (j.is_string() && rfc3339_seconds(j.get<std::string>())) {
    paths->push_back(path);
  }
}

json& at_path(json& j, const std::string& path) {
  json* at = &j;
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') ++i;
    if (path[i] == '[') {
      const std::size_t end = path.find(']', i);
      at = &(*at)[std::stoul(path.substr(i + 1, end - i - 1))];
      i = end + 1;
    } else {
      const std::size_t end = path.find_first_of(".[", i);
      at = &(*at)[path.substr(i, end == std::string::npos ? end : end - i)];
      i = end == std::string::npos ? path.size() : end;
    }
  }
  return *at;
}

// Every record pinbench writes, as committed (one of each kind of run), and a fleet record of
// today's form (the committed one is pinbench 0.1's, its checks whole).
std::vector<std::pair<std::string, json>> every_kind_of_record() {
  std::vector<std::pair<std::string, json>> out;
  std::set<std::string> kinds;
  for (const fs::directory_entry& e :
       fs::directory_iterator(std::string(PINBENCH_DATA_DIR) + "/runs")) {
    const std::string name = e.path().filename().string();
    if (!e.is_regular_file() || e.path().extension() != ".json" ||
        name.find(".trace.json") != std::string::npos) {
      continue;
    }
    if (!kinds.insert(name.substr(0, name.find("-h200"))).second) continue;
    out.emplace_back(name, parse_record_text(test::read_file(e.path().string())));
  }
  const RunRecord check =
      load_record(std::string(PINBENCH_DATA_DIR) + "/runs/check-h200-2026-12-01T095735Z.json");
  out.emplace_back("a fleet", to_json(make_fleet_record(fleet_members({check}, {"a.json"}), "me")));
  return out;
}

// A date-time anywhere in a record, in a field of today or of code not yet written, is read as
// one: "yesterday" in its place is refused, naming it.
TEST(RecordTimes, EveryDateTimeOfEveryRecordIsRefusedWhenItIsNotOne) {
  std::size_t seen = 0;
  for (const auto& [name, record] : every_kind_of_record()) {
    std::vector<std::string> paths;
    find_times(record, "", &paths);
    ASSERT_FALSE(paths.empty()) << name;
    for (const std::string& path : paths) {
      json spoilt = record;
      at_path(spoilt, path) = "yesterday";
      const std::string got = refusal_of([&] { record_from_json(spoilt); });
      // A fleet of 0.1 names its member: 'members[0]': run record: 'created_utc' ...
      const std::string field =
          path.rfind("members[", 0) == 0 ? path.substr(path.find('.') + 1) : path;
      EXPECT_NE(got.find("'" + field + "' is \"yesterday\", not an RFC 3339 date-time"),
                std::string::npos)
          << name << ": " << path << ": " << got;
      ++seen;
    }
  }
  EXPECT_GE(seen, 15u);  // every record's created_utc, and a fleet's hosts'
}

TEST(RecordTimes, AFleetHostsCreatedUtcOfYesterdayIsRefusedOnTheCommandLine) {
  const RunRecord check =
      load_record(std::string(PINBENCH_DATA_DIR) + "/runs/check-h200-2026-12-01T095735Z.json");
  json fleet = to_json(make_fleet_record(fleet_members({check}, {"a.json"}), "me"));
  fleet["config"]["hosts"][0]["created_utc"] = "yesterday";
  const std::string dir = test::temp_dir();
  test::write_file(dir + "/fleet.json", fleet.dump());
  const test::Result r = test::run(kBin + "fleet --replay " + dir + "/fleet.json");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find("'config.hosts[0].created_utc' is \"yesterday\", not an RFC 3339"),
            std::string::npos)
      << r.err;
  // The fleet's own reader says the same of the hosts it is given.
  EXPECT_NE(refusal_of([&] {
              fleet_members_from_json(fleet["config"]["hosts"], fleet["config"]);
            }).find("'config.hosts[0].created_utc' is \"yesterday\""),
            std::string::npos);
}

// --- a fleet's rows, by their named columns only ------------------------------------------------

TEST(FleetColumns, ARecordThatDoesNotNameItsColumnsIsRefusedNotReadByPosition) {
  const RunRecord check =
      load_record(std::string(PINBENCH_DATA_DIR) + "/runs/check-h200-2026-12-01T095735Z.json");
  json fleet = to_json(make_fleet_record(fleet_members({check}, {"a.json"}), "me"));
  EXPECT_EQ(refusal_of([&] { record_from_json(fleet); }), "(read)");
  for (const json& spoilt : {json(nullptr), json("index,name"), json(json::array())}) {
    json j = fleet;
    if (spoilt.is_null()) {
      j["config"].erase("gpu_columns");
    } else {
      j["config"]["gpu_columns"] = spoilt;
    }
    const std::string got = refusal_of([&] { record_from_json(j); });
    EXPECT_NE(got.find("'config.gpu_columns'"), std::string::npos) << spoilt.dump() << ": " << got;
  }
  // A rate no link gives is refused by its column's name.
  json j = fleet;
  j["config"]["hosts"][0]["gpus"][0][11] = -1e308;
  EXPECT_EQ(refusal_of([&] { record_from_json(j); }),
            "run record: 'config.hosts[0].gpus[0][11]' (pinned_h2d) is -1e+308, not a rate in GB/s "
            "from 0 to 1000000");
}

// --- Prometheus labels, one to one --------------------------------------------------------------

// A label as the file holds it, back to the value it came from: the format's escapes undone, then
// the text's (\\ a backslash, \xNN a byte, \uNNNN a code point). Throws on what metric_label
// never writes.
std::string label_value(const std::string& label) {
  std::string text;
  for (std::size_t i = 0; i < label.size(); ++i) {
    if (label[i] != '\\') {
      if (label[i] == '"' || label[i] == '\n') throw std::runtime_error("unescaped in " + label);
      text += label[i];
      continue;
    }
    const char e = label.at(++i);
    if (e != '\\' && e != '"' && e != 'n') throw std::runtime_error("bad escape in " + label);
    text += e == 'n' ? '\n' : e;
  }
  std::string value;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      value += text[i];
      continue;
    }
    const char e = text.at(++i);
    if (e == '\\') {
      value += '\\';
    } else if (e == 'x') {
      value += static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else if (e == 'u') {
      const int cp = std::stoi(text.substr(i + 1, 4), nullptr, 16);  // C1: two bytes of UTF-8
      value += static_cast<char>(0xC0 | (cp >> 6));
      value += static_cast<char>(0x80 | (cp & 0x3F));
      i += 4;
    } else {
      throw std::runtime_error("bad text escape in " + label);
    }
  }
  return value;
}

TEST(PrometheusLabels, EveryLabelReadsBackAsTheValueItCameFrom) {
  std::vector<std::string> values = {"",
                                     std::string{'c', '\x01', 'd'},
                                     "c\\x01d",
                                     "c\\\\x01d",
                                     "a\nb",
                                     "a\\nb",
                                     "a\\\nb",
                                     "\\",
                                     "\"",
                                     "\\\"",
                                     "\x7F",
                                     "\\x7F",
                                     "\xC2\x85",
                                     "\\u0085",
                                     "\x85",
                                     "\\x85",
                                     "\xE2\x80\xAE",
                                     "host-01",
                                     std::string(1, '\0')};
  std::mt19937 rng(45);
  const std::string pieces[] = {"\\",
                                "x",
                                "0",
                                "1",
                                "u",
                                "n",
                                "\"",
                                "\n",
                                "\x01",
                                "\x1B",
                                "\x7F",
                                "\x85",
                                "\xC2",
                                "\xC2\x85",
                                "a",
                                "\xE2\x82\xAC",
                                std::string(1, '\0')};
  for (int n = 0; n < 20000; ++n) {
    std::string v;
    for (int k = std::uniform_int_distribution<int>(0, 6)(rng); k > 0; --k) {
      v += pieces[std::uniform_int_distribution<std::size_t>(0, std::size(pieces) - 1)(rng)];
    }
    values.push_back(v);
  }
  std::map<std::string, std::string> by_label;
  for (const std::string& v : values) {
    const std::string label = metric_label(v);
    for (char c : label) {
      const auto b = static_cast<unsigned char>(c);
      ASSERT_FALSE(b < 0x20 || b == 0x7F) << "a control byte in the label of " << json(v).dump();
    }
    EXPECT_EQ(label_value(label), v) << label;
    const auto [it, fresh] = by_label.emplace(label, v);
    EXPECT_TRUE(fresh || it->second == v)
        << json(v).dump() << " and " << json(it->second).dump() << " share " << label;
  }
}

// A fleet of hosts named with a control byte and hosts named with its escape's text: no two share
// a series.
TEST(PrometheusLabels, NoTwoHostsOfAFleetShareASeries) {
  const RunRecord check =
      load_record(std::string(PINBENCH_DATA_DIR) + "/runs/check-h200-2026-12-01T095735Z.json");
  const CheckAnalysis a = analyse_check(check);
  ASSERT_FALSE(a.gpus.empty());
  std::vector<std::string> hosts;  // each once; "c\nd" among the control bytes
  for (int b = 1; b < 0x20; b += 3) {
    hosts.push_back(fmt::format("c{}d", static_cast<char>(b)));
    hosts.push_back(fmt::format("c\\x{:02X}d", b));
  }
  for (const char* h : {"c\\nd", "c\\\nd", "c\"d", "c\\\"d", "c\\d", "c\\\\d"}) {
    hosts.push_back(h);
  }
  ASSERT_EQ(std::set<std::string>(hosts.begin(), hosts.end()).size(), hosts.size());
  std::vector<MetricsGpu> gpus;
  for (const std::string& h : hosts) gpus.push_back({h, &a.gpus[0], std::int64_t{1}, false});
  const std::string text = check_metrics(gpus);
  std::map<std::string, int> series;  // a sample's name and labels: one per host
  std::size_t at = 0;
  int samples = 0;
  while (at < text.size()) {
    const std::size_t end = text.find('\n', at);
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    if (line.empty() || line[0] == '#') continue;
    ++samples;
    ++series[line.substr(0, line.rfind(' '))];
  }
  EXPECT_GT(samples, static_cast<int>(hosts.size()));
  for (const auto& [s, n] : series) EXPECT_EQ(n, 1) << s;
}

}  // namespace
}  // namespace pinbench
