// A plain aligned text table for terminals: a header, a rule, and rows. The first column is
// left-aligned, the others right-aligned, which suits a label followed by numbers.
#pragma once

#include <string>
#include <vector>

namespace pinbench {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header);
  void add_row(std::vector<std::string> row);  // throws std::invalid_argument on a width mismatch
  std::string render(const std::string& indent = "  ") const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace pinbench
