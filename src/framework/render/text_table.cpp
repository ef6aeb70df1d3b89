#include "framework/render/text_table.hpp"

#include "framework/printable.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

namespace pinbench {
namespace {

std::vector<bool> first_left(std::size_t columns) {
  std::vector<bool> right(columns, true);
  if (!right.empty()) right.front() = false;
  return right;
}

// The columns `text` cannot be narrower than once wrapped: its leading spaces and longest word.
std::size_t narrowest(const std::string& text) {
  const std::size_t lead = std::min(text.find_first_not_of(' '), text.size());
  std::size_t most = 0;
  for (std::size_t at = lead; at < text.size();) {
    const std::size_t end = std::min(text.find(' ', at), text.size());
    most = std::max(most, display_width(text.substr(at, end - at)));
    at = end + 1;
  }
  return lead + most;
}

std::string pad(const std::string& text, std::size_t width, bool right) {
  const std::string fill(width - std::min(width, display_width(text)), ' ');
  return right ? fill + text : text + fill;
}

std::string trimmed(std::string line) {
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line + "\n";
}

// A table's columns as one layout sees them: how wide each is as it stands, how narrow it may
// go at each step of narrowing, and how wide it is when held to a limit. The steps, each tried
// only where the one before is not enough: headers wrap; then text cells other than the key
// columns'; then the key columns' too, which name a row and so read best whole.
class Shape {
 public:
  Shape(const std::vector<std::string>& header, const std::vector<bool>& right,
        const std::vector<std::vector<std::string>>& rows, std::size_t keys)
      : header_(header), right_(right), rows_(rows) {
    for (std::size_t c = 0; c < header.size(); ++c) {
      std::size_t widest = 0;
      std::size_t word = 0;
      for (const auto& row : rows) {
        widest = std::max(widest, display_width(row[c]));
        word = std::max(word, narrowest(row[c]));
      }
      natural_.push_back(std::max(widest, display_width(header[c])));
      const std::size_t whole = std::max(widest, narrowest(header[c]));
      // Numbers keep their width; a text column wraps its cells only down to kNarrowestWrap.
      const std::size_t cells =
          right[c] ? widest : std::max(word, std::min(widest, kNarrowestWrap));
      const std::size_t wrapped = std::max(cells, narrowest(header[c]));
      floors_[0].push_back(whole);
      floors_[1].push_back(c < keys ? whole : wrapped);
      floors_[2].push_back(wrapped);
      held_.emplace_back(natural_.back() + 1);
    }
  }

  // Column `c` held to `limit` columns: its header and (text) cells wrapped to it, never
  // narrower than `floor`, and the width and height (the most lines of its header or a cell)
  // that gives it. A cell is wrapped only where it is wider than the column is held to, so one
  // answer serves every floor.
  struct Held {
    std::size_t width = 0;
    std::size_t height = 0;
  };
  Held held(std::size_t c, std::size_t limit, const std::vector<std::size_t>& floor) const {
    const std::size_t to = std::max(floor[c], std::min(natural_[c], limit));
    std::optional<Held>& known = held_[c][to];
    if (known) return *known;
    Held h;
    const auto add = [&](const std::vector<std::string>& lines) {
      for (const std::string& line : lines) h.width = std::max(h.width, display_width(line));
      h.height = std::max(h.height, lines.size());
    };
    add(lines(header_[c], to, true));
    for (const auto& row : rows_) add(lines(row[c], to, !right_[c]));
    known = h;
    return h;
  }

  // `cols`' widths within `room` columns (two spaces apart), or none when they do not fit even
  // at their floors. Each step of narrowing (floors_) starts from the natural widths and narrows
  // the widest column that can narrow, one wrap at a time (of two as wide, the one that saves
  // more, then the one left the shorter), until the columns fit: a table wraps no more than it
  // must, and a column that wraps little keeps its one line. Steps after `last` are not tried.
  std::optional<std::vector<std::size_t>> fit(const std::vector<std::size_t>& cols,
                                              std::size_t room, std::size_t last = 2) const {
    for (std::size_t step = 0; step <= last; ++step) {
      const std::vector<std::size_t>& floor = floors_[step];
      std::vector<std::size_t> widths;
      std::size_t total = 2 * (cols.size() - 1);
      for (std::size_t c : cols) {
        widths.push_back(natural_[c]);
        total += natural_[c];
      }
      while (total > room) {
        std::optional<std::size_t> pick;
        Held best;
        for (std::size_t i = 0; i < cols.size(); ++i) {
          if (widths[i] == 0) continue;
          const Held next = held(cols[i], widths[i] - 1, floor);
          if (next.width >= widths[i]) continue;  // at its floor
          const bool better = !pick || widths[i] > widths[*pick] ||
                              (widths[i] == widths[*pick] &&
                               (next.width < best.width ||
                                (next.width == best.width && next.height < best.height)));
          if (better) {
            pick = i;
            best = next;
          }
        }
        if (!pick) break;
        total -= widths[*pick] - best.width;
        widths[*pick] = best.width;
      }
      if (total <= room) return widths;
    }
    return std::nullopt;
  }

  // `text` as the lines a cell of `width` shows: wrapped where it may wrap and is wider.
  static std::vector<std::string> lines(const std::string& text, std::size_t width, bool wraps) {
    if (!wraps || display_width(text) <= width) return {text};
    return wrap_words(text, width);
  }

 private:
  const std::vector<std::string>& header_;
  const std::vector<bool>& right_;
  const std::vector<std::vector<std::string>>& rows_;
  std::vector<std::size_t> natural_;
  std::vector<std::size_t> floors_[3];  // by step: headers, other text cells, key cells
  mutable std::vector<std::vector<std::optional<Held>>> held_;  // by column and held width
};

// The columns `cols` of a table at `widths`: the header (its wrapped lines bottom-aligned, on
// the rule), the rule, then each row, its wrapped cells top-aligned.
std::string render_part(const std::vector<std::string>& header, const std::vector<bool>& right,
                        const std::vector<std::vector<std::string>>& rows,
                        const std::vector<std::size_t>& cols,
                        const std::vector<std::size_t>& widths, const std::string& indent) {
  // One block of lines: cells[i] are column cols[i]'s lines, `bottom` aligns them to the last.
  const auto block = [&](const std::vector<std::vector<std::string>>& cells, bool bottom) {
    std::size_t height = 0;
    for (const auto& c : cells) height = std::max(height, c.size());
    std::string out;
    for (std::size_t l = 0; l < height; ++l) {
      std::string line = indent;
      for (std::size_t i = 0; i < cols.size(); ++i) {
        const std::size_t skip = bottom ? height - cells[i].size() : 0;
        const bool here = l >= skip && l - skip < cells[i].size();
        if (i > 0) line += "  ";
        line += pad(here ? cells[i][l - skip] : "", widths[i], right[cols[i]]);
      }
      out += trimmed(line);
    }
    return out;
  };
  std::vector<std::vector<std::string>> cells;
  std::size_t total = 2 * (cols.size() - 1);
  for (std::size_t i = 0; i < cols.size(); ++i) {
    cells.push_back(Shape::lines(header[cols[i]], widths[i], true));
    total += widths[i];
  }
  std::string out = block(cells, true) + indent + std::string(total, '-') + "\n";
  for (const auto& row : rows) {
    cells.clear();
    for (std::size_t i = 0; i < cols.size(); ++i) {
      cells.push_back(Shape::lines(row[cols[i]], widths[i], !right[cols[i]]));
    }
    out += block(cells, false);
  }
  return out;
}

// One block a row, a blank line between: each column's header, then its value wrapped beside it,
// or under it where a word of it is wider than the room beside. A word wider than even that (a
// path, a UUID longer than a line) is never broken: it stands alone on its line, past the width.
std::string render_stacked(const std::vector<std::string>& header,
                           const std::vector<std::vector<std::string>>& rows,
                           const std::string& indent, std::size_t width) {
  std::size_t label = 0;
  for (const std::string& h : header) label = std::max(label, display_width(h));
  const std::size_t used = display_width(indent);
  const std::size_t beside = width > used + label + 2 ? width - used - label - 2 : 1;
  const std::size_t under = width > used + 4 ? width - used - 4 : 1;
  std::string out;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (r > 0) out += "\n";
    for (std::size_t c = 0; c < header.size(); ++c) {
      const std::string& value = rows[r][c];
      const std::string head = indent + pad(header[c], label, false);
      if (narrowest(value) <= beside) {
        const std::vector<std::string> lines = Shape::lines(value, beside, true);
        out += trimmed(head + "  " + lines.front());
        for (std::size_t l = 1; l < lines.size(); ++l) {
          out += trimmed(indent + std::string(label + 2, ' ') + lines[l]);
        }
      } else {
        out += trimmed(head);
        for (const std::string& l : wrap_words(value, under)) out += trimmed(indent + "    " + l);
      }
    }
  }
  return out;
}

}  // namespace

std::size_t display_width(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::vector<std::string> wrap_words(const std::string& text, std::size_t width) {
  // A cell's leading spaces (a sub-row's indent) start each of its lines.
  const std::size_t lead = std::min(text.find_first_not_of(' '), text.size());
  const std::string indent(lead, ' ');
  std::vector<std::string> out;
  std::string line;
  for (std::size_t at = lead; at < text.size();) {
    if (text[at] == ' ') {
      ++at;
      continue;
    }
    const std::size_t end = std::min(text.find(' ', at), text.size());
    const std::string word = text.substr(at, end - at);
    if (!line.empty() && lead + display_width(line) + 1 + display_width(word) > width) {
      out.push_back(indent + line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    at = end;
  }
  out.push_back(indent + line);
  return out;
}

TextTable::TextTable(std::vector<std::string> header)
    : header_(std::move(header)), right_(first_left(header_.size())) {}

TextTable::TextTable(std::vector<std::string> header, std::vector<bool> right_aligned)
    : header_(std::move(header)), right_(std::move(right_aligned)) {
  if (right_.size() != header_.size()) {
    throw std::invalid_argument("table alignment has the wrong width");
  }
}

TextTable& TextTable::key_columns(std::size_t n) {
  keys_ = n;
  return *this;
}

void TextTable::add_row(std::vector<std::string> row) {
  if (row.size() != header_.size()) throw std::invalid_argument("table row has the wrong width");
  for (std::string& cell : row) cell = printable(cell);  // a record's words, never its controls
  rows_.push_back(std::move(row));
}

std::string TextTable::render(const std::string& indent, std::size_t width) const {
  if (header_.empty()) return "";
  const std::size_t keys = std::min(keys_, header_.size() - 1);
  const Shape shape(header_, right_, rows_, keys);
  const std::size_t used = display_width(indent);
  const std::size_t room = width > used ? width - used : 0;
  std::vector<std::size_t> all(header_.size());
  for (std::size_t c = 0; c < all.size(); ++c) all[c] = c;
  // As it is, or narrowed: one table.
  if (const auto widths = shape.fit(all, room)) {
    return render_part(header_, right_, rows_, all, *widths, indent);
  }
  // In parts, each as many columns as fit beside the keys, in order, their cells whole where
  // a column fits beside the keys so (only headers wrapped); a column that does not gets a part
  // narrowed as far as it takes, and the columns after it join it as long as they fit that way.
  const std::vector<std::size_t> key_cols(all.begin(), all.begin() + keys);
  std::vector<std::vector<std::size_t>> parts;
  std::vector<std::size_t> part = key_cols;
  std::size_t step = 0;  // how far the part being filled is narrowed
  for (std::size_t c = keys; c < all.size(); ++c) {
    part.push_back(c);
    if (shape.fit(part, room, step)) continue;
    part.pop_back();
    if (part.size() > keys) parts.push_back(part);
    part = key_cols;
    part.push_back(c);
    for (step = 0; step <= 2 && !shape.fit(part, room, step); ++step) {
    }
    if (step > 2) return render_stacked(header_, rows_, indent, width);
  }
  parts.push_back(part);
  std::string out;
  for (const std::vector<std::size_t>& p : parts) {
    out += (out.empty() ? "" : "\n") +
           render_part(header_, right_, rows_, p, *shape.fit(p, room), indent);
  }
  return out;
}

}  // namespace pinbench
