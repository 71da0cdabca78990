// The service's answer to one request as bytes: the server's write_response (one reused
// std::string, no allocation per header) beside Boost.Beast's http::response and
// http::serializer writing the same status line and headers, in the same run. The answer is
// what GET /v1/ids/snowflake returns: 200, JSON, a 40-byte body, Date, Content-Length,
// X-Content-Type-Options and one handler header. Both outputs are checked for the same
// length once before timing, so neither side skips work the other does.
#include <benchmark/benchmark.h>

#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/serializer.hpp>
#include <boost/beast/http/string_body.hpp>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>

#include "response_writer.hpp"

namespace {

namespace http = boost::beast::http;
using idforge::server::Response;
using idforge::server::detail::ResponseFraming;
using idforge::server::detail::write_response;

Response answer() {
  return Response{200,
                  "application/json",
                  R"({"id":"7270190425284583424","node":1})",
                  {{"Cache-Control", "no-store"}},
                  {}};
}

// The Date value as write_response writes it (formatted once a second there too).
std::string http_date() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[40];
  return {text, std::strftime(text, sizeof text, "%a, %d %b %Y %H:%M:%S GMT", &tm)};
}

// Beast's way: a response per request, its fields set, the serializer's buffers appended to
// out (what a write to the socket would send).
void beast_write(const Response& r, const std::string& date, std::string& out) {
  http::response<http::string_body> res{static_cast<http::status>(r.status), 11};
  res.set(http::field::date, date);
  res.set(http::field::content_type, r.content_type);
  res.set("X-Content-Type-Options", "nosniff");
  for (const auto& [k, v] : r.headers) res.set(k, v);
  res.body() = r.body;
  res.prepare_payload();
  http::serializer<false, http::string_body> sr{res};
  boost::beast::error_code ec;
  do
    sr.next(ec, [&](boost::beast::error_code&, const auto& buffers) {
      for (const auto b : boost::beast::buffers_range_ref(buffers))
        out.append(static_cast<const char*>(b.data()), b.size());
      sr.consume(boost::beast::buffer_bytes(buffers));
    });
  while (!ec && !sr.is_done());
}

void idforge_write_response(benchmark::State& state) {
  const Response r = answer();
  std::string out;
  for (auto _ : state) {
    out.clear();
    write_response(r, ResponseFraming{}, out);
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["bytes"] = static_cast<double>(out.size());
}

void beast_response_serializer(benchmark::State& state) {
  const Response r = answer();
  const std::string date = http_date();
  std::string out;
  for (auto _ : state) {
    out.clear();
    beast_write(r, date, out);
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["bytes"] = static_cast<double>(out.size());
}

}  // namespace

BENCHMARK(idforge_write_response);
BENCHMARK(beast_response_serializer);

int main(int argc, char** argv) {
  // The same answer both ways: the same length (Beast writes "Content-Length" and
  // "X-Content-Type-Options" in its own order, and no Connection header either).
  std::string a, b;
  write_response(answer(), ResponseFraming{}, a);
  beast_write(answer(), http_date(), b);
  if (a.size() != b.size()) {
    std::fprintf(stderr, "response_bench: the two answers differ in length (%zu, %zu):\n%s\n%s\n",
                 a.size(), b.size(), a.c_str(), b.c_str());
    return 1;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
