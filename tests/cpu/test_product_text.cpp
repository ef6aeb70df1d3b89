// Product text speaks of the product only: the docs, the scripts, the Python package, the examples,
// the public headers and every report pinbench prints (through the golden files its renderers are
// compared with) never point a reader at an issue, a working session or targets set somewhere
// else. A goal is stated in its own words ("what the engine aims for"). This test reads every
// such file and names each line that does otherwise.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

namespace pinbench {
namespace {

namespace fs = std::filesystem;

std::string repo_root() {
  return fs::path(PINBENCH_DATA_DIR).parent_path().string();
}

// Words that refer to where the work was organised rather than to the product.
const std::regex& workshop_words() {
  static const std::regex re(
      R"((\bissue #?[0-9]+)|(\bthe issue\b)|(\bissue's\b)|(\bsessions?\b)|(\bthe lead\b)|(\btargets? from\b))",
      std::regex::icase);
  return re;
}

struct Hit {
  std::string where;
  std::string line;
};

std::vector<Hit> scan_file(const fs::path& file, const std::string& relative) {
  std::vector<Hit> hits;
  std::ifstream in(file, std::ios::binary);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    // std::regex is slow on the golden HTML; look for the words' stems first.
    std::string lower = line;
    for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    bool stem = false;
    for (const char* w : {"issue", "session", "lead", "target"}) {
      stem = stem || lower.find(w) != std::string::npos;
    }
    if (stem && std::regex_search(line, workshop_words())) {
      hits.push_back({relative + ":" + std::to_string(number), line});
    }
  }
  return hits;
}

std::vector<Hit> scan_tree(const std::string& folder) {
  std::vector<Hit> hits;
  const fs::path root(repo_root());
  const fs::path top = root / folder;
  if (!fs::exists(top)) return hits;
  static const char* const kText[] = {".md",  ".txt", ".html", ".csv", ".py", ".sh",
                                      ".hpp", ".h",   ".json", ".in",  ".cfg"};
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(top)) {
    if (!e.is_regular_file()) continue;
    const std::string ext = e.path().extension().string();
    bool text = false;
    for (const char* t : kText) text = text || ext == t;
    if (!text) continue;
    const std::vector<Hit> found =
        scan_file(e.path(), fs::relative(e.path(), root).generic_string());
    hits.insert(hits.end(), found.begin(), found.end());
  }
  return hits;
}

TEST(ProductText, SpeaksOfTheProductOnly) {
  std::vector<Hit> hits;
  for (const char* folder : {"docs", "scripts", "python", "examples", "include", "tests/golden"}) {
    const std::vector<Hit> found = scan_tree(folder);
    hits.insert(hits.end(), found.begin(), found.end());
  }
  std::string report;
  for (const Hit& h : hits) report += "  " + h.where + ": " + h.line + "\n";
  EXPECT_TRUE(hits.empty()) << "say it in the product's own words:\n" << report;
}

TEST(ProductText, TheWordsAreCaught) {
  for (const char* bad : {"Goals (H200 targets from the issue; findings, not checks)",
                          "the subject of issue 15's items", "measured in this session",
                          "as the lead asked", "Issue 30's goals"}) {
    EXPECT_TRUE(std::regex_search(std::string(bad), workshop_words())) << bad;
  }
  for (const char* fine : {"Goals (what the engine aims for on an H200; findings, not checks)",
                           "pinbench issues other cudaMemcpyAsync calls",
                           "the publisher stores the new ticket", "a copy's first chunk"}) {
    EXPECT_FALSE(std::regex_search(std::string(fine), workshop_words())) << fine;
  }
}

}  // namespace
}  // namespace pinbench
