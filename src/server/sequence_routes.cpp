#include "idforge/server/sequence_routes.hpp"

#include <fmt/core.h>

#include <charconv>
#include <map>
#include <mutex>
#include <vector>

#include "idforge/error.hpp"
#include "idforge/server/router.hpp"
#include "idforge/server/server.hpp"
#include "idforge/ticket/segment_client.hpp"
#include "idforge/ticket/segment_store.hpp"
#include "idforge/ticket/ticket_errc.hpp"

namespace idforge::server {
namespace {

// One client per sequence name, each with its own store connection (a client owns its
// store's use). Opened on first request; the map only grows, bounded by the names that
// exist in the store (an unknown name is refused before it is kept).
class SequencePool {
 public:
  explicit SequencePool(std::string url) : url_(std::move(url)) {}

  // Fills out from the named sequence. A name is kept only after a successful draw, so
  // requests for names that do not exist cannot grow the pool.
  void draw(const std::string& name, std::span<std::int64_t> out) {
    if (ticket::SegmentClient* c = find(name)) {
      c->next_batch(out);  // thread-safe; entries are never removed while serving
      return;
    }
    Entry e;
    e.store = ticket::open_segment_store(url_);
    e.client = std::make_unique<ticket::SegmentClient>(*e.store, name);
    e.client->next_batch(out);
    std::lock_guard lock(mu_);
    clients_.try_emplace(name, std::move(e));  // a concurrent first draw may have won: ours closes
  }

 private:
  ticket::SegmentClient* find(const std::string& name) {
    std::lock_guard lock(mu_);
    const auto it = clients_.find(name);
    return it == clients_.end() ? nullptr : it->second.client.get();
  }

  struct Entry {
    std::unique_ptr<ticket::SegmentStore> store;
    std::unique_ptr<ticket::SegmentClient> client;
  };
  std::string url_;
  std::mutex mu_;
  std::map<std::string, Entry> clients_;
};

Response values_json(const std::vector<std::int64_t>& v) {
  Response r;
  if (v.size() == 1) {
    r.body = fmt::format(R"({{"id":{0},"id_str":"{0}"}})", v[0]);
    return r;
  }
  std::string nums, strs;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) nums += ',', strs += ',';
    nums += std::to_string(v[i]);
    strs += '"' + std::to_string(v[i]) + '"';
  }
  r.body = R"({"ids":[)" + nums + R"(],"ids_str":[)" + strs + "]}";
  return r;
}

}  // namespace

std::shared_ptr<void> add_sequence_routes(Server& server, const std::string& store_url) {
  auto pool = std::make_shared<SequencePool>(store_url);
  ticket::open_segment_store(store_url);  // a malformed URL fails at start-up, not per request
  server.router().add(
      "GET", "/v1/sequences/{name}",
      [pool, store_url](const Request& req) -> Response {
        const std::string name(req.param("name"));
        const auto count_text = req.query("count");
        const auto count = parse_count(count_text);
        if (!count) return bad_count(count_text);
        try {
          std::vector<std::int64_t> values(*count);
          pool->draw(name, values);
          if (req.wants_text()) {
            Response r{200, "text/plain; charset=utf-8", {}, {}, {}};
            for (auto v : values) r.body += std::to_string(v) + '\n';
            return r;
          }
          return values_json(values);
        } catch (const Error& e) {
          if (e.code() == ticket_errc::not_found)
            return problem(404, "no-such-sequence", "Not Found", e.what());
          if (e.code() == errc::invalid_argument || e.code() == errc::parse_error)
            return problem(400, "bad-sequence-name", "Bad Request", e.what());
          return problem(503, "sequence-store-unavailable", "Service Unavailable",
                         fmt::format("sequence store {}: {}", store_url, e.what()));
        }
      },
      /*blocking=*/true);
  return pool;
}

}  // namespace idforge::server
