// The routes every Server has: IDs, inspect, health, readiness, metrics and the index.
// Handlers are thin: check the input, answer early on an error, else call the core.
#include <fmt/format.h>

#include <charconv>
#include <filesystem>

#ifdef IDFORGE_SERVER_HAVE_LEASE
#include "idforge/coord/coord_errc.hpp"
#endif
#include "idforge/clock.hpp"
#include "idforge/error.hpp"
#include "idforge/inspect.hpp"
#include "idforge/inspect_json.hpp"
#include "idforge/server/bounded_clock.hpp"
#include "server_impl.hpp"

namespace idforge::server {
namespace {

// The ID bodies are built by hand rather than through a JSON library: they are only
// digits and the service's own UUID/ULID text (hex, Crockford base32, '-'), which need
// no escaping, and a batch of 10,000 is the hot path.
void append_u64(std::string& out, std::uint64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

std::string encode_json(const IdBatch& b, std::size_t n) {
  std::string out;
  const bool num = !b.numbers.empty();
  out.reserve(32 + n * (num ? 44 : 2 * (b.text_count() == 0 ? 0 : b.text(0).size() + 3)));
  if (n == 1) {
    out += "{\"id\":";
    if (num) {
      append_u64(out, b.numbers[0]);
      out += ",\"id_str\":\"";
      append_u64(out, b.numbers[0]);
      out += "\"}";
    } else {
      ((out += '"') += b.text(0)) += "\",\"id_str\":\"";
      (out += b.text(0)) += "\"}";
    }
    return out;
  }
  out += "{\"ids\":[";
  for (std::size_t i = 0; i < n; ++i) {
    if (i) out += ',';
    if (num)
      append_u64(out, b.numbers[i]);
    else
      ((out += '"') += b.text(i)) += '"';
  }
  out += "],\"ids_str\":[";
  for (std::size_t i = 0; i < n; ++i) {
    out += i ? ",\"" : "\"";
    if (num)
      append_u64(out, b.numbers[i]);
    else
      out += b.text(i);
    out += '"';
  }
  out += "]}";
  return out;
}

std::string encode_text(const IdBatch& b, std::size_t n) {
  std::string out;
  out.reserve(n * 24);
  for (std::size_t i = 0; i < n; ++i) {
    if (!b.numbers.empty())
      append_u64(out, b.numbers[i]);
    else
      out += b.text(i);
    out += '\n';
  }
  return out;
}

// Errors a generator may raise that say "not now" rather than "never": the clock is
// behind, the lease fence passed, the process forked. The client should retry.
bool is_transient(std::error_code e) {
  if (e == errc::clock_moved_backwards || e == errc::fenced || e == errc::forked ||
      e == errc::counter_exhausted)
    return true;
#ifdef IDFORGE_SERVER_HAVE_LEASE
  if (e == coord_errc::lease_error || e == coord_errc::store_unreachable) return true;
#endif
  return false;
}

std::string html_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
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

}  // namespace

void Server::Impl::add_builtin_routes() {
  ids_route = router.routes().size();
  router.add("GET", "/v1/ids/{kind}", [this](const Request& r) -> Response {
    const std::string_view name = r.param("kind");
    const Kind* kind = kinds.find(name);
    if (!kind) {
      std::string known;
      for (const auto& k : kinds.kinds()) known += (known.empty() ? "" : ", ") + k.name;
      return problem(400, "unknown-kind", "Bad Request",
                     fmt::format("kind '{}' is not served; known kinds: {}", name, known));
    }
    const auto count_text = r.query("count");
    const auto count = parse_count(count_text);
    if (!count) return bad_count(count_text);
    if (kind->needs && !kind->needs->ready()) {
      Response p =
          problem(503, "not-ready", "Service Unavailable",
                  fmt::format("kind '{}' cannot issue now: {}", name, kind->needs->reason()));
      // The readiness cause as on /readyz, for clients that branch on it.
      p.body.insert(p.body.size() - 1, ",\"cause\":" + nlohmann::json(kind->needs->cause()).dump());
      p.headers.emplace_back("Retry-After", "1");
      return p;
    }
    thread_local IdBatch batch;
    batch.clear();
    try {
      kind->generate(*count, batch);
    } catch (const Error& e) {
      if (const WaitBound* bound = WaitBound::current(); bound && bound->gave_up()) {
        // The clock wait was cut short (BoundedClock): IDs already drawn are dropped, which
        // leaves a gap and never a duplicate.
        Response p = problem(
            503, bound->stopped() ? "stopping" : "batch-timeout", "Service Unavailable",
            bound->stopped()
                ? fmt::format("the server is stopping; count={} was not issued", *count)
                : fmt::format("count={} of kind '{}' cannot be issued within "
                              "batch-timeout-ms={} (the layout issues too few IDs per tick); "
                              "ask for fewer or retry",
                              *count, name, config.batch_timeout_ms));
        p.headers.emplace_back("Retry-After", "1");
        return p;
      }
      // The layout's time field used up, or a clock before its epoch: nothing to retry soon,
      // but the service is not broken either: 503 with a type of its own, never a 500.
      if (e.code() == errc::time_exhausted || e.code() == errc::clock_before_epoch)
        return problem(503,
                       e.code() == errc::time_exhausted ? "time-exhausted" : "clock-before-epoch",
                       "Service Unavailable", e.what());
      if (!is_transient(e.code())) throw;
      Response p = problem(503, "cannot-issue", "Service Unavailable", e.what());
      p.headers.emplace_back("Retry-After", "1");
      return p;
    }
    const std::size_t got = batch.numbers.empty() ? batch.text_count() : batch.numbers.size();
    if (got != *count)
      return problem(500, "internal", "Internal Server Error",
                     fmt::format("kind '{}' wrote {} IDs for count={}", name, got, *count));
    metrics->add_ids(static_cast<std::size_t>(kind - kinds.kinds().data()), *count);
    Response out;
    if (r.wants_text()) {
      out.content_type = "text/plain; charset=utf-8";
      out.body = encode_text(batch, *count);
    } else {
      out.body = encode_json(batch, *count);
    }
    out.headers.emplace_back("Cache-Control", "no-store");
    return out;
  });

  const Layout default_layout = parse_layout(config.layout);
  router.add("GET", "/v1/inspect/{id}", [default_layout](const Request& r) -> Response {
    InspectOptions opt;
    opt.layout = default_layout;
    // Each parameter's error is typed by the parameter: a bad layout is not a bad ID.
    if (auto layout = r.query("layout")) {
      try {
        opt.layout = parse_layout(*layout);
      } catch (const Error& e) {
        return problem(400, "bad-layout", "Bad Request", e.what());
      }
    }
    if (auto enc = r.query("encoding")) {
      try {
        opt.encoding = parse_int_encoding(*enc);
      } catch (const Error& e) {
        return problem(400, "bad-encoding", "Bad Request", e.what());
      }
    }
    // The present, for the note on a time far ahead: as the CLI does, so both agree.
    opt.now_unix_ms = realtime_ms();
    try {
      const Inspection in = inspect(r.param("id"), opt);
      Response out;
      out.body = inspection_to_json_with_warning(in).dump();
      return out;
    } catch (const Error& e) {
      return problem(400, "bad-id", "Bad Request", e.what());
    }
  });

  router.add("GET", "/healthz", [](const Request&) {
    Response out;
    out.body = R"({"status":"ok"})";
    return out;
  });

  router.add("GET", "/readyz", [this](const Request&) {
    if (!readiness->ready()) {
      // The cause as a member of its own, for probes and scripts that branch on it.
      Response p =
          problem(503, "not-ready", "Service Unavailable", "not ready: " + readiness->reason());
      p.body.insert(p.body.size() - 1, ",\"cause\":" + nlohmann::json(readiness->cause()).dump());
      return p;
    }
    Response out;
    out.body = R"({"status":"ready"})";
    return out;
  });

  router.add("GET", "/metrics", [this](const Request&) {
    Response out;
    out.content_type = "text/plain; version=0.0.4; charset=utf-8";
    out.body = metrics->render();
    const bool ready = readiness->ready();
    out.body +=
        "# HELP idforge_ready 1 while /readyz answers 200.\n"
        "# TYPE idforge_ready gauge\n";
    out.body += ready ? "idforge_ready 1\n" : "idforge_ready 0\n";
    if (!ready) {
      std::string cause = readiness->cause();
      std::erase_if(cause, [](char c) { return c == '"' || c == '\\' || c == '\n'; });
      out.body +=
          "# HELP idforge_not_ready Why /readyz answers 503 (the cause label; one series while "
          "not ready).\n"
          "# TYPE idforge_not_ready gauge\n"
          "idforge_not_ready{cause=\"" +
          cause + "\"} 1\n";
    }
    return out;
  });

  std::error_code ec;
  if (web_root.empty() ||
      !std::filesystem::exists(std::filesystem::path(web_root) / "index.html", ec)) {
    router.add("GET", "/", [this](const Request&) {
      std::string kinds_html;
      for (const auto& k : kinds.kinds())
        kinds_html += fmt::format(
            "<li><a href=\"/v1/ids/{0}\">/v1/ids/{0}</a> ({1}), also "
            "<a href=\"/v1/ids/{0}?count=5\">?count=5</a></li>\n",
            html_escape(k.name), html_escape(k.description));
      Response out;
      out.content_type = "text/html; charset=utf-8";
      out.body = fmt::format(
          "<!doctype html>\n<html lang=\"en\"><head><meta "
          "charset=\"utf-8\"><title>idforge</title></head>\n"
          "<body><h1>idforge</h1>\n<p>Unique IDs over HTTP. Every 64-bit ID comes as a number and "
          "as a string "
          "(<code>id_str</code>), because JavaScript rounds integers above "
          "2<sup>53</sup>.</p>\n<ul>\n{}"
          "<li><code>/v1/inspect/{{id}}</code>: what an ID carries</li>\n"
          "<li><a href=\"/healthz\">/healthz</a>, <a href=\"/readyz\">/readyz</a>, "
          "<a href=\"/metrics\">/metrics</a></li>\n</ul>\n</body></html>\n",
          kinds_html);
      return out;
    });
  }
}

}  // namespace idforge::server
