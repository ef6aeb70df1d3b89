// A plain aligned text table for terminals: a header, a rule, and rows. By default the first
// column is left-aligned and the others right-aligned, which suits a label followed by numbers;
// a table of mixed columns says per column which are right-aligned (numbers), and its text
// columns, header and cells alike, start at the column's left edge.
//
// Every table any printer makes keeps within a terminal's width (kTextColumns, the indent
// included), whatever its records hold, in the first of these layouts that fits:
//
//   1. as it is, one line a row;
//   2. narrowed: a header wraps at its spaces over several lines (the last one on the rule); where
//      that is not enough, a left-aligned (text) cell wider than kNarrowestWrap wraps at its
//      spaces within its column, never narrower than kNarrowestWrap nor its longest word, those
//      of the key columns (below) last; numbers never wrap;
//   3. in parts: the columns split into groups, each printed as a table of its own (narrowed if
//      it needs to be) that starts with the key columns, the leading columns that name a row, so
//      each part's rows read on their own;
//   4. one block a row, each column's header beside its value, for a table whose key columns and
//      one other column cannot stand side by side.
//
// Words are never broken: a word longer than a line (a path, a UUID) stands alone on its line
// and may run past the width, the one case a line of a table does.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace pinbench {

// Terminal text is read at most this wide: every paragraph is wrapped to it, every table fits it.
constexpr std::size_t kTextColumns = 100;

// A text column wider than this may wrap its cells to fit the table; one narrower never does.
constexpr std::size_t kNarrowestWrap = 16;

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header);
  // `right_aligned` has one flag per column; throws std::invalid_argument when it has not.
  TextTable(std::vector<std::string> header, std::vector<bool> right_aligned);
  // The leading columns that name a row (1 unless set), repeated at the left of each part when
  // the table is printed in parts.
  TextTable& key_columns(std::size_t n);
  void add_row(std::vector<std::string> row);  // throws std::invalid_argument on a width mismatch
  // Every line, `indent` included, within `width` columns (display_width), but for a word
  // longer than a line.
  std::string render(const std::string& indent = "  ", std::size_t width = kTextColumns) const;

 private:
  std::vector<std::string> header_;
  std::vector<bool> right_;
  std::size_t keys_ = 1;
  std::vector<std::vector<std::string>> rows_;
};

// Columns a terminal gives `text`: code points, so "—", "µ" and "×" count one each, not the
// two or three bytes UTF-8 spends on them.
std::size_t display_width(const std::string& text);

// `text` broken at its spaces into lines of at most `width` columns; a word longer than that has
// a line of its own. One line, "", for empty text.
std::vector<std::string> wrap_words(const std::string& text, std::size_t width);

}  // namespace pinbench
