// The nsys stats CSV reader. A report is located by its header row: the first CSV record that
// holds every column the report needs. Everything before it is nsys talking; after it, every
// record must have the header's width, or the file was cut short.
#include "experiments/lesson/nsys_stats.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <set>

#include <fmt/format.h>

#include "framework/csv_reader.hpp"
#include "framework/errors.hpp"

namespace pinbench::experiments::lesson {
namespace {

namespace fs = std::filesystem;

std::string lower_word(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string trimmed(std::string_view s) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return std::string(s);
}

// File names each report had over nsys's history; the first is today's.
const std::vector<const char*>& file_names(NsysReport r) {
  static const std::map<NsysReport, std::vector<const char*>> names = {
      {NsysReport::kApiTrace, {"cuda_api_trace", "cudaapitrace"}},
      {NsysReport::kApiSum, {"cuda_api_sum", "cudaapisum"}},
      {NsysReport::kMemTimeSum, {"cuda_gpu_mem_time_sum", "gpumemtimesum"}},
      {NsysReport::kMemSizeSum, {"cuda_gpu_mem_size_sum", "gpumemsizesum"}},
      {NsysReport::kNvtxSum, {"nvtx_sum", "nvtx_pushpop_sum", "nvtxsum", "nvtxppsum"}},
      {NsysReport::kGpuTrace, {"cuda_gpu_trace", "gputrace"}},
  };
  return names.at(r);
}

// What a unit in a header means: a factor to nanoseconds or to bytes.
enum class Quantity { kTime, kSize };

// nsys before 2022 wrote sizes in KiB with the unit only in the report's title, never in the
// CSV header, so a size column with no unit is KiB in the size summary and bytes elsewhere.
std::optional<double> unit_factor(const std::string& unit, Quantity q, double unitless) {
  if (unit.empty()) return unitless;
  if (q == Quantity::kTime) {
    if (unit == "ns" || unit == "nsec") return 1.0;
    if (unit == "us" || unit == "usec" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") return 1e3;
    if (unit == "ms" || unit == "msec") return 1e6;
    if (unit == "s" || unit == "sec") return 1e9;
    return std::nullopt;
  }
  if (unit == "b" || unit == "bytes") return 1.0;
  if (unit == "kb") return 1e3;
  if (unit == "kib") return 1024.0;
  if (unit == "mb") return 1e6;
  if (unit == "mib") return 1024.0 * 1024.0;
  if (unit == "gb") return 1e9;
  if (unit == "gib") return 1024.0 * 1024.0 * 1024.0;
  return std::nullopt;
}

struct ColumnSpec {
  const char* key;                   // how errors name it
  std::vector<const char*> aliases;  // normalised header names
  bool required = true;
  std::optional<Quantity> quantity;  // scaled when set
  double unitless = 1.0;             // factor when the header has no unit
};

ColumnSpec text_column(const char* key, std::vector<const char*> aliases, bool required = true) {
  return ColumnSpec{key, std::move(aliases), required, std::nullopt, 1.0};
}

ColumnSpec scaled_column(const char* key, std::vector<const char*> aliases, Quantity q,
                         bool required = true, double unitless = 1.0) {
  return ColumnSpec{key, std::move(aliases), required, q, unitless};
}

struct FoundColumn {
  std::size_t index = 0;
  double factor = 1.0;
  bool present = false;
};

const std::vector<const char*> kCountAliases = {"count", "num calls", "calls", "instances",
                                                "operations"};

// A table once its header is found: the columns by key. Its rows are handed to a callback as
// the scan meets them and never kept, so the reader holds the file's text and what it makes of
// each row, not a copy of every field.
struct Table {
  std::string source;
  std::map<std::string, FoundColumn> columns;
  std::size_t width = 0;
  bool empty_report = false;  // nsys said SKIPPED, or there was no table at all
  std::string nsys_said;      // the SKIPPED line, when there was one

  const std::string_view* cell(const CsvRow& r, const std::string& key) const {
    const auto it = columns.find(key);
    if (it == columns.end() || !it->second.present) return nullptr;
    return &r.fields[it->second.index];
  }
};

bool is_prose(const CsvRow& r) {
  if (r.fields.size() != 1) return false;
  const std::string_view f = r.fields[0];
  return std::any_of(f.begin(), f.end(),
                     [](char c) { return std::isalpha(static_cast<unsigned char>(c)); }) &&
         f.find(' ') != std::string_view::npos;
}

using RowHandler = std::function<void(const Table&, const CsvRow&)>;

Table scan_table(std::string_view text, const std::string& source,
                 const std::vector<ColumnSpec>& specs, const char* report,
                 const RowHandler& on_row) {
  Table t;
  t.source = source;
  bool found = false;
  bool only_prose = true;  // of the records before a header
  std::vector<HeaderName> names;
  scan_csv(text, source, [&](const CsvRow& rec) {
    if (found) {
      if (rec.fields.size() != t.width) {
        if (is_prose(rec)) return;  // nsys's own remarks after a table
        throw InputError(fmt::format("{} line {}: {} fields where the header has {} (truncated?)",
                                     source, rec.line, rec.fields.size(), t.width));
      }
      on_row(t, rec);
      return;
    }
    names.clear();
    for (const std::string_view cell : rec.fields) names.push_back(normalize_header(cell));
    std::map<std::string, FoundColumn> cols;
    bool all_required = true;
    for (const ColumnSpec& spec : specs) {
      FoundColumn col;
      for (std::size_t k = 0; k < names.size() && !col.present; ++k) {
        for (const char* alias : spec.aliases) {
          if (names[k].name != alias) continue;
          col.present = true;
          col.index = k;
          if (spec.quantity) {
            const auto f = unit_factor(names[k].unit, *spec.quantity, spec.unitless);
            if (!f) {
              throw InputError(
                  fmt::format("{} line {}: column '{}' has a unit nsys never used: '{}'", source,
                              rec.line, trimmed(rec.fields[k]), names[k].unit));
            }
            col.factor = *f;
          }
          break;
        }
      }
      if (spec.required && !col.present) all_required = false;
      cols[spec.key] = col;
    }
    if (all_required) {
      found = true;
      t.columns = std::move(cols);
      t.width = rec.fields.size();
      return;
    }
    // nsys writes a report with no data as a line of prose, or as nothing at all.
    if (!is_prose(rec)) {
      only_prose = false;
    } else if (rec.fields[0].find("SKIPPED") != std::string_view::npos) {
      t.nsys_said = trimmed(rec.fields[0]);
    }
  });
  if (!found) {
    if (only_prose) {
      t.empty_report = true;
      return t;
    }
    std::string wanted;
    for (const ColumnSpec& spec : specs) {
      if (spec.required) wanted += fmt::format("{}'{}'", wanted.empty() ? "" : ", ", spec.key);
    }
    throw InputError(fmt::format("{}: no header row with the columns {} (is it a {} export?)",
                                 source, wanted, report));
  }
  return t;
}

double number(const Table& t, const CsvRow& r, const std::string& key) {
  const std::string_view* cell = t.cell(r, key);
  std::string s = trimmed(*cell);
  // Thousands separators appear when a table was copied from nsys's console output.
  s.erase(std::remove(s.begin(), s.end(), ','), s.end());
  const char* begin = s.c_str();
  char* end = nullptr;
  errno = 0;
  const double v = s.empty() ? 0.0 : std::strtod(begin, &end);
  if (s.empty() || end != begin + s.size() || errno == ERANGE || !std::isfinite(v) || v < 0.0) {
    throw InputError(fmt::format("{} line {}: '{}' is not a number for column '{}'", t.source,
                                 r.line, trimmed(*cell), key));
  }
  return v * t.columns.at(key).factor;
}

std::int64_t nanoseconds(const Table& t, const CsvRow& r, const std::string& key) {
  const double v = number(t, r, key);
  // About 126 years: a start plus a duration still fits in 64 bits.
  if (v > 4.0e18) {
    throw InputError(fmt::format("{} line {}: '{}' is out of range", t.source, r.line, key));
  }
  return static_cast<std::int64_t>(std::llround(v));
}

std::uint32_t id_number(const Table& t, const CsvRow& r, const std::string& key) {
  const std::string_view* cell = t.cell(r, key);
  if (cell == nullptr || trimmed(*cell).empty()) return 0;
  const double v = number(t, r, key);
  if (v > 4294967295.0) {
    throw InputError(fmt::format("{} line {}: '{}' is too large for an id", t.source, r.line, key));
  }
  return static_cast<std::uint32_t>(v);
}

}  // namespace

const char* report_name(NsysReport r) {
  return file_names(r).front();
}

HeaderName normalize_header(std::string_view cell) {
  std::string s = lower_word(trimmed(cell));
  HeaderName h;
  if (!s.empty() && s.back() == ')') {
    const std::size_t open = s.rfind('(');
    if (open != std::string::npos) {
      h.unit = trimmed(std::string_view(s).substr(open + 1, s.size() - open - 2));
      s = trimmed(std::string_view(s).substr(0, open));
    }
  }
  // One space between words, so "Total  Time" and "Total Time" agree.
  for (char c : s) {
    if (c == ' ' || c == '\t') {
      if (!h.name.empty() && h.name.back() != ' ') h.name += ' ';
    } else {
      h.name += c;
    }
  }
  if (!h.name.empty() && h.name.back() == ' ') h.name.pop_back();
  return h;
}

CopyDirection memcpy_direction(std::string_view operation) {
  const std::string op = lower_word(operation);
  // Unified Memory migrations are the driver's doing, not copies an API call asked for.
  if (op.find("memcpy") == std::string::npos || op.find("unified") != std::string::npos) {
    return CopyDirection::kUnknown;
  }
  struct Spelling {
    const char* old_name;
    const char* new_name;
    CopyDirection d;
  };
  for (const Spelling& s : {Spelling{"htod", "host-to-device", CopyDirection::kH2D},
                            Spelling{"dtoh", "device-to-host", CopyDirection::kD2H},
                            Spelling{"dtod", "device-to-device", CopyDirection::kD2D},
                            Spelling{"htoh", "host-to-host", CopyDirection::kH2H},
                            Spelling{"ptop", "peer-to-peer", CopyDirection::kP2P}}) {
    if (op.find(s.old_name) != std::string::npos || op.find(s.new_name) != std::string::npos) {
      return s.d;
    }
  }
  return CopyDirection::kUnknown;
}

DriverMemoryKind memory_kind_from(std::string_view text) {
  const std::string k = lower_word(trimmed(text));
  if (k == "pageable") return DriverMemoryKind::kPageable;
  if (k == "pinned") return DriverMemoryKind::kPinned;
  if (k == "device" || k == "device static") return DriverMemoryKind::kDevice;
  if (k == "managed" || k == "managed static") return DriverMemoryKind::kManaged;
  if (k == "array") return DriverMemoryKind::kArray;
  return DriverMemoryKind::kUnknown;
}

std::vector<ApiCall> parse_api_trace(std::string_view text, const std::string& source) {
  const std::vector<ColumnSpec> specs = {
      scaled_column("start", {"start"}, Quantity::kTime),
      scaled_column("duration", {"duration"}, Quantity::kTime),
      text_column("name", {"name", "api name", "function"}),
      text_column("correlation",
                  {"corrid", "corr id", "correlation id", "correlationid", "correlation"}),
      text_column("thread", {"tid", "thread id", "thread"}, false),
  };
  std::vector<ApiCall> calls;
  const Table table =
      scan_table(text, source, specs, "cuda_api_trace", [&](const Table& t, const CsvRow& r) {
        ApiCall c;
        c.name = api_base_name(*t.cell(r, "name"));
        c.start_ns = nanoseconds(t, r, "start");
        c.end_ns = c.start_ns + nanoseconds(t, r, "duration");
        c.correlation = id_number(t, r, "correlation");
        c.thread = id_number(t, r, "thread");
        calls.push_back(std::move(c));
      });
  if (table.empty_report) {
    throw InputError(
        fmt::format("{}: no CUDA API calls in it{}", source,
                    table.nsys_said.empty() ? "" : " (nsys: " + table.nsys_said + ")"));
  }
  return calls;
}

std::vector<SummaryRow> parse_summary(std::string_view text, const std::string& source,
                                      NsysReport report) {
  std::vector<ColumnSpec> specs;
  const char* name_key = "name";
  switch (report) {
    case NsysReport::kApiSum:
      specs = {text_column("name", {"name"}), text_column("count", kCountAliases),
               scaled_column("total time", {"total time"}, Quantity::kTime)};
      break;
    case NsysReport::kMemTimeSum:
      name_key = "operation";
      specs = {text_column("operation", {"operation", "name"}), text_column("count", kCountAliases),
               scaled_column("total time", {"total time"}, Quantity::kTime)};
      break;
    case NsysReport::kMemSizeSum:
      name_key = "operation";
      specs = {text_column("operation", {"operation", "name"}), text_column("count", kCountAliases),
               scaled_column("total", {"total"}, Quantity::kSize, true, 1024.0)};
      break;
    case NsysReport::kNvtxSum:
      name_key = "range";
      specs = {text_column("range", {"range", "name"}), text_column("count", kCountAliases),
               scaled_column("total time", {"total time"}, Quantity::kTime)};
      break;
    case NsysReport::kApiTrace:
    case NsysReport::kGpuTrace:
      throw InputError(fmt::format("{}: not a summary report", source));
  }
  std::vector<SummaryRow> rows;
  const Table table =
      scan_table(text, source, specs, report_name(report), [&](const Table& t, const CsvRow& r) {
        SummaryRow s;
        s.name = trimmed(*t.cell(r, name_key));
        // nsys 2021 to 2023 wrote push/pop ranges of the default domain as ":name".
        if (report == NsysReport::kNvtxSum && !s.name.empty() && s.name.front() == ':') {
          s.name.erase(0, 1);
        }
        const double count = number(t, r, "count");
        if (count > 1e15) {
          throw InputError(
              fmt::format("{} line {}: count {} is out of range", source, r.line, count));
        }
        s.count = static_cast<std::uint64_t>(std::llround(count));
        if (report == NsysReport::kMemSizeSum) {
          s.total_bytes = number(t, r, "total");
        } else {
          s.total_ns = number(t, r, "total time");
        }
        rows.push_back(std::move(s));
      });
  if (table.empty_report && report != NsysReport::kNvtxSum) {
    throw InputError(
        fmt::format("{}: the report holds no table{}", source,
                    table.nsys_said.empty() ? "" : " (nsys: " + table.nsys_said + ")"));
  }
  return rows;
}

std::vector<Copy> parse_gpu_trace(std::string_view text, const std::string& source,
                                  std::vector<Kernel>* kernels) {
  const std::vector<ColumnSpec> specs = {
      scaled_column("start", {"start"}, Quantity::kTime),
      scaled_column("duration", {"duration"}, Quantity::kTime),
      text_column("correlation",
                  {"corrid", "corr id", "correlation id", "correlationid", "correlation"}),
      text_column("name", {"name"}),
      scaled_column("bytes", {"bytes", "size"}, Quantity::kSize, false),
      text_column("src kind", {"srcmemkd", "src mem kd", "srcmemkind", "src mem kind", "src kind"},
                  false),
      text_column("dst kind", {"dstmemkd", "dst mem kd", "dstmemkind", "dst mem kind", "dst kind"},
                  false),
      text_column("stream", {"strm", "stream", "stream id"}, false),
  };
  std::vector<Copy> copies;
  scan_table(text, source, specs, "cuda_gpu_trace", [&](const Table& t, const CsvRow& r) {
    const std::string name = trimmed(*t.cell(r, "name"));
    const std::int64_t start = nanoseconds(t, r, "start");
    const std::int64_t end = start + nanoseconds(t, r, "duration");
    const std::uint32_t correlation = id_number(t, r, "correlation");
    const std::uint32_t stream = id_number(t, r, "stream");
    const CopyDirection d = memcpy_direction(name);
    if (d != CopyDirection::kUnknown) {
      Copy c;
      c.direction = d;
      c.start_ns = start;
      c.end_ns = end;
      c.correlation = correlation;
      c.stream = stream;
      const std::string_view* bytes = t.cell(r, "bytes");
      if (bytes != nullptr && !trimmed(*bytes).empty()) {
        // "Bytes (MB)" carries three decimals: the nearest byte is as close as it gets.
        const double b = number(t, r, "bytes");
        if (b > 9.0e18) {
          throw InputError(fmt::format("{} line {}: 'bytes' is out of range", source, r.line));
        }
        c.bytes = static_cast<std::uint64_t>(std::llround(b));
      }
      if (const std::string_view* k = t.cell(r, "src kind")) c.src_kind = memory_kind_from(*k);
      if (const std::string_view* k = t.cell(r, "dst kind")) c.dst_kind = memory_kind_from(*k);
      copies.push_back(c);
    } else if (kernels != nullptr && name.find("[CUDA") != 0 && !name.empty()) {
      kernels->push_back(Kernel{name, start, end, stream, correlation});
    }
  });
  return copies;
}

NsysExport load_nsys_export(const std::string& dir, const std::string& prefix) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) throw InputError(fmt::format("'{}' does not exist", dir));
  if (!fs::is_directory(dir, ec)) throw InputError(fmt::format("'{}' is not a folder", dir));

  const std::vector<NsysReport> all = {NsysReport::kApiTrace,   NsysReport::kApiSum,
                                       NsysReport::kMemTimeSum, NsysReport::kMemSizeSum,
                                       NsysReport::kNvtxSum,    NsysReport::kGpuTrace};
  // Every prefix that has at least one report here, and the file of each report per prefix.
  std::map<std::string, std::map<NsysReport, std::string>> found;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string file = e.path().filename().string();
    for (NsysReport r : all) {
      for (const char* name : file_names(r)) {
        const std::string suffix = std::string("_") + name + ".csv";
        if (file.size() > suffix.size() &&
            file.compare(file.size() - suffix.size(), suffix.size(), suffix) == 0) {
          auto& slot = found[file.substr(0, file.size() - suffix.size())][r];
          if (slot.empty()) slot = e.path().string();
        }
      }
    }
  }
  if (ec) throw InputError(fmt::format("cannot list '{}': {}", dir, ec.message()));

  NsysExport x;
  x.dir = dir;
  if (!prefix.empty()) {
    x.prefix = prefix;
  } else if (found.size() == 1) {
    x.prefix = found.begin()->first;
  } else if (found.empty()) {
    throw InputError(fmt::format(
        "'{}' holds no nsys stats exports (files named PREFIX_cuda_api_trace.csv and so on, as "
        "'nsys stats --format csv -o PREFIX' writes them)",
        dir));
  } else {
    std::string names;
    for (const auto& [p, files] : found)
      names += fmt::format("{}'{}'", names.empty() ? "" : ", ", p);
    throw InputError(fmt::format(
        "'{}' holds exports of more than one capture ({}); pick one with --prefix", dir, names));
  }
  x.files = found[x.prefix];
  for (NsysReport r : all) {
    if (r == NsysReport::kGpuTrace || x.files.count(r) != 0) continue;
    throw InputError(
        fmt::format("{} is missing ('nsys stats --report {} --format csv -o {}' writes it)",
                    (fs::path(dir) / (x.prefix + "_" + report_name(r) + ".csv")).string(),
                    report_name(r), x.prefix));
  }

  auto text_of = [&](NsysReport r) { return read_text_file(x.files.at(r)); };
  x.trace.source = fmt::format("nsys exports '{}' in {}", x.prefix, dir);
  x.trace.api_calls =
      parse_api_trace(text_of(NsysReport::kApiTrace), x.files.at(NsysReport::kApiTrace));
  x.api_sum = parse_summary(text_of(NsysReport::kApiSum), x.files.at(NsysReport::kApiSum),
                            NsysReport::kApiSum);
  x.mem_time_sum = parse_summary(text_of(NsysReport::kMemTimeSum),
                                 x.files.at(NsysReport::kMemTimeSum), NsysReport::kMemTimeSum);
  x.mem_size_sum = parse_summary(text_of(NsysReport::kMemSizeSum),
                                 x.files.at(NsysReport::kMemSizeSum), NsysReport::kMemSizeSum);
  x.nvtx_sum = parse_summary(text_of(NsysReport::kNvtxSum), x.files.at(NsysReport::kNvtxSum),
                             NsysReport::kNvtxSum);
  if (x.files.count(NsysReport::kGpuTrace) != 0) {
    x.has_gpu_trace = true;
    x.trace.copies = parse_gpu_trace(text_of(NsysReport::kGpuTrace),
                                     x.files.at(NsysReport::kGpuTrace), &x.trace.kernels);
  }

  // Files of different captures side by side would give confident nonsense; the summaries and
  // the traces must count the same things.
  std::uint64_t traced = 0;
  for (const ApiCall& c : x.trace.api_calls) traced += c.name == "cudaMemcpyAsync" ? 1 : 0;
  std::uint64_t summed = 0;
  for (const SummaryRow& s : x.api_sum)
    summed += api_base_name(s.name) == "cudaMemcpyAsync" ? s.count : 0;
  if (traced != summed) {
    throw InputError(fmt::format(
        "{} holds {} cudaMemcpyAsync calls but {} counts {}: are they from the same capture?",
        x.files.at(NsysReport::kApiTrace), traced, x.files.at(NsysReport::kApiSum), summed));
  }
  if (x.has_gpu_trace) {
    for (const SummaryRow& s : x.mem_time_sum) {
      const CopyDirection d = memcpy_direction(s.name);
      if (d == CopyDirection::kUnknown) continue;
      const auto in_trace = static_cast<std::uint64_t>(
          std::count_if(x.trace.copies.begin(), x.trace.copies.end(),
                        [&](const Copy& c) { return c.direction == d; }));
      if (in_trace != s.count) {
        throw InputError(
            fmt::format("{} holds {} {} copies but {} counts {}: are they from the same capture?",
                        x.files.at(NsysReport::kGpuTrace), in_trace, to_string(d),
                        x.files.at(NsysReport::kMemTimeSum), s.count));
      }
    }
  }
  return x;
}

}  // namespace pinbench::experiments::lesson
