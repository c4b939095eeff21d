// Writes clgemm-bench's roofline chart as SVG by hand: the layout (panels, legend), log axes
// with their ticks, and one polyline, marker set and dashed ceiling per contender.
#include "bench_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace clgemm::bench {
namespace {

const char* const kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                               "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
constexpr int kColorCount = sizeof kColors / sizeof kColors[0];

// Geometry of the drawing, in SVG user units.
constexpr double kWidth = 1160, kHeight = 590;
constexpr double kPlotLeft = 80, kPlotRight = kWidth - 270, kPlotTop = 80, kPlotBottom = 500;
constexpr double kPanelGap = 60;

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
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
      default:
        out += c;
    }
  }
  return out;
}

std::string num(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", v);
  return buffer;
}

// 1, 2, 5, 10, ..., 1k, 2k, 10k: compact tick labels.
std::string tick_label(double v) {
  char buffer[32];
  if (v >= 1e6)
    std::snprintf(buffer, sizeof buffer, "%gM", v / 1e6);
  else if (v >= 1e3)
    std::snprintf(buffer, sizeof buffer, "%gk", v / 1e3);
  else
    std::snprintf(buffer, sizeof buffer, "%g", v);
  return buffer;
}

// Marker `shape` (cycling through circle, square, triangle, diamond, inverted triangle).
std::string marker(int shape, double x, double y, const char* color) {
  std::ostringstream s;
  const double r = 4.5;
  const std::string style =
      std::string(" fill=\"") + color + "\" stroke=\"white\"" + " stroke-width=\"0.8\"/>";
  switch (shape % 5) {
    case 0:
      s << "<circle cx=\"" << num(x) << "\" cy=\"" << num(y) << "\" r=\"" << r << "\"";
      break;
    case 1:
      s << "<rect x=\"" << num(x - r) << "\" y=\"" << num(y - r) << "\" width=\"" << 2 * r
        << "\" height=\"" << 2 * r << "\"";
      break;
    case 2:
      s << "<polygon points=\"" << num(x) << ',' << num(y - r - 1) << ' ' << num(x - r - 1) << ','
        << num(y + r) << ' ' << num(x + r + 1) << ',' << num(y + r) << "\"";
      break;
    case 3:
      s << "<polygon points=\"" << num(x) << ',' << num(y - r - 1) << ' ' << num(x + r + 1) << ','
        << num(y) << ' ' << num(x) << ',' << num(y + r + 1) << ' ' << num(x - r - 1) << ','
        << num(y) << "\"";
      break;
    default:
      s << "<polygon points=\"" << num(x) << ',' << num(y + r + 1) << ' ' << num(x - r - 1) << ','
        << num(y - r) << ' ' << num(x + r + 1) << ',' << num(y - r) << "\"";
  }
  return s.str() + style;
}

struct LogAxis {
  double lo = 1, hi = 10;  // powers of ten
  double y(double v) const {
    return kPlotBottom - (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) *
                             (kPlotBottom - kPlotTop);
  }
};

LogAxis gflops_axis(const Chart& chart) {
  double lo = INFINITY, hi = 0;
  auto take = [&](double v) {
    if (v > 0) lo = std::min(lo, v), hi = std::max(hi, v);
  };
  for (const auto& s : chart.series) {
    for (double v : s.gflops) take(v);
    for (double v : s.ceiling) take(v);
  }
  take(chart.peak_gflops);
  if (hi == 0) lo = 1, hi = 10;
  LogAxis axis;
  axis.lo = std::pow(10.0, std::floor(std::log10(lo)));
  axis.hi = std::pow(10.0, std::ceil(std::log10(hi)));
  if (axis.hi <= axis.lo) axis.hi = axis.lo * 10;
  return axis;
}

struct Panel {
  double left, right;
};

}  // namespace

std::string render_svg(const Chart& chart) {
  std::vector<std::size_t> squares, others;
  for (std::size_t i = 0; i < chart.problems.size(); ++i)
    (chart.problems[i].square() ? squares : others).push_back(i);
  std::sort(squares.begin(), squares.end(), [&](std::size_t a, std::size_t b) {
    return chart.problems[a].n < chart.problems[b].n;
  });

  // The square panel takes most of the width; the other shapes get a slot each on the right.
  const double width = kPlotRight - kPlotLeft;
  Panel square_panel{kPlotLeft, kPlotRight}, other_panel{kPlotLeft, kPlotRight};
  if (!squares.empty() && !others.empty()) {
    const double share = std::clamp(0.2 + 0.1 * double(others.size()), 0.25, 0.45);
    other_panel.left = kPlotRight - (width - kPanelGap) * share;
    square_panel.right = other_panel.left - kPanelGap;
  }
  const LogAxis axis = gflops_axis(chart);
  const int decades = int(std::lround(std::log10(axis.hi / axis.lo)));

  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
      << "\" viewBox=\"0 0 " << kWidth << ' ' << kHeight
      << "\" font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"12\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "<text x=\"" << kWidth / 2 << "\" y=\"28\" text-anchor=\"middle\" font-size=\"17\" "
      << "font-weight=\"bold\">" << escape(chart.title) << "</text>\n"
      << "<text x=\"" << kWidth / 2 << "\" y=\"50\" text-anchor=\"middle\" fill=\"#444\">"
      << escape(chart.subtitle) << "</text>\n";

  // Horizontal grid and y labels, shared by both panels (1, 2, 5 per decade when few).
  std::vector<Panel> panels;
  if (!squares.empty()) panels.push_back(square_panel);
  if (!others.empty()) panels.push_back(other_panel);
  for (double decade = axis.lo; decade < axis.hi * 1.001; decade *= 10) {
    for (double step : {1.0, 2.0, 5.0}) {
      const double v = decade * step;
      if (v > axis.hi * 1.001 || (step != 1.0 && decades > 3)) continue;
      const double y = axis.y(v);
      for (const auto& p : panels)
        svg << "<line x1=\"" << num(p.left) << "\" x2=\"" << num(p.right) << "\" y1=\"" << num(y)
            << "\" y2=\"" << num(y) << "\" stroke=\"" << (step == 1.0 ? "#ccc" : "#eee")
            << "\"/>\n";
      svg << "<text x=\"" << kPlotLeft - 8 << "\" y=\"" << num(y + 4)
          << "\" text-anchor=\"end\" fill=\"#333\">" << tick_label(v) << "</text>\n";
    }
  }
  svg << "<text transform=\"translate(24," << (kPlotTop + kPlotBottom) / 2
      << ") rotate(-90)\" text-anchor=\"middle\" font-size=\"13\">GFLOP/s (log scale)</text>\n";

  // Each panel's frame, x ticks and the peak line.
  auto frame = [&](const Panel& p, const std::string& label) {
    svg << "<rect x=\"" << num(p.left) << "\" y=\"" << kPlotTop << "\" width=\""
        << num(p.right - p.left) << "\" height=\"" << kPlotBottom - kPlotTop
        << "\" fill=\"none\" stroke=\"#333\"/>\n"
        << "<text x=\"" << num((p.left + p.right) / 2) << "\" y=\"" << kPlotBottom + 62
        << "\" text-anchor=\"middle\" font-size=\"13\">" << escape(label) << "</text>\n";
    if (chart.peak_gflops > 0) {
      const double y = axis.y(chart.peak_gflops);
      svg << "<line x1=\"" << num(p.left) << "\" x2=\"" << num(p.right) << "\" y1=\"" << num(y)
          << "\" y2=\"" << num(y) << "\" stroke=\"#888\" stroke-width=\"3\" opacity=\"0.6\"/>\n";
    }
  };

  // Square sizes: x = log2 n, one tick per measured size.
  double x_lo = 0, x_hi = 1;
  auto square_x = [&](long n) {
    return square_panel.left + 20 +
           (std::log2(double(n)) - x_lo) / (x_hi - x_lo) *
               (square_panel.right - square_panel.left - 40);
  };
  if (!squares.empty()) {
    x_lo = std::log2(double(chart.problems[squares.front()].n));
    x_hi = std::log2(double(chart.problems[squares.back()].n));
    if (x_hi - x_lo < 1e-9) x_lo -= 1, x_hi += 1;
    frame(square_panel, "square size n (M = N = K), log2 scale");
    double last_label = -1e9;
    for (std::size_t i : squares) {
      const double x = square_x(chart.problems[i].n);
      svg << "<line x1=\"" << num(x) << "\" x2=\"" << num(x) << "\" y1=\"" << kPlotTop << "\" y2=\""
          << kPlotBottom << "\" stroke=\"#f0f0f0\"/>\n"
          << "<line x1=\"" << num(x) << "\" x2=\"" << num(x) << "\" y1=\"" << kPlotBottom
          << "\" y2=\"" << kPlotBottom + 5 << "\" stroke=\"#333\"/>\n";
      if (x - last_label < 34) continue;  // keep crowded labels legible
      svg << "<text x=\"" << num(x) << "\" y=\"" << kPlotBottom + 20
          << "\" text-anchor=\"middle\" fill=\"#333\">" << chart.problems[i].n << "</text>\n";
      last_label = x;
    }
  }

  // Other shapes: one slot each, labelled MxNxK, the contenders side by side within it.
  const double slot = others.empty() ? 0 : (other_panel.right - other_panel.left) / others.size();
  const std::size_t count = chart.series.size();
  const double spread = std::min(12.0, slot * 0.8 / std::max<std::size_t>(count, 1));
  auto other_x = [&](std::size_t slot_index, std::size_t series_index) {
    return other_panel.left + slot * (slot_index + 0.5) +
           (double(series_index) - double(count - 1) / 2) * spread;
  };
  if (!others.empty()) {
    frame(other_panel, "other shapes (M x N x K)");
    for (std::size_t j = 0; j < others.size(); ++j) {
      const auto& p = chart.problems[others[j]];
      const double x = other_panel.left + slot * (j + 0.5);
      const std::string label =
          std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k);
      if (j > 0)
        svg << "<line x1=\"" << num(x - slot / 2) << "\" x2=\"" << num(x - slot / 2) << "\" y1=\""
            << kPlotTop << "\" y2=\"" << kPlotBottom << "\" stroke=\"#ddd\"/>\n";
      if (double(label.size()) * 7 < slot)
        svg << "<text x=\"" << num(x) << "\" y=\"" << kPlotBottom + 20
            << "\" text-anchor=\"middle\" fill=\"#333\">" << label << "</text>\n";
      else
        svg << "<text transform=\"translate(" << num(x + 4) << ',' << kPlotBottom + 14
            << ") rotate(-30)\" text-anchor=\"end\" fill=\"#333\" font-size=\"11\">" << label
            << "</text>\n";
    }
  }

  // The contenders: ceilings first (dashed), then measured lines and markers on top.
  for (int pass = 0; pass < 2; ++pass) {
    for (std::size_t s = 0; s < count; ++s) {
      const auto& series = chart.series[s];
      const char* color = kColors[s % kColorCount];
      const auto& values = pass == 0 ? series.ceiling : series.gflops;
      std::string points;
      for (std::size_t i : squares)
        if (i < values.size() && values[i] > 0)
          points += num(square_x(chart.problems[i].n)) + "," + num(axis.y(values[i])) + " ";
      if (!points.empty())
        svg << "<polyline points=\"" << points << "\" fill=\"none\" stroke=\"" << color
            << (pass == 0 ? "\" stroke-width=\"1.6\" stroke-dasharray=\"7,4\" opacity=\"0.85\"/>\n"
                          : "\" stroke-width=\"2\"/>\n");
      for (std::size_t j = 0; j < others.size(); ++j) {
        const std::size_t i = others[j];
        if (i >= values.size() || values[i] <= 0) continue;
        const double x = other_x(j, s), y = axis.y(values[i]);
        if (pass == 0)
          svg << "<line x1=\"" << num(x - 7) << "\" x2=\"" << num(x + 7) << "\" y1=\"" << num(y)
              << "\" y2=\"" << num(y) << "\" stroke=\"" << color
              << "\" stroke-width=\"2\" stroke-dasharray=\"3,2\"/>\n";
        else
          svg << marker(int(s), x, y, color) << "\n";
      }
      if (pass == 1)
        for (std::size_t i : squares)
          if (i < values.size() && values[i] > 0)
            svg << marker(int(s), square_x(chart.problems[i].n), axis.y(values[i]), color) << "\n";
    }
  }

  // Legend, right of the plot.
  const double lx = kPlotRight + 24;
  double ly = kPlotTop + 10;
  svg << "<text x=\"" << lx << "\" y=\"" << ly << "\" font-weight=\"bold\">measured</text>\n";
  bool any_ceiling = false;
  for (std::size_t s = 0; s < count; ++s) {
    ly += 22;
    const char* color = kColors[s % kColorCount];
    svg << "<line x1=\"" << lx << "\" x2=\"" << lx + 30 << "\" y1=\"" << num(ly - 4) << "\" y2=\""
        << num(ly - 4) << "\" stroke=\"" << color << "\" stroke-width=\"2\"/>\n"
        << marker(int(s), lx + 15, ly - 4, color) << "\n"
        << "<text x=\"" << lx + 38 << "\" y=\"" << num(ly) << "\">" << escape(chart.series[s].name)
        << "</text>\n";
    for (double v : chart.series[s].ceiling) any_ceiling = any_ceiling || v > 0;
  }
  if (any_ceiling) {
    ly += 34;
    svg << "<text x=\"" << lx << "\" y=\"" << ly << "\" font-weight=\"bold\">ceilings</text>\n";
    ly += 22;
    svg << "<line x1=\"" << lx << "\" x2=\"" << lx + 30 << "\" y1=\"" << num(ly - 4) << "\" y2=\""
        << num(ly - 4) << "\" stroke=\"#333\" stroke-width=\"1.6\" stroke-dasharray=\"7,4\"/>\n"
        << "<text x=\"" << lx + 38 << "\" y=\"" << ly << "\">dashed, kernel's colour:</text>\n"
        << "<text x=\"" << lx + 38 << "\" y=\"" << ly + 16 << "\">min(peak, bandwidth x</text>\n"
        << "<text x=\"" << lx + 38 << "\" y=\"" << ly + 32 << "\">arithmetic intensity)</text>\n";
    ly += 32;
  }
  if (chart.peak_gflops > 0) {
    ly += 22;
    svg << "<line x1=\"" << lx << "\" x2=\"" << lx + 30 << "\" y1=\"" << num(ly - 4) << "\" y2=\""
        << num(ly - 4) << "\" stroke=\"#888\" stroke-width=\"3\" opacity=\"0.6\"/>\n"
        << "<text x=\"" << lx + 38 << "\" y=\"" << ly << "\">device peak, "
        << tick_label(chart.peak_gflops) << " GFLOP/s</text>\n"
        << "<text x=\"" << lx + 38 << "\" y=\"" << ly + 16
        << "\">(a ceiling on it: compute-bound)</text>\n";
  }
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace clgemm::bench
