#include "lab_output.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>

#include "cli_support.hpp"
#include "printable.hpp"

namespace idforge::cli {

std::uint64_t parse_count(const std::string& text, const std::string& option, std::uint64_t max) {
  auto fail = [&](const std::string& why) {
    throw CommandFailure{option + " '" + detail::shortened(printable(text), 200) + "': " + why};
  };
  // Underscores group digits (1_000_000) and stand only between two digits.
  const auto digit = [&](std::size_t at) {
    return at < text.size() && std::isdigit(static_cast<unsigned char>(text[at]));
  };
  std::string s;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '_')
      s += text[i];
    else if (i == 0 || !digit(i - 1) || !digit(i + 1) || s.find_first_of("eE") != std::string::npos)
      fail("an underscore stands only between two digits of the count (1_000)");
  }
  // Decimal only: stod would also read hex ("0x10" as 16, "0x1p10" as 1024).
  if (s.empty() || !(std::isdigit(static_cast<unsigned char>(s[0]))) ||
      s.find_first_not_of("0123456789.eE+-") != std::string::npos)
    fail("not a count (use digits, e.g. 1000000, or 1e6)");
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(s, &used);
  } catch (const std::exception&) {
    fail("not a count (use digits, e.g. 1000000, or 1e6)");
  }
  if (used != s.size()) fail("not a count (use digits, e.g. 1000000, or 1e6)");
  if (v != std::floor(v)) fail("not a whole number");
  if (v < 1) fail("must be at least 1");
  if (v > static_cast<double>(max)) fail("must be at most " + std::to_string(max));
  return static_cast<std::uint64_t>(v);
}

std::string human_bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) b /= 1024, ++u;
  return u == 0 ? fmt::format("{:.0f} B", b) : fmt::format("{:.1f} {}", b, units[u]);
}

std::string percent(double f) {
  return fmt::format("{:.1f}%", f * 100);
}

std::string format_table(const std::vector<std::string>& header,
                         const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width(header.size());
  for (std::size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
  for (const auto& r : rows)
    for (std::size_t c = 0; c < r.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], r[c].size());
  auto line = [&](const std::vector<std::string>& r, bool is_header) {
    std::string s;
    for (std::size_t c = 0; c < width.size(); ++c) {
      const std::string cell = c < r.size() ? r[c] : "";
      const bool right = !is_header && c > 0 && !cell.empty() &&
                         (std::isdigit(static_cast<unsigned char>(cell[0])) || cell[0] == '-');
      const std::string pad(width[c] - cell.size(), ' ');
      s += (c ? "  " : "") + (right ? pad + cell : cell + (c + 1 < width.size() ? pad : ""));
    }
    return s + "\n";
  };
  std::string out = line(header, true);
  std::string rule;
  for (std::size_t c = 0; c < width.size(); ++c)
    rule += (c ? "  " : "") + std::string(width[c], '-');
  out += rule + "\n";
  for (const auto& r : rows) out += line(r, false);
  return out;
}

std::string read_file(const std::string& path, const std::string& option) {
  const auto fail = [&](const std::string& why) {
    return CommandFailure{option + " '" + path + "': " + why};
  };
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec)
    throw fail(ec == std::errc::no_such_file_or_directory ? std::string("no such file")
                                                          : ec.message());
  if (!std::filesystem::is_regular_file(status)) throw fail("not a regular file");
  if (const auto size = std::filesystem::file_size(path, ec); !ec && size > kMaxReadBytes)
    throw fail(std::to_string(size) + " bytes: larger than " + std::to_string(kMaxReadBytes >> 20) +
               " MiB, which no file this command reads comes near");
  // stdio rather than a stream: a read error keeps its errno instead of an ios_base::failure.
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw fail(std::string("cannot open: ") + std::strerror(errno));
  std::string content;
  char buf[65536];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f.get())) > 0;) {
    content.append(buf, n);
    // A file that grows while it is read is stopped at the same bound.
    if (content.size() > kMaxReadBytes)
      throw fail("larger than " + std::to_string(kMaxReadBytes >> 20) + " MiB");
  }
  if (std::ferror(f.get())) throw fail(std::string("cannot read: ") + std::strerror(errno));
  return content;
}

void check_writable(const std::string& path, const std::string& option) {
  std::error_code ec;
  const bool existed = std::filesystem::exists(path, ec);
  // Append mode: opening neither truncates an existing file nor writes to it.
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "ab"), &std::fclose);
  if (!f) throw CommandFailure{option + " '" + path + "': cannot write: " + std::strerror(errno)};
  f.reset();
  if (!existed) std::filesystem::remove(path, ec);
}

void write_file(const std::string& path, const std::string& content) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw CommandFailure{"cannot write '" + path + "': " + std::strerror(errno)};
  f << content;
  f.close();
  if (!f) throw CommandFailure{"cannot write '" + path + "': " + std::strerror(errno)};
}

}  // namespace idforge::cli
