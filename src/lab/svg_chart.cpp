#include "idforge/lab/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "idforge/error.hpp"

namespace idforge::lab {
namespace {

// Colour-blind-safe palette (Okabe and Ito), one colour per series or bar.
constexpr const char* kPalette[] = {"#0072B2", "#009E73", "#E69F00", "#D55E00",
                                    "#CC79A7", "#56B4E9", "#F0E442", "#000000"};
constexpr int kPanelHeight = 260, kTop = 40, kLeft = 80, kRight = 150, kPlotHeight = 180;

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

void check_finite(double v, const std::string& where) {
  if (!std::isfinite(v))
    throw Error(errc::invalid_argument, "chart value in " + where + " is not a finite number");
}

std::string text(double x, double y, std::string_view s, const char* anchor = "start",
                 const char* extra = "") {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" + anchor + "\"" + extra +
         ">" + svg_escape(s) + "</text>\n";
}

std::string line(double x1, double y1, double x2, double y2, const char* stroke) {
  return "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" +
         num(y2) + "\" stroke=\"" + stroke + "\"/>\n";
}

// Y axis with ticks and grid lines; returns the scale from value to pixel.
struct YAxis {
  double lo, hi, top, bottom;
  bool log = false;
  double px(double v) const {
    if (log)
      return bottom -
             (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) * (bottom - top);
    return bottom - (v - lo) / (hi - lo) * (bottom - top);
  }
};

std::string draw_y_axis(const std::vector<double>& ticks, const YAxis& ax, double left,
                        double right, const std::string& label) {
  std::string s;
  for (double t : ticks) {
    const double y = ax.px(t);
    s += line(left, y, right, y, "#dddddd");
    s += text(left - 6, y + 4, short_number(t), "end");
  }
  s += line(left, ax.top, left, ax.bottom, "#333333");
  s += text(18, (ax.top + ax.bottom) / 2, label, "middle",
            (" transform=\"rotate(-90 18 " + num((ax.top + ax.bottom) / 2) + ")\"").c_str());
  return s;
}

}  // namespace

std::string svg_escape(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (char c : in) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::vector<double> nice_ticks(double lo, double hi, int max_ticks) {
  if (!std::isfinite(lo) || !std::isfinite(hi) || max_ticks < 1)
    throw Error(errc::invalid_argument, "tick range must be finite with at least 1 tick");
  if (hi < lo) std::swap(lo, hi);
  if (hi == lo) {
    const double pad = lo == 0 ? 1 : std::abs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
  const double raw = (hi - lo) / max_ticks;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * mag;
  for (double m : {1.0, 2.0, 5.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  std::vector<double> ticks;
  const double first = std::floor(lo / step) * step;
  for (double t = first; t < hi + step * 0.999; t += step)
    ticks.push_back(std::abs(t) < step * 1e-9 ? 0 : t);
  return ticks;
}

std::vector<double> log_ticks(double lo, double hi) {
  if (!(lo > 0) || !(hi > 0) || !std::isfinite(lo) || !std::isfinite(hi))
    throw Error(errc::invalid_argument, "a logarithmic axis needs a positive, finite range");
  if (hi < lo) std::swap(lo, hi);
  const int first = static_cast<int>(std::floor(std::log10(lo))),
            last = static_cast<int>(std::ceil(std::log10(hi)));
  const int decades = std::max(1, last - first);
  std::vector<double> ticks;
  for (int d = first; d <= last; ++d)
    for (double m : {1.0, 2.0, 5.0}) {
      if (decades > 4 && m != 1.0) continue;
      if (decades > 2 && m == 2.0) continue;
      const double t = m * std::pow(10.0, d);
      if (t >= lo * 0.999 && t <= hi * 1.001) ticks.push_back(t);
    }
  if (ticks.empty()) ticks = {lo, hi};
  return ticks;
}

std::string short_number(double v) {
  const double a = std::abs(v);
  char buf[32];
  const char* suffix = "";
  double x = v;
  if (a >= 1e12)
    x = v / 1e12, suffix = "T";
  else if (a >= 1e9)
    x = v / 1e9, suffix = "G";
  else if (a >= 1e6)
    x = v / 1e6, suffix = "M";
  else if (a >= 1e4)
    x = v / 1e3, suffix = "k";
  if (*suffix || a >= 100 || v == std::round(v))
    std::snprintf(buf, sizeof buf, "%.3g%s", x, suffix);
  else
    std::snprintf(buf, sizeof buf, "%.2g", x);
  return buf;
}

SvgChart& SvgChart::add(LinePanel panel) {
  for (const auto& s : panel.series) {
    if (s.x.size() != s.y.size())
      throw Error(errc::invalid_argument, "series '" + s.name + "' has " +
                                              std::to_string(s.x.size()) + " x values and " +
                                              std::to_string(s.y.size()) + " y values");
    for (double v : s.x) check_finite(v, "series '" + s.name + "'");
    for (double v : s.y) check_finite(v, "series '" + s.name + "'");
  }
  panels_.push_back({true, std::move(panel), {}});
  return *this;
}

SvgChart& SvgChart::add(BarPanel panel) {
  if (panel.categories.size() != panel.values.size() ||
      (!panel.labels.empty() && panel.labels.size() != panel.values.size()))
    throw Error(errc::invalid_argument,
                "bar panel '" + panel.title + "' has " + std::to_string(panel.categories.size()) +
                    " categories and " + std::to_string(panel.values.size()) + " values");
  for (double v : panel.values) check_finite(v, "bar panel '" + panel.title + "'");
  panels_.push_back({false, {}, std::move(panel)});
  return *this;
}

std::string SvgChart::render() const {
  const int height = kTop + static_cast<int>(panels_.size()) * kPanelHeight;
  std::string s =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
      "version=\"1.1\" width=\"" +
      std::to_string(width_) + "\" height=\"" + std::to_string(height) + "\" viewBox=\"0 0 " +
      std::to_string(width_) + " " + std::to_string(height) +
      "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s += text(width_ / 2.0, 24, title_, "middle", " font-size=\"16\" font-weight=\"bold\"");
  const double left = kLeft, right = width_ - kRight;
  for (std::size_t p = 0; p < panels_.size(); ++p) {
    const double top = kTop + static_cast<double>(p) * kPanelHeight + 30,
                 bottom = top + kPlotHeight;
    const Panel& panel = panels_[p];
    s += "<g>\n";
    if (panel.is_line) {
      const LinePanel& lp = panel.line;
      s += text(left, top - 12, lp.title, "start", " font-weight=\"bold\"");
      auto usable = [&](double x, double y) {
        return (!lp.log_x || x > 0) && (!lp.log_y || y > 0);
      };
      double xmin = 0, xmax = 1, ymin = 1, ymax = 1;
      bool any = false;
      for (const auto& ser : lp.series)
        for (std::size_t i = 0; i < ser.x.size(); ++i) {
          if (!usable(ser.x[i], ser.y[i])) continue;
          xmin = any ? std::min(xmin, ser.x[i]) : ser.x[i];
          xmax = any ? std::max(xmax, ser.x[i]) : ser.x[i];
          ymin = any ? std::min(ymin, ser.y[i]) : ser.y[i];
          ymax = any ? std::max(ymax, ser.y[i]) : ser.y[i];
          any = true;
        }
      if (xmax == xmin) xmax = lp.log_x ? xmin * 2 : xmin + 1;
      std::vector<double> yt;
      YAxis ax{0, 1, top, bottom};
      if (lp.log_y) {
        const double lo = std::pow(10.0, std::floor(std::log10(ymin))),
                     hi = std::pow(10.0, std::ceil(std::log10(ymax)));
        yt = log_ticks(lo, hi == lo ? lo * 10 : hi);
        ax = YAxis{lo, hi == lo ? lo * 10 : hi, top, bottom, true};
      } else {
        if (ymax <= 0) ymax = 1;
        yt = nice_ticks(0, ymax, 5);
        ax = YAxis{0, yt.back(), top, bottom};
      }
      s += draw_y_axis(yt, ax, left, right, lp.y_label);
      s += line(left, bottom, right, bottom, "#333333");
      auto xpx = [&](double x) {
        if (lp.log_x)
          return left + (std::log10(x) - std::log10(xmin)) / (std::log10(xmax) - std::log10(xmin)) *
                            (right - left);
        return left + (x - xmin) / (xmax - xmin) * (right - left);
      };
      for (double t : lp.log_x ? log_ticks(xmin, xmax) : nice_ticks(xmin, xmax, 6))
        if (t >= xmin * (1 - 1e-9) && t <= xmax * (1 + 1e-9)) {
          s += line(xpx(t), bottom, xpx(t), bottom + 4, "#333333");
          s += text(xpx(t), bottom + 16, short_number(t), "middle");
        }
      s += text((left + right) / 2, bottom + 32, lp.x_label, "middle");
      for (std::size_t i = 0; i < lp.markers.size(); ++i) {
        const ChartMarker& m = lp.markers[i];
        if (m.x < xmin || m.x > xmax || (lp.log_x && m.x <= 0)) continue;
        const char* colour = kPalette[m.series % std::size(kPalette)];
        const double x = xpx(m.x);
        s += "<line x1=\"" + num(x) + "\" y1=\"" + num(top) + "\" x2=\"" + num(x) + "\" y2=\"" +
             num(bottom) + "\" stroke=\"" + colour + "\" stroke-dasharray=\"5,4\"/>\n";
        s += text(x + 3, top + 10 + 12 * static_cast<double>(i), m.label, "start",
                  (" font-size=\"10\" fill=\"" + std::string(colour) + "\"").c_str());
      }
      for (std::size_t i = 0; i < lp.series.size(); ++i) {
        const auto& ser = lp.series[i];
        const char* colour = kPalette[i % std::size(kPalette)];
        std::string pts;
        for (std::size_t j = 0; j < ser.x.size(); ++j)
          if (usable(ser.x[j], ser.y[j]))
            pts += (pts.empty() ? "" : " ") + num(xpx(ser.x[j])) + "," + num(ax.px(ser.y[j]));
        s += "<polyline fill=\"none\" stroke-width=\"2\" stroke=\"" + std::string(colour) +
             "\" points=\"" + pts + "\"/>\n";
        const double ly = top + 14 + 18 * static_cast<double>(i);
        s += line(right + 12, ly - 4, right + 32, ly - 4, colour);
        s += text(right + 38, ly, ser.name);
      }
    } else {
      const BarPanel& bp = panel.bar;
      s += text(left, top - 12, bp.title, "start", " font-weight=\"bold\"");
      double vmax = 0;
      for (double v : bp.values) vmax = std::max(vmax, v);
      const auto yt = nice_ticks(0, vmax > 0 ? vmax : 1, 5);
      const YAxis ax{0, yt.back(), top, bottom};
      s += draw_y_axis(yt, ax, left, right, bp.y_label);
      s += line(left, bottom, right, bottom, "#333333");
      const double slot =
          (right - left) / static_cast<double>(std::max<std::size_t>(1, bp.values.size()));
      for (std::size_t i = 0; i < bp.values.size(); ++i) {
        const double x = left + slot * static_cast<double>(i) + slot * 0.2, w = slot * 0.6;
        const double y = ax.px(std::max(0.0, bp.values[i]));
        s += "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(w) + "\" height=\"" +
             num(bottom - y) + "\" fill=\"" + kPalette[i % std::size(kPalette)] + "\"/>\n";
        s += text(x + w / 2, y - 4, bp.labels.empty() ? short_number(bp.values[i]) : bp.labels[i],
                  "middle");
        s += text(x + w / 2, bottom + 16, bp.categories[i], "middle");
      }
    }
    s += "</g>\n";
  }
  s += "</svg>\n";
  return s;
}

}  // namespace idforge::lab
