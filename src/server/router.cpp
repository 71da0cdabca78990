#include "idforge/server/router.hpp"

#include <charconv>

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

bool Request::wants_text() const {
  const auto accept = header("Accept");
  if (!accept) return false;
  const auto text = accept->find("text/plain");
  if (text == std::string::npos) return false;
  const auto json = accept->find("application/json");
  return json == std::string::npos || text < json;
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
