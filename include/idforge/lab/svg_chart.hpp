// A small SVG writer for the lab's charts: panels stacked top to bottom, each either a line
// chart (e.g. insert rate over rows, one line per key kind) or a bar chart (e.g. index size
// per kind). Output is a standalone SVG 1.1 document; text is XML-escaped; axes get "nice"
// ticks (1, 2, 5 times a power of ten).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace idforge::lab {

/// One line: points (x[i], y[i]).
struct ChartSeries {
  std::string name;
  std::vector<double> x, y;
};

/// A vertical dashed line at x, drawn in the colour of series `series`, labelled at its top.
struct ChartMarker {
  double x = 0;
  std::string label;
  std::size_t series = 0;
};

/// A line chart panel. A logarithmic axis needs positive values (others are left out).
struct LinePanel {
  std::string title, x_label, y_label;
  std::vector<ChartSeries> series;
  bool log_x = false, log_y = false;
  std::vector<ChartMarker> markers{};
};

/// A bar chart panel: one bar per category, labelled with labels[i] (or the value).
struct BarPanel {
  std::string title, y_label;
  std::vector<std::string> categories;
  std::vector<double> values;
  std::vector<std::string> labels;  ///< text above each bar; empty: the value
};

/// Builds an SVG document from panels.
class SvgChart {
 public:
  /// A chart titled `title`, `width` pixels wide.
  explicit SvgChart(std::string title, int width = 760) : title_(std::move(title)), width_(width) {}
  /// Adds a line panel below the previous panels. Series with unequal x/y sizes or non-finite
  /// values throw Error(errc::invalid_argument) naming the series.
  SvgChart& add(LinePanel panel);
  /// Adds a bar panel. categories, values (and labels when given) must have equal sizes.
  SvgChart& add(BarPanel panel);
  /// The SVG document.
  std::string render() const;

 private:
  struct Panel {
    bool is_line;
    LinePanel line;
    BarPanel bar;
  };
  std::string title_;
  int width_;
  std::vector<Panel> panels_;
};

/// text with &, <, >, " and ' replaced by XML entities.
std::string svg_escape(std::string_view text);

/// Tick values covering [lo, hi]: at most about max_ticks steps of 1, 2 or 5 times a power
/// of ten, the first <= lo and the last >= hi. lo == hi gives a small range around it.
std::vector<double> nice_ticks(double lo, double hi, int max_ticks = 6);

/// Ticks for a logarithmic axis over [lo, hi] (both > 0): 1, 2 and 5 times each power of ten
/// in the range, thinned to 1 (and 3 when few decades) per decade when there are many decades.
std::vector<double> log_ticks(double lo, double hi);

/// A short label for a tick or a value: 1.5M, 250k, 12, 0.69.
std::string short_number(double v);

}  // namespace idforge::lab
