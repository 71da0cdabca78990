// Router: routes as data. A route is a method, a path pattern with {name} segments and a
// handler; later layers add theirs (GET /v1/sequences/{name}) by calling add(). Matching
// is by segment, without regular expressions, and tells "no such path" (404) apart from
// "path exists, not with this method" (405 with Allow).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace idforge::server {

/// What a handler sees of a request. Valid only during the handler call.
class Request {
 public:
  /// Provides header and query lookups from the HTTP layer.
  struct Source {
    std::function<std::optional<std::string>(std::string_view)> header;
    std::function<std::optional<std::string>(std::string_view)> query;
    /// The names of the query's parameters, in order (may be left empty: none).
    std::function<std::vector<std::string>()> query_names;
  };
  Request(std::string_view method, std::string_view path,
          std::vector<std::pair<std::string, std::string>> params, const Source& source)
      : method_(method), path_(path), params_(std::move(params)), source_(&source) {}

  std::string_view method() const noexcept { return method_; }
  /// The decoded path.
  std::string_view path() const noexcept { return path_; }
  /// The value of pattern segment {name}; empty if the pattern has none.
  std::string_view param(std::string_view name) const noexcept;
  /// A query parameter, decoded.
  std::optional<std::string> query(std::string_view name) const { return source_->query(name); }
  /// The names of the query parameters, decoded, in order.
  std::vector<std::string> query_names() const {
    return source_->query_names ? source_->query_names() : std::vector<std::string>{};
  }
  /// A request header (case-insensitive name).
  std::optional<std::string> header(std::string_view name) const { return source_->header(name); }
  /// True when the Accept header prefers text/plain over JSON.
  bool wants_text() const;

 private:
  std::string_view method_, path_;
  std::vector<std::pair<std::string, std::string>> params_;
  const Source* source_;
};

/// An open file sent as a response body in pieces (static files), so its size does not
/// become memory per connection. Closes the descriptor when the last Response holding it
/// goes.
struct FileBody {
  FileBody(int fd, std::uint64_t size) noexcept : fd(fd), size(size) {}
  ~FileBody();
  FileBody(const FileBody&) = delete;
  FileBody& operator=(const FileBody&) = delete;
  int fd;              ///< open for reading; read with pread from offset 0
  std::uint64_t size;  ///< the Content-Length announced
};

/// What a handler returns.
struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  /// When set, the body is this file (body stays empty).
  std::shared_ptr<const FileBody> file;
  /// The length of the body: the file's size or body's.
  std::uint64_t body_size() const noexcept { return file ? file->size : body.size(); }
};

/// RFC 9457 problem details: a Response with application/problem+json.
/// type is a short slug ("bad-count"); it becomes "urn:idforge:problem:<slug>". Bytes of
/// detail that are not UTF-8 become U+FFFD, so any text can be reported.
Response problem(int status, std::string_view type, std::string_view title,
                 std::string_view detail);

/// Most values one request may ask for (?count=) on /v1/ids and /v1/sequences.
inline constexpr std::size_t kMaxCount = 10'000;
/// Parses ?count: absent = 1; digits only, 1..kMaxCount; nullopt otherwise.
std::optional<std::size_t> parse_count(const std::optional<std::string>& text);
/// The 400 problem for a count that parse_count refused.
Response bad_count(const std::optional<std::string>& text);

using Handler = std::function<Response(const Request&)>;

/// The route table. Fill before serving; read-only (and thread-safe) while serving.
class Router {
 public:
  struct Route {
    std::string method;   ///< "GET" (also answers HEAD)
    std::string pattern;  ///< "/v1/ids/{kind}"; also the route's label in metrics
    Handler handler;
    std::vector<std::string> segments;
    /// The handler waits on an outside system (a database): it runs on the server's
    /// blocking pool, so the I/O threads keep serving other connections meanwhile.
    bool blocking = false;
  };
  /// Result of match(): a route and its parameters, or 404/405 information.
  struct Match {
    const Route* route = nullptr;
    std::size_t index = 0;  ///< position of route in routes()
    std::vector<std::pair<std::string, std::string>> params;
    std::string allow;  ///< methods the path has, when route is null but the path exists
  };

  /// Adds a route. Throws Error(errc::invalid_argument) for a pattern not starting with '/'
  /// or a method/pattern pair already present. blocking: see Route::blocking.
  void add(std::string method, std::string pattern, Handler handler, bool blocking = false);
  /// Finds the route for method and path.
  Match match(std::string_view method, std::string_view path) const;
  const std::vector<Route>& routes() const noexcept { return routes_; }

 private:
  std::vector<Route> routes_;
};

}  // namespace idforge::server
