#include "framework/render/text_table.hpp"

#include "framework/printable.hpp"

#include <algorithm>
#include <stdexcept>

namespace pinbench {
namespace {

std::vector<bool> first_left(std::size_t columns) {
  std::vector<bool> right(columns, true);
  if (!right.empty()) right.front() = false;
  return right;
}

}  // namespace

std::size_t display_width(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

TextTable::TextTable(std::vector<std::string> header)
    : header_(std::move(header)), right_(first_left(header_.size())) {}

TextTable::TextTable(std::vector<std::string> header, std::vector<bool> right_aligned)
    : header_(std::move(header)), right_(std::move(right_aligned)) {
  if (right_.size() != header_.size()) {
    throw std::invalid_argument("table alignment has the wrong width");
  }
}

void TextTable::add_row(std::vector<std::string> row) {
  if (row.size() != header_.size()) throw std::invalid_argument("table row has the wrong width");
  for (std::string& cell : row) cell = printable(cell);  // a record's words, never its controls
  rows_.push_back(std::move(row));
}

std::string TextTable::render(const std::string& indent) const {
  std::vector<std::size_t> width(header_.size(), 0);
  for (std::size_t i = 0; i < header_.size(); ++i) width[i] = display_width(header_[i]);
  for (const auto& row : rows_) {
    for (std::size_t i = 0; i < row.size(); ++i)
      width[i] = std::max(width[i], display_width(row[i]));
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out = indent;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const std::string pad(width[i] - display_width(cells[i]), ' ');
      if (i > 0) out += "  ";
      out += right_[i] ? pad + cells[i] : cells[i] + pad;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(header_);
  std::size_t total = 0;
  for (std::size_t w : width) total += w;
  out += indent + std::string(total + 2 * (width.size() - 1), '-') + "\n";
  for (const auto& row : rows_) out += line(row);
  return out;
}

}  // namespace pinbench
