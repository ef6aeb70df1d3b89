#include "framework/render/trace_timeline.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "framework/errors.hpp"
#include "framework/input_limits.hpp"
#include "framework/record.hpp"
#include "framework/render/svg_chart.hpp"
#include "framework/text_file.hpp"

namespace pinbench {
namespace {

using nlohmann::json;

// Process and thread ids are integers in traces pinbench writes, but the format allows
// strings; numbers sort numerically and before strings.
struct LaneKey {
  bool pid_is_text = false;
  double pid_number = 0;
  std::string pid_text;
  bool tid_is_text = false;
  double tid_number = 0;
  std::string tid_text;

  bool operator<(const LaneKey& o) const {
    return std::tie(pid_is_text, pid_number, pid_text, tid_is_text, tid_number, tid_text) <
           std::tie(o.pid_is_text, o.pid_number, o.pid_text, o.tid_is_text, o.tid_number,
                    o.tid_text);
  }
};

bool read_id(const json& e, const char* key, bool& is_text, double& number, std::string& text) {
  auto it = e.find(key);
  if (it == e.end()) {
    number = 0;  // the format lets a viewer default a missing id
    return true;
  }
  if (it->is_number()) {
    number = it->get<double>();
    text = fmt::format("{}", number);
    return true;
  }
  if (it->is_string()) {
    is_text = true;
    text = it->get<std::string>();
    return true;
  }
  return false;
}

std::string lower_case(std::string s) {
  for (char& ch : s) {
    if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
  }
  return s;
}

// Without a "cat", copies and kernels are told apart by name, as profilers name them.
std::string guess_category(const std::string& name) {
  const std::string n = lower_case(name);
  for (const char* word : {"memcpy", "copy", "htod", "dtoh", "dtod", "memset"}) {
    if (n.find(word) != std::string::npos) return "copy";
  }
  if (n.find("kernel") != std::string::npos) return "kernel";
  return "other";
}

// As many whole characters as fit, and "…" (which the caller draws only where it fits too).
std::string shorten(const std::string& text, double max_px, double font_px) {
  if (text_width(text, font_px) <= max_px) return text;
  return std::string(first_characters(text, characters_within(max_px, font_px))) + "…";
}

std::string coord(double v) {
  return fmt::format("{:.1f}", v);
}

}  // namespace

std::string trace_path_for(const std::string& record_path) {
  const std::string suffix = ".json";
  if (record_path.size() >= suffix.size() &&
      record_path.compare(record_path.size() - suffix.size(), suffix.size(), suffix) == 0) {
    return record_path.substr(0, record_path.size() - suffix.size()) + ".trace.json";
  }
  return record_path + ".trace.json";
}

// A trace's clock: 2^53 µs (about 285 years, the last whole microsecond a double holds), and
// a run's length: a week.
constexpr double kMaxTraceTimeUs = 9007199254740992.0;
constexpr double kMaxTraceSpanUs = 7 * 86400e6;

Timeline timeline_from_json(const json& trace) {
  const json* events = nullptr;
  if (trace.is_array()) {
    events = &trace;  // the format's bare-array form
  } else if (trace.is_object() && trace.contains("traceEvents") &&
             trace["traceEvents"].is_array()) {
    events = &trace["traceEvents"];
  } else {
    throw InputError("not a trace-event file (no \"traceEvents\" array)");
  }

  std::map<LaneKey, std::string> thread_names;
  std::map<LaneKey, std::vector<TimelineEvent>> lanes;
  std::map<std::string, std::string> process_names;
  Timeline t;
  double first = std::numeric_limits<double>::infinity();
  double last = -std::numeric_limits<double>::infinity();
  std::size_t index = 0;
  for (const json& e : *events) {
    const std::size_t at = index++;
    if (!e.is_object() || !e.contains("ph") || !e["ph"].is_string()) continue;
    const std::string ph = e["ph"].get<std::string>();
    LaneKey key;
    if (!read_id(e, "pid", key.pid_is_text, key.pid_number, key.pid_text) ||
        !read_id(e, "tid", key.tid_is_text, key.tid_number, key.tid_text)) {
      continue;
    }
    const std::string name =
        e.contains("name") && e["name"].is_string() ? e["name"].get<std::string>() : std::string();
    if (ph == "M") {
      const json args = e.value("args", json::object());
      if (!args.is_object() || !args.contains("name") || !args["name"].is_string()) continue;
      if (name == "thread_name") thread_names[key] = args["name"].get<std::string>();
      if (name == "process_name") process_names[key.pid_text] = args["name"].get<std::string>();
      continue;
    }
    if (ph != "X" || !e.contains("ts") || !e["ts"].is_number()) continue;
    const double ts = e["ts"].get<double>();
    const double dur = e.contains("dur") && e["dur"].is_number() ? e["dur"].get<double>() : 0.0;
    // Times no run could have: refused, so nothing downstream draws "inf ms" or a 300-digit
    // coordinate from a stranger's file.
    if (!std::isfinite(ts) || std::fabs(ts) > kMaxTraceTimeUs) {
      throw InputError(
          fmt::format("event {}: 'ts' is {:g} µs, beyond any real run's clock", at, ts));
    }
    if (!std::isfinite(dur) || dur < 0) {
      throw InputError(
          fmt::format("event {}: 'dur' is {:g} µs: a duration cannot be negative", at, dur));
    }
    if (dur > kMaxTraceSpanUs) {
      throw InputError(
          fmt::format("event {}: 'dur' is {:g} µs, longer than any real run (7 days)", at, dur));
    }
    std::string category =
        e.contains("cat") && e["cat"].is_string() ? e["cat"].get<std::string>() : std::string();
    if (category.empty()) category = guess_category(name);
    if (std::find(t.categories.begin(), t.categories.end(), category) == t.categories.end()) {
      t.categories.push_back(category);
    }
    // Kept in µs until the first event is known; converted below.
    lanes[key].push_back({name, category, ts, dur});
    first = std::min(first, ts);
    last = std::max(last, ts + dur);
    ++t.event_count;
  }
  if (t.event_count == 0) throw InputError("the trace holds no complete (\"ph\": \"X\") events");
  if (last - first > kMaxTraceSpanUs) {
    throw InputError(fmt::format("its events span {:.1f} days, longer than any real run (7 days)",
                                 (last - first) / 86400e6));
  }

  const bool several_processes = process_names.size() > 1 || [&] {
    std::string pid;
    for (const auto& lane : lanes) {
      if (!pid.empty() && lane.first.pid_text != pid) return true;
      pid = lane.first.pid_text;
    }
    return false;
  }();
  for (auto& [key, lane_events] : lanes) {
    TimelineLane lane;
    auto named = thread_names.find(key);
    lane.label = named != thread_names.end()
                     ? named->second
                     : fmt::format("pid {}, tid {}", key.pid_text, key.tid_text);
    if (several_processes && named != thread_names.end()) {
      auto process = process_names.find(key.pid_text);
      lane.label = (process != process_names.end() ? process->second : "pid " + key.pid_text) +
                   " / " + lane.label;
    }
    for (TimelineEvent& e : lane_events) {
      e.start_ms = (e.start_ms - first) / 1000.0;
      e.duration_ms /= 1000.0;
    }
    std::stable_sort(
        lane_events.begin(), lane_events.end(),
        [](const TimelineEvent& a, const TimelineEvent& b) { return a.start_ms < b.start_ms; });
    // NVTX ranges and the API calls inside them share a host thread but would hide each other
    // in one lane, so the ranges get a lane of their own. A stream's copies and kernels stay
    // together: their order on the stream is the point.
    const auto is_nvtx = [](const TimelineEvent& e) { return e.category == "nvtx"; };
    const std::size_t nvtx =
        static_cast<std::size_t>(std::count_if(lane_events.begin(), lane_events.end(), is_nvtx));
    if (nvtx == 0 || nvtx == lane_events.size()) {
      lane.events = std::move(lane_events);
      t.lanes.push_back(std::move(lane));
      continue;
    }
    TimelineLane ranges, calls;
    ranges.label = lane.label + " · NVTX ranges";
    calls.label = lane.label + " · API calls";
    for (TimelineEvent& e : lane_events) (is_nvtx(e) ? ranges : calls).events.push_back(e);
    t.lanes.push_back(std::move(ranges));
    t.lanes.push_back(std::move(calls));
  }
  t.span_ms = (last - first) / 1000.0;
  return t;
}

Timeline read_trace(const std::string& path) {
  // Bounded like every input: a trace that never ends is refused, not read into memory whole.
  const std::string text = read_input_file(path, kMaxTraceBytes, "trace");
  try {
    return timeline_from_json(parse_json_text(text, "trace"));
  } catch (const InputError& e) {
    throw InputError(fmt::format("trace '{}': {}", path, e.what()));
  }
}

std::string render_timeline(const Timeline& t, const std::string& title) {
  constexpr double kTimelineWidth = 1240;
  constexpr double kLane = 30;
  constexpr double kBar = 20;
  double label_px = 0;
  for (const TimelineLane& l : t.lanes) label_px = std::max(label_px, text_width(l.label, 12));
  // Lane names end 10 px left of the lanes and start no further left than the title.
  const double left = 12 + std::min(label_px, 260.0) + 10;
  const double right = kTimelineWidth - 28;

  std::vector<LegendEntry> legend;
  for (std::size_t i = 0; i < t.categories.size(); ++i) {
    legend.push_back({t.categories[i], palette_colour(i)});
  }
  const double top = 62 + 20 * legend_rows(legend, right - 12);
  const double bottom = top + kLane * static_cast<double>(t.lanes.size());
  const double height = bottom + 52;
  const LinearAxis axis = nice_axis(t.span_ms > 0 ? t.span_ms : 1.0, 8);
  const auto px = [&](double ms) { return left + ms / axis.top * (right - left); };
  const auto colour_of = [&](const std::string& category) {
    const auto it = std::find(t.categories.begin(), t.categories.end(), category);
    return palette_colour(static_cast<std::size_t>(it - t.categories.begin()));
  };

  std::string out = fmt::format(
      "<svg class=\"chart timeline\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" "
      "role=\"img\" aria-label=\"{2}\">\n",
      coord(kTimelineWidth), coord(height), xml_escape(title));
  out += fmt::format(
      "<text x=\"12\" y=\"24\" font-size=\"15\" font-weight=\"600\" fill=\"#1f2328\">{}</text>\n",
      xml_escape(title));
  write_legend(out, legend, 12, 50, right - 12);

  out += "<g class=\"axes\" font-size=\"11\" fill=\"#57606a\">\n";
  for (std::size_t i = 0; i < t.lanes.size(); ++i) {
    const double y = top + kLane * static_cast<double>(i);
    if (i % 2 == 0) {
      out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#f6f8fa\"/>\n",
                         coord(left), coord(y), coord(right - left), coord(kLane));
    }
    out += fmt::format(
        "<text x=\"{}\" y=\"{}\" dy=\"0.32em\" font-size=\"12\" text-anchor=\"end\" "
        "fill=\"#1f2328\">{}</text>\n",
        coord(left - 10), coord(y + kLane / 2),
        xml_escape(shorten(t.lanes[i].label, left - 22, 12)));
  }
  const int ticks = static_cast<int>(std::round(axis.top / axis.step));
  for (int i = 0; i <= ticks; ++i) {
    const double v = i * axis.step;
    out += fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#d0d7de\"/>"
        "<text x=\"{0}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
        coord(px(v)), coord(top), coord(bottom + 4), coord(bottom + 18),
        format_fixed(v, axis.decimals));
  }
  out += fmt::format(
      "<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\" fill=\"#1f2328\">time since "
      "the first event (ms)</text>\n",
      coord((left + right) / 2), coord(height - 14));
  out += "</g>\n";

  // A trace of more events than a page should hold (kThinAbove) draws one event per pixel, lane
  // and kind: an event narrower than a pixel that starts in the pixel of the last one drawn of
  // its kind would only be hidden behind it, so it is left out (and counted, under the chart),
  // and a million-event trace makes a page of a few MB, not a few hundred. A smaller trace
  // draws every event, each with its tooltip.
  constexpr std::size_t kThinAbove = 20000;
  const bool thin = t.event_count > kThinAbove;
  std::size_t drawn = 0;
  for (std::size_t i = 0; i < t.lanes.size(); ++i) {
    const double y = top + kLane * static_cast<double>(i) + (kLane - kBar) / 2;
    out += fmt::format("<g class=\"lane\" data-lane=\"{}\">\n", xml_escape(t.lanes[i].label));
    std::map<std::string, double> last_pixel;  // by category
    for (const TimelineEvent& e : t.lanes[i].events) {
      const double x = px(e.start_ms);
      const double end = px(e.start_ms + e.duration_ms);
      const double pixel = std::floor(x);
      const auto seen = last_pixel.find(e.category);
      if (thin && end - x < 1.0 && seen != last_pixel.end() && seen->second == pixel) continue;
      last_pixel[e.category] = pixel;
      ++drawn;
      const double w = std::max(1.0, end - x);
      out += fmt::format(
          "<rect class=\"event\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\">"
          "<title>{} ({}): starts at {:.3f} ms, lasts {:.3f} ms</title></rect>\n",
          coord(x), coord(y), coord(w), coord(kBar), colour_of(e.category), xml_escape(e.name),
          xml_escape(e.category), e.start_ms, e.duration_ms);
      // A name goes inside its rectangle, cut short where it does not fit whole; a rectangle
      // too narrow for a few characters gets none. Every rectangle has its tooltip.
      const std::string label = shorten(e.name, w - 8, 10);
      if (label == e.name || (text_width(label, 10) >= 6 * 6.0 && w - 8 >= text_width(label, 10))) {
        out += fmt::format(
            "<text x=\"{}\" y=\"{}\" dy=\"0.32em\" font-size=\"10\" fill=\"#ffffff\" "
            "pointer-events=\"none\">{}</text>\n",
            coord(x + 4), coord(y + kBar / 2), xml_escape(label));
      }
    }
    out += "</g>\n";
  }
  if (drawn < t.event_count) {
    out += fmt::format(
        "<text class=\"thinned\" x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"end\" "
        "fill=\"#57606a\">{} of {} events drawn: the others are narrower than a pixel and would "
        "stand behind one drawn there</text>\n",
        coord(right), coord(height - 14), drawn, t.event_count);
  }
  return out + "</svg>\n";
}

}  // namespace pinbench
