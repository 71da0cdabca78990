#include "idforge/server/router.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "idforge/error.hpp"

namespace idforge::server {
namespace {

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> out;
  std::size_t i = 1;
  while (i <= path.size()) {
    const std::size_t j = std::min(path.find('/', i), path.size());
    out.emplace_back(path.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

bool is_param(const std::string& seg) {
  return seg.size() > 2 && seg.front() == '{' && seg.back() == '}';
}

// Matches segment by segment; a {param} takes one non-empty segment.
bool match_segments(const std::vector<std::string>& pattern, std::string_view path,
                    std::vector<std::pair<std::string, std::string>>* params) {
  std::size_t i = 1;
  for (std::size_t k = 0; k < pattern.size(); ++k) {
    if (i > path.size()) return false;
    const std::size_t j = std::min(path.find('/', i), path.size());
    const std::string_view seg = path.substr(i, j - i);
    if (is_param(pattern[k])) {
      if (seg.empty()) return false;
      if (params) params->emplace_back(pattern[k].substr(1, pattern[k].size() - 2), seg);
    } else if (seg != pattern[k]) {
      return false;
    }
    i = j + 1;
  }
  return i == path.size() + 1;
}

}  // namespace

std::string_view Request::param(std::string_view name) const noexcept {
  for (const auto& [k, v] : params_)
    if (k == name) return v;
  return {};
}

namespace {

// What an Accept header (RFC 9110 §12.5.1) gives one media type: the q of the most specific
// range that matches it (type/subtype over type/* over */*; -1 when none does), and where
// that range stands in the list. Types and parameter names are case-insensitive.
struct Acceptance {
  double q = -1;
  int specificity = -1;
  std::size_t position = 0;
  bool named = false;  // matched by its own type/subtype, not a wildcard
};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::string_view trim_ows(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

Acceptance acceptance(std::string_view accept, std::string_view type, std::string_view subtype) {
  Acceptance best;
  std::size_t position = 0;
  while (!accept.empty()) {
    const std::size_t comma = std::min(accept.find(','), accept.size());
    std::string_view range = accept.substr(0, comma);
    accept.remove_prefix(std::min(comma + 1, accept.size()));
    double q = 1;
    const std::size_t semi = std::min(range.find(';'), range.size());
    for (std::string_view params = range.substr(semi); !params.empty();) {
      params.remove_prefix(1);  // the ';'
      const std::size_t next = std::min(params.find(';'), params.size());
      const std::string_view param = trim_ows(params.substr(0, next));
      params.remove_prefix(next);
      if (param.size() >= 2 && (param[0] == 'q' || param[0] == 'Q') && param[1] == '=') {
        char* end = nullptr;
        const std::string value(param.substr(2));
        q = std::strtod(value.c_str(), &end);
        if (end == value.c_str() || q < 0 || q > 1) q = 0;  // a broken weight accepts nothing
      }
    }
    const std::string media = lower(trim_ows(range.substr(0, semi)));
    const std::size_t slash = media.find('/');
    ++position;
    if (slash == std::string::npos) continue;
    const std::string_view t = std::string_view(media).substr(0, slash);
    const std::string_view st = std::string_view(media).substr(slash + 1);
    int specificity = -1;
    if (t == type && st == subtype)
      specificity = 2;
    else if (t == type && st == "*")
      specificity = 1;
    else if (t == "*" && st == "*")
      specificity = 0;
    if (specificity > best.specificity) best = {q, specificity, position, specificity == 2};
  }
  return best;
}

}  // namespace

bool Request::wants_text() const {
  const auto accept = header("Accept");
  if (!accept) return false;
  // Text when it weighs more than JSON; at equal weight only when text/plain is named and
  // comes first. JSON otherwise, also when the client accepts neither.
  const Acceptance text = acceptance(*accept, "text", "plain");
  const Acceptance json = acceptance(*accept, "application", "json");
  const double tq = std::max(text.q, 0.0), jq = std::max(json.q, 0.0);
  if (tq <= 0) return false;
  if (tq != jq) return tq > jq;
  return text.named && (!json.named || text.position < json.position);
}

FileBody::~FileBody() {
  if (fd >= 0) ::close(fd);
}

Response problem(int status, std::string_view type, std::string_view title,
                 std::string_view detail) {
  nlohmann::ordered_json j;
  j["type"] = "urn:idforge:problem:" + std::string(type);
  j["title"] = title;
  j["status"] = status;
  j["detail"] = detail;
  Response r;
  r.status = status;
  r.content_type = "application/problem+json";
  r.body = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return r;
}

void Router::add(std::string method, std::string pattern, Handler handler, bool blocking) {
  if (pattern.empty() || pattern.front() != '/')
    throw Error(errc::invalid_argument, "route '" + pattern + "': a pattern starts with '/'");
  for (const auto& r : routes_)
    if (r.method == method && r.pattern == pattern)
      throw Error(errc::invalid_argument,
                  "route " + method + " " + pattern + ": already registered");
  Route r{std::move(method), std::move(pattern), std::move(handler), {}, blocking};
  r.segments = split_path(r.pattern);
  routes_.push_back(std::move(r));
}

Router::Match Router::match(std::string_view method, std::string_view path) const {
  Match m;
  if (path.empty() || path.front() != '/') return m;
  const std::string_view want = method == "HEAD" ? std::string_view("GET") : method;
  for (std::size_t i = 0; i < routes_.size(); ++i) {
    const Route& r = routes_[i];
    if (r.method == want) {
      m.params.clear();
      if (match_segments(r.segments, path, &m.params)) {
        m.route = &r;
        m.index = i;
        m.allow.clear();
        return m;
      }
    } else if (match_segments(r.segments, path, nullptr)) {
      if (m.allow.find(r.method) == std::string::npos)
        m.allow += (m.allow.empty() ? "" : ", ") + r.method + (r.method == "GET" ? ", HEAD" : "");
    }
  }
  m.params.clear();
  return m;
}

std::optional<std::size_t> parse_count(const std::optional<std::string>& text) {
  if (!text) return 1;
  std::size_t n = 0;
  const char* end = text->data() + text->size();
  const auto [p, ec] = std::from_chars(text->data(), end, n);
  if (text->empty() || ec != std::errc{} || p != end || n < 1 || n > kMaxCount) return std::nullopt;
  return n;
}

Response bad_count(const std::optional<std::string>& text) {
  return problem(400, "bad-count", "Bad Request",
                 "count='" + text.value_or("") + "' must be a whole number from 1 to " +
                     std::to_string(kMaxCount));
}

}  // namespace idforge::server
