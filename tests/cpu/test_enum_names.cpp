// Every enum whose values have names (base/enum_names.hpp): its table names every enumerator of
// the enum, each name once, and a name reads back as the value it names. The enumerators are
// found by the compiler, not listed here: a value an enum does not declare prints as a cast in
// the compiler's name of a template over it, so a new enumerator without a row in its table fails
// here before any record or flag meets it.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/enum_names.hpp"
#include "experiments/blocks/plan.hpp"
#include "experiments/lesson/prediction4.hpp"
#include "experiments/pipeline/plan.hpp"
#include "experiments/staged/plan.hpp"
#include "framework/errors.hpp"
#include "framework/memory_kind.hpp"
#include "framework/sampling.hpp"
#include "framework/stats.hpp"
#include "framework/trace_model.hpp"
#include "framework/verdict.hpp"
#include "pinbench/block_choice.hpp"

namespace pinbench {
using namespace experiments::blocks;
using namespace experiments::lesson;
using namespace experiments::pipeline;
using namespace experiments::staged;
namespace {

// Whether V is one of its enum's enumerators: GCC and Clang name a template over V by the
// enumerator ("[with auto V = pinbench::Direction::kH2D]"), and a value the enum does not
// declare by a cast ("(pinbench::Direction)7").
template <auto V>
constexpr bool is_enumerator() {
  constexpr std::string_view f = __PRETTY_FUNCTION__;
  constexpr std::size_t at = f.find("V = ");
  static_assert(at != std::string_view::npos, "the compiler names the template's value");
  return f[at + 4] != '(';
}

template <class E, int... I>
std::vector<E> enumerators_in(std::integer_sequence<int, I...>) {
  std::vector<E> out;
  ((is_enumerator<static_cast<E>(I)>() ? out.push_back(static_cast<E>(I)) : void()), ...);
  return out;
}

// Every enumerator of E from 0 to 63.
template <class E>
std::vector<E> enumerators() {
  return enumerators_in<E>(std::make_integer_sequence<int, 64>{});
}

TEST(EnumNames, TheProbeSeesEnumeratorsAndOnlyThem) {
  EXPECT_EQ(enumerators<Direction>(),
            (std::vector<Direction>{Direction::kH2D, Direction::kD2H, Direction::kBidir}));
  enum class Gappy { kA = 1, kB = 5 };
  EXPECT_EQ(enumerators<Gappy>(), (std::vector<Gappy>{Gappy::kA, Gappy::kB}));
}

// `name(v)` and `parse(name)` over every enumerator: a name each, none twice, each read back.
template <class E, class Name, class Parse>
void expect_named(const char* what, Name name, Parse parse) {
  const std::vector<E> all = enumerators<E>();
  ASSERT_FALSE(all.empty()) << what;
  std::set<std::string> seen;
  for (const E v : all) {
    const std::string n = name(v);
    EXPECT_NE(n, "?") << what << " " << static_cast<int>(v) << " has no name";
    EXPECT_TRUE(seen.insert(n).second) << what << ": '" << n << "' names two values";
    EXPECT_EQ(parse(n), v) << what << ": '" << n << "' reads back as another value";
  }
}

// A table (base/enum_names.hpp): a row for every enumerator, and no row twice.
template <class E, std::size_t N>
void expect_table(const char* what, const EnumName<E> (&table)[N]) {
  EXPECT_EQ(N, enumerators<E>().size()) << what << ": a row for each enumerator, and no more";
  std::set<std::string> names;
  std::set<E> values;
  for (const EnumName<E>& row : table) {
    EXPECT_TRUE(names.insert(row.name).second) << what << ": '" << row.name << "' twice";
    EXPECT_TRUE(values.insert(row.value).second) << what << ": a value named twice";
  }
  expect_named<E>(
      what, [&](E v) { return name_in(table, v); },
      [&](const std::string& n) { return value_named(table, n).value(); });
}

TEST(EnumNames, EveryTableNamesEveryEnumeratorOnce) {
  expect_table("MemoryKind", kMemoryKindNames);
  expect_table("Direction", kDirectionNames);
  expect_table("CopyMethod", kCopyMethodNames);
  expect_table("CopyDirection", kCopyDirectionNames);
  expect_table("DriverMemoryKind", kDriverMemoryKindNames);
  expect_table("Stability", kStabilityNames);
  expect_table("StopReason", kStopReasonNames);
  expect_table("Verdict of a prediction", kPredictionVerdictWords);
  expect_table("Verdict of a goal", kGoalVerdictWords);
  expect_table("Judged", kJudgedNouns);
  expect_table("StagedMethod", kStagedMethodNames);
  expect_table("PipelineSource", kPipelineSourceNames);
  expect_table("BlocksMethod", kBlocksMethodNames);
  expect_table("Selection", kSelectionNames);
}

// The parsers and to_string that flags and records go through read the same tables.
TEST(EnumNames, ParsersReadTheTables) {
  expect_named<MemoryKind>(
      "parse_memory_kind", [](MemoryKind k) { return to_string(k); },
      [](const std::string& n) { return parse_memory_kind(n); });
  expect_named<Direction>(
      "parse_direction", [](Direction d) { return to_string(d); },
      [](const std::string& n) { return parse_direction(n); });
  expect_named<CopyMethod>(
      "parse_copy_method", [](CopyMethod m) { return to_string(m); },
      [](const std::string& n) { return parse_copy_method(n); });
  expect_named<StagedMethod>(
      "parse_staged_method", [](StagedMethod m) { return to_string(m); },
      [](const std::string& n) { return parse_staged_method(n); });
  expect_named<BlocksMethod>(
      "parse_blocks_method", [](BlocksMethod m) { return to_string(m); },
      [](const std::string& n) { return parse_blocks_method(n); });
  expect_named<PipelineSource>(
      "parse_pipeline_source", [](PipelineSource s) { return to_string(s); },
      [](const std::string& n) { return parse_pipeline_source(n); });
  expect_named<StopReason>(
      "parse_stop_reason", [](StopReason r) { return to_string(r); },
      [](const std::string& n) { return parse_stop_reason(n); });
  EXPECT_EQ(all_memory_kinds().size(), enumerators<MemoryKind>().size());
  EXPECT_EQ(all_staged_methods().size(), enumerators<StagedMethod>().size());
  EXPECT_EQ(all_blocks_methods().size(), enumerators<BlocksMethod>().size());
}

// The block copier's names, behind its public header (the engine's own tables).
TEST(EnumNames, TheBlockCopiersNamesReadBack) {
  expect_named<BlockDirection>(
      "BlockDirection", [](BlockDirection d) { return to_string(d); },
      [](const std::string& n) { return parse_block_direction(n).value(); });
  expect_named<BlockMemory>(
      "BlockMemory", [](BlockMemory m) { return to_string(m); },
      [](const std::string& n) { return parse_block_memory(n).value(); });
  expect_named<BlockMethod>(
      "BlockMethod", [](BlockMethod m) { return to_string(m); },
      [](const std::string& n) { return parse_block_method(n).value(); });
  EXPECT_EQ(enumerators<BlockMethod>().size(), static_cast<std::size_t>(kBlockMethods));
}

// A name no table holds: the parsers that refuse name the choices from the table.
TEST(EnumNames, AnUnknownNameListsTheTable) {
  try {
    parse_direction("sideways");
    FAIL() << "parse_direction took 'sideways'";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "unknown direction 'sideways' (choose from h2d, d2h, bidir)");
  }
  EXPECT_FALSE(value_named(kStopReasonNames, "bored").has_value());
  EXPECT_EQ(parse_stop_reason("bored"), StopReason::kContinue);
  EXPECT_FALSE(parse_block_method("teleport").has_value());
}

}  // namespace
}  // namespace pinbench
