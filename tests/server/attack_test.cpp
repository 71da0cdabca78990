// The attack suite: what a security reviewer sends to `idforge serve`, as exact bytes over a
// raw socket to the real binary. Each probe asserts the exact answers (status by status, in
// order), whether the connection ends, and that the server still answers afterwards. A
// probe that leaves the connection open ends with a request of its own, so its answer
// proves the framing held. IDFORGE_SERVE_BINARY=PATH runs the probes against another build.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <ostream>

#include "raw_http.hpp"

namespace idforge::test {
namespace {

using nlohmann::json;

// The server under attack: small limits and timeouts so slow probes stay short.
const std::vector<std::string> kArgs = {"--node",
                                        "1",
                                        "--access-log",
                                        "off",
                                        "--max-body-bytes",
                                        "1024",
                                        "--request-timeout-ms",
                                        "1000",
                                        "--read-timeout-ms",
                                        "500",
                                        "--keep-alive-timeout-ms",
                                        "1500"};
const std::vector<std::string> kTokenArgs = {"--node", "1",       "--access-log",
                                             "off",    "--token", "s3cret"};

// Ends a probe that keeps its connection: answered 200, then the server closes.
const std::string kFollow = "GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";

struct Probe {
  std::string name;
  std::vector<std::string> parts;  // sent in order, pause_ms apart
  std::vector<int> statuses;       // every answer, in order (1xx included)
  int pause_ms = 0;
  std::vector<bool> head_only = {};
  std::function<void(const RawExchange&)> check = nullptr;
  int timeout_ms = 5000;
};

void PrintTo(const Probe& p, std::ostream* os) {
  *os << p.name;
}

std::string get(const std::string& target, const std::string& headers = "") {
  return "GET " + target + " HTTP/1.1\r\nHost: t\r\n" + headers + "\r\n";
}

// Answer i is an inspection whose time field reads text.
std::function<void(const RawExchange&)> time_is(std::size_t i, std::string text) {
  return [i, text](const RawExchange& x) {
    ASSERT_GT(x.responses.size(), i);
    const json j = json::parse(x.responses[i].body);
    EXPECT_EQ(j["time"].get<std::string>(), text) << j.dump();
  };
}

// The detail of answer i mentions text.
std::function<void(const RawExchange&)> detail_names(std::size_t i, std::string text) {
  return [i, text](const RawExchange& x) {
    ASSERT_GT(x.responses.size(), i);
    EXPECT_EQ(x.responses[i].header("Content-Type"), "application/problem+json");
    const json j = json::parse(x.responses[i].body);
    EXPECT_NE(j["detail"].get<std::string>().find(text), std::string::npos) << j.dump();
  };
}

std::function<void(const RawExchange&)> header_is(std::size_t i, std::string name,
                                                  std::string value) {
  return [=](const RawExchange& x) {
    ASSERT_GT(x.responses.size(), i);
    EXPECT_EQ(x.responses[i].header(name), value);
  };
}

// GET /healthz with this Host value; the connection closes after it unless told.
std::string host_get(const std::string& host, const std::string& connection = "close") {
  return "GET /healthz HTTP/1.1\r\nHost: " + host + "\r\nConnection: " + connection + "\r\n\r\n";
}

// A GET /healthz whose head, through its final CRLF, is exactly n bytes (n >= 64).
std::string head_of_size(std::size_t n) {
  const std::string start = "GET /healthz HTTP/1.1\r\nHost: t\r\n";
  std::string head = start;
  std::size_t left = n - start.size() - 2;  // the final CRLF
  for (int i = 0; left > 0; ++i) {
    const std::string name = "X-P" + std::to_string(i) + ": ";
    // Each line at most 8,000 bytes; the last one takes what is left (at least 8 bytes).
    std::size_t line = std::min<std::size_t>(left, 8000);
    if (left - line > 0 && left - line < name.size() + 3) line -= name.size() + 3;
    head += name + std::string(line - name.size() - 2, 'p') + "\r\n";
    left -= line;
  }
  return head + "\r\n";
}

// Answer i is a problem of this type slug.
std::function<void(const RawExchange&)> type_is(std::size_t i, std::string slug) {
  return [i, slug](const RawExchange& x) {
    ASSERT_GT(x.responses.size(), i);
    const json j = json::parse(x.responses[i].body);
    EXPECT_EQ(j["type"], "urn:idforge:problem:" + slug) << j.dump();
  };
}

std::vector<std::string> bytes_one_by_one(const std::string& s) {
  std::vector<std::string> out;
  for (char c : s) out.emplace_back(1, c);
  return out;
}

std::string crlf_flood(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += "\r\n";
  return s;
}

std::string many_headers(int n) {
  std::string h;
  for (int i = 0; i < n; ++i) h += "X-N" + std::to_string(i) + ": v\r\n";
  return h;
}

// Each probe, then the same checks.
void run_probe(int port, ServeProcess& server, const Probe& p) {
  const RawExchange x = exchange(port, p.parts, p.statuses.size(), /*wait_close=*/true, p.pause_ms,
                                 p.timeout_ms, p.head_only);
  std::vector<int> got;
  for (const auto& r : x.responses) got.push_back(r.status);
  EXPECT_EQ(got, p.statuses) << p.name << "\n" << x.raw.substr(0, 2000);
  EXPECT_TRUE(x.closed) << p.name << ": the connection stayed open";
  EXPECT_FALSE(x.garbage) << p.name << ": bytes that are no response:\n" << x.raw.substr(0, 2000);
  for (const auto& r : x.responses)
    if (r.status >= 400) EXPECT_EQ(r.header("Content-Type"), "application/problem+json") << p.name;
  if (p.check) p.check(x);
  EXPECT_TRUE(server.alive()) << p.name << " ended the server";
  EXPECT_EQ(health_status(port), 200) << p.name << ": the server does not answer afterwards";
}

// ---------------------------------------------------------------------------------------
// Probes against an open server.

std::vector<Probe> open_probes() {
  const std::string long_header = "X-Long: " + std::string(9000, 'a') + "\r\n";
  std::string big_head;
  for (int i = 0; i < 9; ++i)
    big_head += "X-Pad" + std::to_string(i) + ": " + std::string(7900, 'p') + "\r\n";
  const std::string chunked = "Transfer-Encoding: chunked\r\n";
  return {
      // --- found in the outside pass -------------------------------------------------
      {"invalid_utf8_path_ff",
       {get("/%ff"), kFollow},
       {400, 200},
       0,
       {},
       detail_names(0, "not valid UTF-8")},
      {"invalid_utf8_path_c3_28", {get("/x%c3%28"), kFollow}, {400, 200}},
      {"overlong_utf8_dots_to_passwd", {get("/%c0%ae%c0%ae/etc/passwd"), kFollow}, {400, 200}},
      {"smuggling_two_content_lengths",
       {"GET /v1/ids/snowflake HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\nContent-Length: "
        "48\r\n\r\n" +
        get("/v1/ids/snowflake")},
       {400},
       0,
       {},
       [](const RawExchange& x) {  // one answer, never a second one for the smuggled request
         EXPECT_EQ(x.raw.find("HTTP/1.1", 5), std::string::npos) << x.raw;
       }},
      {"range_is_ignored_on_ids",
       {get("/v1/ids/snowflake", "Range: bytes=0-5\r\n"), kFollow},
       {200, 200},
       0,
       {},
       [](const RawExchange& x) {
         ASSERT_FALSE(x.responses.empty());
         EXPECT_FALSE(x.responses[0].has("Content-Range"));
         EXPECT_TRUE(json::parse(x.responses[0].body).contains("id_str")) << x.responses[0].body;
       }},
      {"invalid_utf8_count",
       {get("/v1/ids/snowflake?count=%ff"), kFollow},
       {400, 200},
       0,
       {},
       detail_names(0, "'count'")},
      {"invalid_utf8_kind", {get("/v1/ids/%ff"), kFollow}, {400, 200}},
      {"invalid_utf8_inspect", {get("/v1/inspect/%ff"), kFollow}, {400, 200}},
      {"invalid_utf8_sim_kind",
       {get("/v1/sim/run?kind=%ff"), kFollow},
       {400, 200},
       0,
       {},
       detail_names(0, "'kind'")},
      {"nul_truncating_static_path",
       {get("/js/api.js%00.html"), kFollow},
       {400, 200},
       0,
       {},
       detail_names(0, "control byte 0x00")},
      {"header_line_over_limit_is_431", {get("/healthz", long_header)}, {431}},
      {"negative_content_length", {get("/healthz", "Content-Length: -5\r\n")}, {400}},
      {"repeated_count",
       {get("/v1/ids/snowflake?count=1&count=2"), kFollow},
       {400, 200},
       0,
       {},
       detail_names(0, "'count' is given more than once")},
      // --- request line ---------------------------------------------------------------
      {"http_0_9_request", {"GET /healthz\r\n\r\n"}, {400}},
      {"http_2_0_is_505", {"GET /healthz HTTP/2.0\r\nHost: t\r\n\r\n"}, {505}},
      {"http_1_2_is_505", {"GET /healthz HTTP/1.2\r\nHost: t\r\n\r\n"}, {505}},
      {"garbage_request_line", {"NONSENSE\r\n\r\n"}, {400}},
      {"two_spaces_in_request_line", {"GET  /healthz HTTP/1.1\r\nHost: t\r\n\r\n"}, {400}},
      {"tab_in_request_line", {"GET\t/healthz HTTP/1.1\r\nHost: t\r\n\r\n"}, {400}},
      {"space_in_target", {"GET /a b HTTP/1.1\r\nHost: t\r\n\r\n"}, {400}},
      {"control_byte_in_target", {"GET /a\x01z HTTP/1.1\r\nHost: t\r\n\r\n"}, {400}},
      {"nul_byte_in_request_line", {std::string("GET /\0 HTTP/1.1\r\nHost: t\r\n\r\n", 31)}, {400}},
      {"raw_utf8_in_target", {get("/caf\xc3\xa9"), kFollow}, {400, 200}},
      {"fragment_in_target", {get("/healthz#frag"), kFollow}, {400, 200}},
      {"target_of_9000_bytes_is_414", {get("/" + std::string(9000, 'a'))}, {414}},
      {"unending_target_is_414", {"GET /" + std::string(10000, 'a')}, {414}},
      {"method_of_40_bytes_is_501",
       {std::string(40, 'A') + " /healthz HTTP/1.1\r\nHost: t\r\n\r\n"},
       {501}},
      {"unending_method_is_501", {std::string(100, 'A')}, {501}},
      {"unending_garbage_is_400", {std::string(100, '{')}, {400}},
      {"unknown_method_is_501", {"FOO /healthz HTTP/1.1\r\nHost: t\r\n\r\n", kFollow}, {501, 200}},
      {"lowercase_method_is_501",
       {"get /healthz HTTP/1.1\r\nHost: t\r\n\r\n", kFollow},
       {501, 200}},
      {"connect_is_501", {"CONNECT t:443 HTTP/1.1\r\nHost: t:443\r\n\r\n", kFollow}, {501, 200}},
      {"empty_lines_before_request_are_ignored",
       {"\r\n\r\n" + get("/healthz"), kFollow},
       {200, 200}},
      {"flood_of_empty_lines_is_431", {crlf_flood(35000)}, {431}},
      // --- target forms ---------------------------------------------------------------
      {"absolute_form",
       {"GET http://t/v1/ids/snowflake HTTP/1.1\r\nHost: t\r\n\r\n", kFollow},
       {200, 200}},
      {"absolute_form_https_upper_case",
       {"GET HTTPS://t:8443/healthz HTTP/1.1\r\nHost: t\r\n\r\n", kFollow},
       {200, 200}},
      {"absolute_form_with_userinfo",
       {"GET http://user:pw@t/healthz HTTP/1.1\r\nHost: t\r\n\r\n", kFollow},
       {400, 200}},
      {"absolute_form_without_host",
       {"GET http:///healthz HTTP/1.1\r\nHost: t\r\n\r\n", kFollow},
       {400, 200}},
      {"options_asterisk",
       {"OPTIONS * HTTP/1.1\r\nHost: t\r\n\r\n", kFollow},
       {204, 200},
       0,
       {},
       header_is(0, "Allow", "GET, HEAD, OPTIONS")},
      {"get_asterisk", {"GET * HTTP/1.1\r\nHost: t\r\n\r\n", kFollow}, {400, 200}},
      // --- traversal and path normalization ---------------------------------------------
      {"dot_dot_raw",
       {get("/../../etc/passwd"), kFollow},
       {400, 200},
       0,
       {},
       detail_names(0, "dot-segment")},
      {"dot_dot_encoded", {get("/%2e%2e/%2e%2e/etc/passwd"), kFollow}, {400, 200}},
      {"dot_dot_mixed_case_encoding", {get("/%2E%2e/etc/passwd"), kFollow}, {400, 200}},
      {"dot_dot_half_encoded", {get("/.%2e/etc/passwd"), kFollow}, {400, 200}},
      {"dot_dot_inside_path", {get("/js/../index.html"), kFollow}, {400, 200}},
      {"single_dot_segment", {get("/./index.html"), kFollow}, {400, 200}},
      {"encoded_slash", {get("/..%2f..%2fetc%2fpasswd"), kFollow}, {400, 200}},
      {"raw_backslash", {get("/..\\..\\etc\\passwd"), kFollow}, {400, 200}},
      {"encoded_backslash", {get("/..%5c..%5cetc%5cpasswd"), kFollow}, {400, 200}},
      {"overlong_utf8_slash", {get("/..%c0%af..%c0%afetc%c0%afpasswd"), kFollow}, {400, 200}},
      {"double_encoded_dots_stay_a_name", {get("/%252e%252e/etc/passwd"), kFollow}, {404, 200}},
      {"empty_segment", {get("//etc/passwd"), kFollow}, {400, 200}},
      {"absolute_form_with_dot_dot",
       {"GET http://t/../etc/passwd HTTP/1.1\r\nHost: t\r\n\r\n", kFollow},
       {400, 200}},
      {"static_file_served",
       {get("/js/api.js"), kFollow},
       {200, 200},
       0,
       {},
       header_is(0, "Content-Type", "text/javascript; charset=utf-8")},
      // --- headers ----------------------------------------------------------------------
      {"obs_fold",
       {get("/healthz", "X-A: 1\r\n  folded\r\n")},
       {400},
       0,
       {},
       detail_names(0, "obs-fold")},
      {"space_before_first_header", {"GET /healthz HTTP/1.1\r\n Host: t\r\n\r\n"}, {400}},
      {"bare_lf_line_ends",
       {"GET /healthz HTTP/1.1\nHost: t\n\n"},
       {400},
       0,
       {},
       detail_names(0, "LF")},
      {"bare_cr_in_value", {get("/healthz", "X-A: a\rb\r\n")}, {400}},
      {"nul_in_value", {get("/healthz", std::string("X-A: a\0b\r\n", 9))}, {400}},
      {"del_in_value", {get("/healthz", "X-A: a\x7f\r\n")}, {400}},
      {"space_before_colon", {"GET /healthz HTTP/1.1\r\nHost : t\r\n\r\n"}, {400}},
      {"header_without_colon", {get("/healthz", "NoColonHere\r\n")}, {400}},
      {"empty_header_name", {get("/healthz", ": x\r\n")}, {400}},
      {"obs_text_in_value_is_fine",
       {get("/healthz", "X-Name: caf\xc3\xa9 \xff\r\n"), kFollow},
       {200, 200}},
      {"hundred_header_lines_are_fine",
       {"GET /healthz HTTP/1.1\r\nHost: t\r\n" + many_headers(99) + "\r\n", kFollow},
       {200, 200}},
      {"hundred_and_one_header_lines_is_431", {get("/healthz", many_headers(101))}, {431}},
      {"head_over_64_kib_is_431", {get("/healthz", big_head)}, {431}},
      {"http11_without_host", {"GET /healthz HTTP/1.1\r\n\r\n"}, {400}},
      {"two_hosts", {"GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"}, {400}},
      {"host_with_a_slash", {"GET /healthz HTTP/1.1\r\nHost: a/b\r\n\r\n"}, {400}},
      {"upgrade_to_h2c_is_ignored",
       {get("/healthz",
            "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: "
            "AAMAAABkAAQ\r\n"),
        kFollow},
       {200, 200}},
      // --- framing: Content-Length ------------------------------------------------------
      {"content_length_with_plus", {get("/healthz", "Content-Length: +5\r\n") + "hello"}, {400}},
      {"content_length_list_of_equals",
       {get("/healthz", "Content-Length: 5, 5\r\n") + "hello"},
       {400}},
      {"content_length_twice_equal",
       {get("/healthz", "Content-Length: 5\r\nContent-Length: 5\r\n") + "hello"},
       {400}},
      {"content_length_overflow",
       {get("/healthz", "Content-Length: 99999999999999999999999\r\n")},
       {400}},
      {"content_length_over_max_body",
       {get("/healthz", "Content-Length: 5000\r\n") + std::string(5000, 'b')},
       {413}},
      {"content_length_at_max_body",
       {get("/healthz", "Content-Length: 1024\r\n") + std::string(1024, 'b'), kFollow},
       {200, 200}},
      {"body_on_get_then_pipelined",
       {get("/healthz", "Content-Length: 5\r\n") + "hello" + kFollow},
       {200, 200}},
      // --- framing: Transfer-Encoding ---------------------------------------------------
      {"transfer_encoding_and_content_length",
       {get("/healthz", chunked + "Content-Length: 5\r\n") + "0\r\n\r\n" +
        get("/v1/ids/snowflake")},
       {400},
       0,
       {},
       // The detail names the conflict, not the (valid) number.
       detail_names(0, "Content-Length '5' comes with Transfer-Encoding")},
      {"content_length_and_transfer_encoding_gzip",
       {get("/healthz", "Content-Length: 5\r\nTransfer-Encoding: gzip\r\n") + "hello"},
       {400}},
      {"transfer_encoding_gzip_then_content_length",
       {get("/healthz", "Transfer-Encoding: gzip\r\nContent-Length: 5\r\n") + "hello"},
       {400}},
      {"unknown_coding_before_chunked_is_501",
       {get("/healthz", "Transfer-Encoding: gzip, chunked\r\n") + "0\r\n\r\n"},
       {501}},
      {"chunked_not_last",
       {get("/healthz", "Transfer-Encoding: chunked, gzip\r\n") + "0\r\n\r\n"},
       {400}},
      {"only_gzip", {get("/healthz", "Transfer-Encoding: gzip\r\n") + "0\r\n\r\n"}, {400}},
      {"identity_coding", {get("/healthz", "Transfer-Encoding: identity\r\n")}, {400}},
      {"empty_transfer_encoding", {get("/healthz", "Transfer-Encoding: \r\n")}, {400}},
      {"chunked_twice", {get("/healthz", chunked + chunked) + "0\r\n\r\n"}, {400}},
      // Empty list elements are skipped (RFC 9110 §5.6.1), by the check and by Beast's
      // framing alike: the chunked body is read as one, and the next request is served.
      {"transfer_encoding_empty_elements",
       {get("/healthz", "Transfer-Encoding: , chunked,\r\n") + "5\r\nhello\r\n0\r\n\r\n" + kFollow},
       {200, 200}},
      {"transfer_coding_with_parameters",
       {get("/healthz", "Transfer-Encoding: chunked;q=1\r\n") + "0\r\n\r\n"},
       {400},
       0,
       {},
       detail_names(0, "is not a list of transfer codings")},
      {"transfer_encoding_only_commas", {get("/healthz", "Transfer-Encoding: , ,\r\n")}, {400}},
      {"chunked_in_http10", {"GET /healthz HTTP/1.0\r\n" + chunked + "\r\n0\r\n\r\n"}, {400}},
      {"chunked_body_then_pipelined",
       {get("/healthz", chunked) + "5\r\nhello\r\n0\r\n\r\n" + kFollow},
       {200, 200}},
      {"chunked_with_trailer",
       {get("/healthz", chunked) + "5;ext=1\r\nhello\r\n0\r\nX-T: 1\r\n\r\n" + kFollow},
       {200, 200}},
      {"chunk_size_not_hex", {get("/healthz", chunked) + "zz\r\nhello\r\n0\r\n\r\n"}, {400}},
      {"chunk_size_overflow",
       {get("/healthz", chunked) + "1ffffffffffffffff\r\nx\r\n0\r\n\r\n"},
       {400}},
      {"chunks_over_max_body",
       {get("/healthz", chunked) + "800\r\n" + std::string(2048, 'c') + "\r\n0\r\n\r\n"},
       {413}},
      {"endless_chunk_extension",
       {get("/healthz", chunked) + "5;" + std::string(70000, 'e')},
       {400}},
      // --- methods ----------------------------------------------------------------------
      {"head_has_length_and_no_body",
       {"HEAD /v1/ids/snowflake HTTP/1.1\r\nHost: t\r\n\r\n", kFollow},
       {200, 200},
       0,
       {true, false},
       [](const RawExchange& x) {
         ASSERT_EQ(x.responses.size(), 2u);
         EXPECT_GT(std::stoi(x.responses[0].header("Content-Length")), 0);
         EXPECT_TRUE(x.responses[0].body.empty());
       }},
      {"options_on_ids",
       {"OPTIONS /v1/ids/snowflake HTTP/1.1\r\nHost: t\r\n\r\n", kFollow},
       {204, 200},
       0,
       {},
       header_is(0, "Allow", "GET, HEAD, OPTIONS")},
      {"options_on_static_file",
       {"OPTIONS /js/api.js HTTP/1.1\r\nHost: t\r\n\r\n", kFollow},
       {204, 200}},
      {"delete_on_healthz",
       {"DELETE /healthz HTTP/1.1\r\nHost: t\r\n\r\n", kFollow},
       {405, 200},
       0,
       {},
       header_is(0, "Allow", "GET, HEAD, OPTIONS")},
      {"trace_on_root", {"TRACE / HTTP/1.1\r\nHost: t\r\n\r\n", kFollow}, {405, 200}},
      {"post_on_static_file",
       {"POST /index.html HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n", kFollow},
       {405, 200}},
      // --- HTTP/1.0 and keep-alive ------------------------------------------------------
      {"http10_without_host_closes",
       {"GET /healthz HTTP/1.0\r\n\r\n"},
       {200},
       0,
       {},
       [](const RawExchange& x) {
         ASSERT_FALSE(x.responses.empty());
         EXPECT_EQ(x.responses[0].header("Connection"), "close");
       }},
      {"http10_keep_alive",
       {"GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", kFollow},
       {200, 200},
       0,
       {},
       header_is(0, "Connection", "keep-alive")},
      {"connection_close", {get("/healthz", "Connection: close\r\n")}, {200}},
      {"pipelined_three",
       {get("/healthz") + get("/v1/ids/uuid7") + get("/readyz") + kFollow},
       {200, 200, 200, 200}},
      {"pipelined_with_a_bad_one_in_the_middle",
       {get("/healthz") + "NONSENSE\r\n\r\n" + kFollow},
       {200, 400}},
      // --- Expect -----------------------------------------------------------------------
      {"expect_100_continue",
       {get("/healthz", "Content-Length: 5\r\nExpect: 100-continue\r\n"), "hello" + kFollow},
       {100, 200, 200},
       // The pause only lets 100 Continue come first; it stays well under the 500 ms
       // read timeout, which a busy machine's scheduling delays can otherwise reach.
       100},
      {"expect_100_continue_over_max_body",
       {get("/healthz", "Content-Length: 5000\r\nExpect: 100-continue\r\n")},
       {413}},
      {"expect_something_else",
       {get("/healthz", "Content-Length: 5\r\nExpect: 200-ok\r\n") + "hello"},
       {417}},
      {"expect_without_body", {get("/healthz", "Expect: 100-continue\r\n"), kFollow}, {200, 200}},
      // --- slow clients ---------------------------------------------------------------
      {"slowloris_head", bytes_one_by_one(get("/healthz", "X-Slow: 1\r\n")), {408}, 100},
      {"head_that_stalls", {"GET /healthz HTTP/1.1\r\nHost: t\r\n"}, {408}},
      {"body_that_stalls", {get("/healthz", "Content-Length: 10\r\n") + "abc"}, {408}},
      {"idle_connection_closes_without_answer", {}, {}, 0, {}, nullptr, 4000},
      // --- query ----------------------------------------------------------------------
      {"query_bad_percent", {get("/v1/ids/snowflake?count=%zz"), kFollow}, {400, 200}},
      {"query_without_name", {get("/v1/ids/snowflake?=5"), kFollow}, {400, 200}},
      {"query_name_not_utf8", {get("/v1/ids/snowflake?%ff=1"), kFollow}, {400, 200}},
      {"query_value_with_nul", {get("/v1/ids/snowflake?count=1%00"), kFollow}, {400, 200}},
      {"count_over_the_maximum", {get("/v1/ids/snowflake?count=10001"), kFollow}, {400, 200}},
      {"authorization_is_ignored_without_a_token",
       {get("/v1/ids/snowflake", "Authorization: Bearer x\r\n"), kFollow},
       {200, 200}},
      // --- found in the second outside pass ------------------------------------------
      // Decoding an ID whose time the layout puts past 9999 (63 time bits at 1 ms) or past
      // int64 Unix ms (at day-long ticks) used to wrap and name a wrong date; it is now
      // named as after 9999, the way `idforge inspect` and `idforge layout` write it.
      {"inspect_time_after_year_9999",
       {get("/v1/inspect/1152921504606846976?layout=time%3D63%2Cdc%3D0%2Cworker%3D0%2Cseq%3D0"),
        kFollow},
       {200, 200},
       0,
       {},
       time_is(0, "after 9999-12-31")},
      {"inspect_time_beyond_int64_ms",
       {get("/v1/inspect/"
            "9223372036854775807?layout=time%3D63%2Cdc%3D0%2Cworker%3D0%2Cseq%3D0%2Ctick%"
            "3D86400000ms"),
        kFollow},
       {200, 200},
       0,
       {},
       time_is(0, "after 9999-12-31")},
      // Host values that are not host[:port] used to pass (only the bytes were checked).
      {"host_port_not_digits",
       {host_get("x:abc")},
       {400},
       0,
       {},
       detail_names(0, "Host 'x:abc' is not host[:port]: the port is not 1 to 5 digits")},
      {"host_port_above_65535",
       {host_get("x:99999")},
       {400},
       0,
       {},
       detail_names(0, "the port is above 65535")},
      {"host_port_negative", {host_get("x:-1")}, {400}},
      {"host_port_with_plus", {host_get("x:+80")}, {400}},
      {"host_two_ports", {host_get("x:80:80")}, {400}},
      {"host_ipv6_unclosed", {host_get("[::1")}, {400}, 0, {}, detail_names(0, "'[' without ']'")},
      {"host_ipv6_then_name",
       {host_get("[::1]x")},
       {400},
       0,
       {},
       detail_names(0, "only ':port' may follow the host")},
      {"host_ipv6_not_an_address", {host_get("[zz]")}, {400}},
      {"host_with_a_comma", {host_get("x,y")}, {400}},
      {"host_bad_escape",
       {host_get("x%zz")},
       {400},
       0,
       {},
       detail_names(0, "'%' is not followed by two hex digits")},
      {"host_port_without_host",
       {host_get(":80")},
       {400},
       0,
       {},
       detail_names(0, "the host is empty")},
      {"host_forms_that_are_valid",
       {host_get("example.org:8080", "keep-alive"), host_get("[::1]:80", "keep-alive"),
        host_get("127.0.0.1", "keep-alive"), host_get("", "keep-alive"), kFollow},
       {200, 200, 200, 200, 200}},
      // Chunk headers and trailers are held to the head's rules; the head limit is exact.
      {"chunk_extension_over_8192_bytes",
       {"GET /healthz HTTP/1.1\r\nHost: t\r\n" + chunked + "\r\n1;a=" + std::string(8200, 'x') +
        "\r\nX\r\n0\r\n\r\n"},
       {400},
       0,
       {},
       detail_names(0, "exceeds 8192 bytes")},
      // The chunk line's limit counts the whole line (size digits and extension), and the
      // same bytes get the same answer however they arrive: complete in one read, or with
      // the line's CR ending one read and its LF starting the next.
      {"chunk_line_of_8193_bytes",
       {"GET /healthz HTTP/1.1\r\nHost: t\r\n" + chunked + "\r\n5;e=" + std::string(8189, 'x') +
        "\r\nhello\r\n0\r\n\r\n"},
       {400},
       0,
       {},
       detail_names(0, "a chunk header line of 8193 bytes exceeds 8192 bytes")},
      {"chunk_line_of_8192_bytes_with_its_crlf_split",
       {"GET /healthz HTTP/1.1\r\nHost: t\r\n" + chunked + "\r\n",
        "5;e=" + std::string(8188, 'x') + "\r", "\nhello\r\n0\r\n\r\n" + kFollow},
       {200, 200},
       150},
      {"trailer_line_of_8192_bytes_with_its_crlf_split",
       {"GET /healthz HTTP/1.1\r\nHost: t\r\n" + chunked + "\r\n",
        "0\r\nT: " + std::string(8189, 'x') + "\r", "\n\r\n" + kFollow},
       {200, 200},
       150},
      {"trailer_with_obs_fold",
       {"GET /healthz HTTP/1.1\r\nHost: t\r\n" + chunked + "\r\n0\r\nX: a\r\n b\r\n\r\n"},
       {400},
       0,
       {},
       detail_names(0, "trailer line 2 starts with whitespace (obs-fold)")},
      {"trailer_line_over_8192_bytes",
       {"GET /healthz HTTP/1.1\r\nHost: t\r\n" + chunked + "\r\n0\r\nX: " + std::string(8200, 'a') +
        "\r\n\r\n"},
       {400},
       0,
       {},
       detail_names(0, "trailer line 1 exceeds 8192 bytes")},
      {"trailer_line_over_8192_bytes_still_arriving",
       {"GET /healthz HTTP/1.1\r\nHost: t\r\n" + chunked + "\r\n0\r\nX: " + std::string(8200, 'a')},
       {400},
       0,
       {},
       detail_names(0, "a chunk header or trailer line exceeds 8192 bytes")},
      {"trailer_within_the_limits",
       {"GET /healthz HTTP/1.1\r\nHost: t\r\n" + chunked + "\r\n0\r\nX: " + std::string(8000, 'a') +
            "\r\n\r\n",
        kFollow},
       {200, 200}},
      {"head_of_exactly_65536_bytes", {head_of_size(65536), kFollow}, {200, 200}},
      {"head_of_65537_bytes",
       {head_of_size(65537)},
       {431},
       0,
       {},
       detail_names(0, "the request head exceeds 65536 bytes")},
      // Errors name the value they refuse.
      {"content_length_with_a_sign_is_named",
       {"GET /healthz HTTP/1.1\r\nHost: t\r\nContent-Length: +5\r\n\r\n"},
       {400},
       0,
       {},
       detail_names(0, "Content-Length '+5' is not a decimal number")},
      {"content_length_in_hex_is_named",
       {"GET /healthz HTTP/1.1\r\nHost: t\r\nContent-Length: 0x5\r\n\r\n"},
       {400},
       0,
       {},
       detail_names(0, "Content-Length '0x5'")},
      {"two_content_lengths_are_named",
       {"GET /healthz HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"},
       {400},
       0,
       {},
       detail_names(0, "Content-Length is given 2 times ('1' and '2')")},
      {"bad_header_name_is_named",
       {"GET /healthz HTTP/1.1\r\nHost: t\r\nX@Y: 1\r\n\r\n"},
       {400},
       0,
       {},
       detail_names(0, "header name 'X@Y' is not a token")},
      {"bad_chunk_size_is_shown",
       {"GET /healthz HTTP/1.1\r\nHost: t\r\n" + chunked + "\r\nzz\r\n\r\n"},
       {400},
       0,
       {},
       detail_names(0, "the chunked body is malformed (RFC 9112 §7.1) at 'zz")},
      // Accept is weighed, not searched for.
      {"accept_text_with_q0_gets_json",
       {get("/v1/ids/uuid4", "Accept: text/plain;q=0\r\n"), kFollow},
       {200, 200},
       0,
       {},
       header_is(0, "Content-Type", "application/json")},
      {"accept_text_in_capitals_gets_text",
       {get("/v1/ids/uuid4", "Accept: TEXT/PLAIN\r\n"), kFollow},
       {200, 200},
       0,
       {},
       header_is(0, "Content-Type", "text/plain; charset=utf-8")},
      {"accept_json_weighed_below_text_gets_text",
       {get("/v1/ids/uuid4", "Accept: application/json;q=0.1, text/plain\r\n"), kFollow},
       {200, 200},
       0,
       {},
       header_is(0, "Content-Type", "text/plain; charset=utf-8")},
      {"accept_anything_gets_json",
       {get("/v1/ids/uuid4", "Accept: */*\r\n"), kFollow},
       {200, 200},
       0,
       {},
       header_is(0, "Content-Type", "application/json")},
      {"inspect_bad_layout_is_typed_bad_layout",
       {get("/v1/inspect/1?layout=time%3D99"), kFollow},
       {400, 200},
       0,
       {},
       type_is(0, "bad-layout")},
  };
}

// ---------------------------------------------------------------------------------------
// Probes against a server with a bearer token.

std::vector<Probe> token_probes() {
  return {
      {"bearer_scheme_in_lower_case",
       {get("/v1/ids/snowflake", "Authorization: bearer s3cret\r\n"), kFollow},
       {200, 200}},
      {"bearer_with_several_spaces",
       {get("/v1/ids/snowflake", "Authorization: Bearer   s3cret\r\n"), kFollow},
       {200, 200}},
      {"auth_is_checked_before_405",
       {"POST /v1/ids/snowflake HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n", kFollow},
       {401, 200},
       0,
       {},
       header_is(0, "WWW-Authenticate", "Bearer realm=\"idforge\"")},
      {"auth_is_checked_before_404", {get("/v1/nothing"), kFollow}, {401, 200}},
      {"missing_authorization", {get("/v1/ids/snowflake"), kFollow}, {401, 200}},
      {"wrong_scheme",
       {get("/v1/ids/snowflake", "Authorization: Basic czNjcmV0\r\n"), kFollow},
       {401, 200}},
      {"wrong_token",
       {get("/v1/ids/snowflake", "Authorization: Bearer s3cre\r\n"), kFollow},
       {401, 200}},
      {"two_authorization_headers",
       {get("/v1/ids/snowflake", "Authorization: Bearer s3cret\r\nAuthorization: Bearer x\r\n"),
        kFollow},
       {400, 200}},
      {"metrics_need_the_token", {get("/metrics"), kFollow}, {401, 200}},
      {"probes_stay_open", {get("/readyz"), kFollow}, {200, 200}},
  };
}

class OpenServer : public ::testing::TestWithParam<Probe> {
 protected:
  static void SetUpTestSuite() { server_ = new ServeProcess(kArgs); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  static ServeProcess* server_;
};
ServeProcess* OpenServer::server_ = nullptr;

class TokenServer : public ::testing::TestWithParam<Probe> {
 protected:
  static void SetUpTestSuite() { server_ = new ServeProcess(kTokenArgs); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  static ServeProcess* server_;
};
ServeProcess* TokenServer::server_ = nullptr;

TEST_P(OpenServer, Probe) {
  ASSERT_GT(server_->port(), 0) << server_->first_line();
  run_probe(server_->port(), *server_, GetParam());
}

TEST_P(TokenServer, Probe) {
  ASSERT_GT(server_->port(), 0) << server_->first_line();
  run_probe(server_->port(), *server_, GetParam());
}

std::string probe_name(const ::testing::TestParamInfo<Probe>& info) {
  return info.param.name;
}

// The CLI decodes with the same code: it succeeds and complains of nothing (what it prints
// is checked in tests/cli).
TEST(AttackCli, InspectDecodesATimeItCannotWriteWithoutError) {
  for (const char* layout :
       {"time=63,dc=0,worker=0,seq=0", "time=63,dc=0,worker=0,seq=0,tick=86400000ms"}) {
    const auto [code, err] = run_binary({"inspect", "9223372036854775807", "--layout", layout}, 10);
    EXPECT_EQ(code, 0) << err;
    EXPECT_EQ(err, "") << layout;
  }
}

INSTANTIATE_TEST_SUITE_P(Attack, OpenServer, ::testing::ValuesIn(open_probes()), probe_name);
INSTANTIATE_TEST_SUITE_P(Attack, TokenServer, ::testing::ValuesIn(token_probes()), probe_name);

}  // namespace
}  // namespace idforge::test
