// A plain aligned text table for terminals: a header, a rule, and rows. By default the first
// column is left-aligned and the others right-aligned, which suits a label followed by numbers;
// a table of mixed columns says per column which are right-aligned (numbers), and its text
// columns, header and cells alike, start at the column's left edge.
#pragma once

#include <string>
#include <vector>

namespace pinbench {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header);
  // `right_aligned` has one flag per column; throws std::invalid_argument when it has not.
  TextTable(std::vector<std::string> header, std::vector<bool> right_aligned);
  void add_row(std::vector<std::string> row);  // throws std::invalid_argument on a width mismatch
  std::string render(const std::string& indent = "  ") const;

 private:
  std::vector<std::string> header_;
  std::vector<bool> right_;
  std::vector<std::vector<std::string>> rows_;
};

// Columns a terminal gives `text`: code points, so "—", "µ" and "×" count one each, not the
// two or three bytes UTF-8 spends on them.
std::size_t display_width(const std::string& text);

}  // namespace pinbench
