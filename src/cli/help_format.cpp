#include "cli/help_format.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string_view>

#include <fmt/format.h>

#include "cli/command_help.hpp"
#include "cli/exit_codes.hpp"
#include "cli/numbers.hpp"
#include "framework/render/csv.hpp"
#include "framework/render/text.hpp"
#include "framework/render/text_table.hpp"

namespace pinbench::cli {
namespace {

// A paragraph of a .help file that gives the command's own exit statuses starts with this.
constexpr std::string_view kExitLead = "Exit: ";

bool is_flag(const CLI::Option& o) {
  return o.get_expected_max() == 0;
}

std::string option_names(const CLI::Option& o) {
  std::string out;
  for (const std::string& s : o.get_snames()) out += (out.empty() ? "-" : ", -") + s;
  for (const std::string& l : o.get_lnames()) out += (out.empty() ? "--" : ", --") + l;
  return out;
}

std::vector<std::string> split_paragraphs(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find("\n\n", start);
    if (end == std::string::npos) end = text.size();
    if (end > start) out.push_back(text.substr(start, end - start));
    start = end + 2;
  }
  return out;
}

// The positionals as the usage line writes them: "RECORD", "A B", "-- PROGRAM [ARGS...]".
std::string positional_usage(const CLI::App& app) {
  std::string out;
  for (const CLI::Option* o : app.get_options()) {
    if (o->nonpositional()) continue;
    std::string word = o->get_type_name();
    if (o->get_name() == "program") {
      word = "-- PROGRAM [ARGS...]";
    } else if (o->get_expected_max() > 1) {
      word += "...";
    }
    if (!o->get_required() && o->get_name() != "program") word = "[" + word + "]";
    out += " " + word;
  }
  return out;
}

// Whether `app` shows option `name` in its help.
bool has_option(const CLI::App& app, const std::string& name) {
  const CLI::Option* o = app.get_option_no_throw(name);
  return o != nullptr && !o->get_group().empty();
}

// The width of the column the descriptions start at.
std::size_t description_column(const std::vector<OptionDoc>& options) {
  std::size_t widest = 0;
  for (const OptionDoc& o : options) {
    const std::size_t w = display_width(o.names) + (o.metavar.empty() ? 0 : 1 + o.metavar.size());
    if (w <= 26) widest = std::max(widest, w);
  }
  return std::max<std::size_t>(widest + 4, 12);
}

// `text` wrapped like wrap_paragraph, except that a word too long for a line (a default list of
// names, "loop,batch-stream,...") breaks after its commas rather than running past the width.
std::string wrap_help(const std::string& text, const std::string& first, const std::string& rest,
                      std::size_t width) {
  struct Piece {
    std::string text;
    bool space_before;
  };
  std::vector<Piece> pieces;
  const std::size_t room = width > display_width(rest) ? width - display_width(rest) : 1;
  std::size_t at = 0;
  while (at < text.size()) {
    if (text[at] == ' ') {
      ++at;
      continue;
    }
    const std::size_t end = std::min(text.find(' ', at), text.size());
    const std::string word = text.substr(at, end - at);
    if (display_width(word) <= room || word.find(',') == std::string::npos) {
      pieces.push_back({word, true});
    } else {
      std::size_t from = 0;
      bool first_piece = true;
      while (from < word.size()) {
        const std::size_t comma = word.find(',', from);
        const std::size_t stop = comma == std::string::npos ? word.size() : comma + 1;
        pieces.push_back({word.substr(from, stop - from), first_piece});
        first_piece = false;
        from = stop;
      }
    }
    at = end;
  }
  std::string out;
  std::string line = first;
  bool empty = true;
  for (const Piece& p : pieces) {
    const std::size_t glue = !empty && p.space_before ? 1 : 0;
    if (!empty && display_width(line) + glue + display_width(p.text) > width) {
      out += line + "\n";
      line = rest;
      empty = true;
    }
    line += (!empty && p.space_before ? " " : "") + p.text;
    empty = false;
  }
  return out + line + "\n";
}

std::string render_options(const std::string& title, const std::vector<OptionDoc>& options,
                           std::size_t column, std::size_t width) {
  if (options.empty()) return "";
  std::string out = title + ":\n";
  const std::string hang(column, ' ');
  for (const OptionDoc& o : options) {
    const std::string head = "  " + o.names + (o.metavar.empty() ? "" : " " + o.metavar);
    std::string text = o.description;
    if (!o.default_value.empty()) text += " (default: " + o.default_value + ")";
    if (display_width(head) + 2 <= column) {
      out += wrap_help(text, head + std::string(column - display_width(head), ' '), hang, width);
    } else {
      out += head + "\n" + wrap_help(text, hang, hang, width);
    }
  }
  return out;
}

std::string render_paragraphs(const std::vector<std::string>& paragraphs, std::size_t width) {
  std::string out;
  for (const std::string& p : paragraphs) {
    out += "\n";
    if (p.rfind(kExitLead, 0) == 0) {
      out += wrap_paragraph(p, "", "  ", width);
    } else {
      out += wrap_paragraph(p, "", "", width);
    }
  }
  return out;
}

std::string render_root(const CLI::App& root, std::size_t width) {
  const CommandDoc doc = describe(root);
  std::string out = wrap_paragraph(doc.summary, "", "", width) + "\n";
  out += "Usage: pinbench SUBCOMMAND [OPTIONS]\n       pinbench help [SUBCOMMAND]\n\n";
  std::vector<OptionDoc> subs;
  for (const CLI::App* sub : root.get_subcommands({})) {
    subs.push_back({sub->get_name(), "", sub->get_description(), "", false});
  }
  const std::size_t column = std::max(description_column(subs), description_column(doc.options));
  out += render_options("Subcommands", subs, column, width) + "\n";
  out += render_options("Options", doc.options, column, width);
  out += render_paragraphs(doc.paragraphs, width);
  out += "\nExit codes:\n";
  for (const auto& [code, meaning] : exit_code_meanings()) {
    const std::string head = "  " + code;
    out += wrap_paragraph(meaning, head + std::string(column - head.size(), ' '),
                          std::string(column, ' '), width);
  }
  out += "\nEvery option of every subcommand: pinbench SUBCOMMAND --help, or docs/cli.md.\n";
  return out;
}

// Markdown table cells: no '|' and no line break inside one.
std::string cell(std::string text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::size_t distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

class HelpFormatter : public CLI::FormatterBase {
 public:
  std::string make_help(const CLI::App* app, std::string, CLI::AppFormatMode) const override {
    return render_help(*app, help_width());
  }
};

}  // namespace

const std::vector<std::string>& metavariables() {
  static const std::vector<std::string> names = {
      "FILE",    "DIR",   "RECORD", "A",      "B",    "PROGRAM",   "SIZE",
      "SIZES",   "RANGE", "N",      "COUNTS", "PCT",  "MS",        "US",
      "SECONDS", "X",     "GBPS",   "LIST",   "NAME", "SUBCOMMAND"};
  return names;
}

CommandDoc describe(const CLI::App& app) {
  CommandDoc doc;
  doc.name = app.get_name();
  if (app.get_parent() == nullptr) {
    // The program itself: the description's first line is its summary, the rest paragraphs.
    const std::string text = app.get_description();
    const std::size_t nl = text.find('\n');
    doc.summary = text.substr(0, nl);
    if (nl != std::string::npos) {
      for (std::string p : split_paragraphs(text.substr(nl + 1))) {
        std::replace(p.begin(), p.end(), '\n', ' ');
        doc.paragraphs.push_back(p);
      }
    }
    doc.usage = "pinbench SUBCOMMAND [OPTIONS]";
  } else {
    doc.summary = app.get_description();
    doc.usage = "pinbench " + doc.name + " [OPTIONS]" + positional_usage(app);
    doc.paragraphs = split_paragraphs(command_help(doc.name).details);
    const bool own_exit =
        std::any_of(doc.paragraphs.begin(), doc.paragraphs.end(),
                    [](const std::string& p) { return p.rfind(kExitLead, 0) == 0; });
    if (!own_exit && has_option(app, "--require-gpu")) {
      doc.paragraphs.push_back(std::string(kExitLead) + measuring_exit_codes());
    }
  }
  for (const CLI::Option* o : app.get_options()) {
    if (o->nonpositional() && o->get_group().empty()) continue;  // hidden
    OptionDoc d;
    d.positional = !o->nonpositional();
    d.names = d.positional ? o->get_type_name() : option_names(*o);
    d.metavar = d.positional || is_flag(*o) ? "" : o->get_type_name();
    d.description = o->get_description();
    // A range check makes the type name "MS:[0 to 60000]" (the number reader, cli/numbers.hpp)
    // or "SECONDS:FLOAT in [0 - 86400]" (CLI::Range): the name stays the metavariable and the
    // range goes into the description, in words.
    if (const std::size_t colon = d.metavar.find(':'); colon != std::string::npos) {
      const std::string check = d.metavar.substr(colon + 1);
      d.metavar.resize(colon);
      const std::size_t open = check.find('[');
      const std::size_t close = check.find(']', open);
      if (open != std::string::npos && close != std::string::npos) {
        std::string range = check.substr(open + 1, close - open - 1);
        if (const std::size_t dash = range.find(" - "); dash != std::string::npos) {
          range.replace(dash, 3, " to ");
        }
        d.description += " (" + range + ")";
      }
    }
    if (!d.positional && o->get_expected_max() > 1) d.metavar += "...";
    d.default_value = o->get_default_str();
    doc.options.push_back(std::move(d));
  }
  // Arguments first, as the usage line has them last: a reader looks for them first.
  std::stable_partition(doc.options.begin(), doc.options.end(),
                        [](const OptionDoc& d) { return d.positional; });
  return doc;
}

std::size_t help_width() {
  winsize size{};
  if (isatty(STDOUT_FILENO) != 0 && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 &&
      size.ws_col > 0) {
    return std::max<std::size_t>(size.ws_col, 40);
  }
  return kTextColumns;
}

std::string render_help(const CLI::App& app, std::size_t width) {
  if (app.get_parent() == nullptr) return render_root(app, width);
  const CommandDoc doc = describe(app);
  std::string out = wrap_paragraph(doc.summary, "", "", width) + "\n";
  out += wrap_paragraph(doc.usage, "Usage: ", "         ", width) + "\n";
  std::vector<OptionDoc> arguments;
  std::vector<OptionDoc> options;
  for (const OptionDoc& o : doc.options) (o.positional ? arguments : options).push_back(o);
  std::vector<OptionDoc> all = arguments;
  all.insert(all.end(), options.begin(), options.end());
  const std::size_t column = description_column(all);
  if (!arguments.empty()) out += render_options("Arguments", arguments, column, width) + "\n";
  out += render_options("Options", options, column, width);
  out += render_paragraphs(doc.paragraphs, width);
  return out;
}

std::string render_reference(const CLI::App& root) {
  std::string out =
      "# Command-line reference\n\n"
      "<!-- Generated by `pinbench help --reference`; tests/cpu/test_cli_help.cpp fails when it "
      "differs. Edit the options in the code and the prose in each command's .help file, then "
      "run `make docs`. -->\n\n";
  const CommandDoc top = describe(root);
  out += top.summary + "\n\n";
  for (const std::string& p : top.paragraphs) out += p + "\n\n";
  out +=
      "Every subcommand also takes `-h`/`--help`. Sizes take `B`, `KiB`, `MiB`, `GiB` (powers "
      "of two) or `KB`, `MB`, `GB` (powers of ten); a bare number is bytes. Every number is "
      "decimal (`010` is ten; `0x10`, `inf` and `nan` are refused) and within the range its "
      "option states.\n\n";
  out += "| exit status | meaning |\n|---|---|\n";
  for (const auto& [code, meaning] : exit_code_meanings()) {
    out += fmt::format("| {} | {} |\n", code, cell(meaning));
  }
  out += "\n";
  for (const CLI::App* sub : root.get_subcommands({})) {
    const CommandDoc doc = describe(*sub);
    out += fmt::format("## {}\n\n{}\n\n```\n{}\n```\n\n", doc.name, doc.summary, doc.usage);
    out += "| option | value | default | meaning |\n|---|---|---|---|\n";
    for (const OptionDoc& o : doc.options) {
      out += fmt::format("| `{}` | {} | {} | {} |\n", cell(o.names),
                         o.metavar.empty() ? "" : "`" + cell(o.metavar) + "`",
                         o.default_value.empty() ? "" : "`" + cell(o.default_value) + "`",
                         cell(o.description));
    }
    out += "\n";
    for (const std::string& p : doc.paragraphs) out += p + "\n\n";
  }
  out +=
      "## CSV columns\n\n"
      "`--csv FILE` and `pinbench report RECORD --csv FILE` write RFC 4180 CSV (CRLF line "
      "ends), one row per measured case and then one per judged claim. A field a spreadsheet "
      "would run as a formula starts with an apostrophe.\n\n"
      "| column | holds |\n|---|---|\n";
  for (const CsvColumn& c : csv_case_columns()) {
    out += fmt::format("| `{}` | {} |\n", c.name, cell(c.meaning));
  }
  out +=
      "\nA record with no measured case (accel, doctor) is written as its tables instead, one "
      "row per cell:\n\n| column | holds |\n|---|---|\n";
  for (const CsvColumn& c : csv_table_columns()) {
    out += fmt::format("| `{}` | {} |\n", c.name, cell(c.meaning));
  }
  return out;
}

std::string parse_error_line(const CLI::App& root, const CLI::ParseError& e) {
  const CLI::App* sub = nullptr;
  for (const CLI::App* s : root.get_subcommands({})) {
    if (s->parsed()) sub = s;
  }
  const std::string see =
      sub == nullptr ? "pinbench --help" : fmt::format("pinbench {} --help", sub->get_name());
  const std::string command = sub == nullptr ? "pinbench" : "pinbench " + sub->get_name();
  const std::string what = e.what();
  // An unknown option first, whatever CLI11 stopped at ("A is required" comes before it there):
  // a mistyped option is what the user most needs to hear of.
  {
    std::vector<std::string> extras = root.remaining(true);
    // Words after the failure may not have been read yet: only one no option of the command
    // answers to counts as unknown, and "--" is the program's marker, not an option.
    const auto option = std::find_if(extras.begin(), extras.end(), [sub](const std::string& a) {
      if (a.size() < 2 || a[0] != '-' || a == "--") return false;
      return sub == nullptr || sub->get_option_no_throw(a.substr(0, a.find('='))) == nullptr;
    });
    if (option != extras.end()) {
      const std::string name = option->substr(0, option->find('='));
      std::vector<std::string> known;
      if (sub != nullptr) {
        for (const CLI::Option* o : sub->get_options()) {
          for (const std::string& l : o->get_lnames()) known.push_back("--" + l);
          for (const std::string& s : o->get_snames()) known.push_back("-" + s);
        }
      }
      const std::string near = nearest(name, known);
      return fmt::format("unknown option '{}' for {}{} (see {})", name, command,
                         near.empty() ? "" : fmt::format("; did you mean '{}'?", near), see);
    }
    if (!extras.empty() && dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
      return fmt::format("unexpected argument '{}' for {} (see {})", extras.front(), command, see);
    }
  }
  // A value checker's "--seed: an empty value" (cli/numbers.hpp): the line every empty value gets.
  if (sub != nullptr) {
    const std::size_t colon = what.find(": ");
    if (colon != std::string::npos && what.substr(colon + 2) == kEmptyValue) {
      return empty_value_line(what.substr(0, colon), sub->get_name());
    }
  }
  // "Could not convert: --timed = abc", "--sizes: 1 required SIZES missing": say it with the
  // flag first, as every other value error does.
  const std::string convert = "Could not convert: ";
  if (what.rfind(convert, 0) == 0) {
    const std::string rest = what.substr(convert.size());
    const std::size_t eq = rest.find(" = ");
    if (eq != std::string::npos) {
      const std::string flag = rest.substr(0, eq);
      const CLI::Option* o = sub == nullptr ? nullptr : sub->get_option_no_throw(flag);
      return fmt::format("{}: cannot read '{}' as {} (see {})", flag, rest.substr(eq + 3),
                         o == nullptr ? "its value" : o->get_type_name(), see);
    }
  }
  if (const std::size_t at = what.find(" required ");
      at != std::string::npos && what.size() > 8 &&
      what.compare(what.size() - 8, 8, " missing") == 0) {
    const std::size_t colon = what.find(':');
    if (colon != std::string::npos && colon < at) {
      return fmt::format("{} needs a value (see {})", what.substr(0, colon), see);
    }
  }
  // "b is required": an argument is named as the help names it.
  const std::string required = " is required";
  if (sub != nullptr && what.size() > required.size() &&
      what.compare(what.size() - required.size(), required.size(), required) == 0) {
    const CLI::Option* o = sub->get_option_no_throw(what.substr(0, what.size() - required.size()));
    if (o != nullptr && !o->nonpositional()) {
      return fmt::format("{} is required (see {})", o->get_type_name(), see);
    }
  }
  return fmt::format("{} (see {})", what, see);
}

std::string empty_value_line(const std::string& flag, const std::string& command) {
  return fmt::format(
      "{} was given an empty value; give one, or leave {} out (see pinbench {} --help)", flag, flag,
      command);
}

std::shared_ptr<CLI::FormatterBase> help_formatter() {
  return std::make_shared<HelpFormatter>();
}

std::string nearest(const std::string& word, const std::vector<std::string>& known) {
  std::string best;
  std::size_t best_distance = std::string::npos;
  for (const std::string& k : known) {
    const std::size_t d = distance(word, k);
    if (d < best_distance) {
      best_distance = d;
      best = k;
    }
  }
  // A typo: a few letters off, or the word is the start of a longer one ("--size", "--sizes").
  const std::size_t allowed = std::max<std::size_t>(2, word.size() / 3);
  const bool prefix = !best.empty() && word.size() >= 3 &&
                      std::any_of(known.begin(), known.end(),
                                  [&](const std::string& k) { return k.rfind(word, 0) == 0; });
  if (best_distance <= allowed) return best;
  if (prefix) {
    for (const std::string& k : known) {
      if (k.rfind(word, 0) == 0) return k;
    }
  }
  return "";
}

}  // namespace pinbench::cli
