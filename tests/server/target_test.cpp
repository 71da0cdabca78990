// The transport's pure pieces: request-target parsing, UTF-8 checking, escaping for logs,
// and the head scan's limits, table by table (the attack suite drives them end to end).
#include <gtest/gtest.h>

#include "request_head.hpp"
#include "target.hpp"

namespace idforge::server::detail {
namespace {

TEST(Target, OriginAndAbsoluteFormsDecodeToThePathAndQuery) {
  struct Case {
    const char* raw;
    const char* path;
  };
  for (const Case& t : {Case{"/v1/ids/snowflake?count=3", "/v1/ids/snowflake"}, Case{"/", "/"},
                        Case{"http://h/v1/ids/uuid7", "/v1/ids/uuid7"}, Case{"HTTPS://h:1", "/"},
                        Case{"/a%20b/caf%C3%A9", "/a b/caf\xc3\xa9"}, Case{"/v1/ids/", "/v1/ids/"},
                        Case{"/%252e%252e", "/%2e%2e"}}) {
    Target out;
    HttpError err;
    ASSERT_TRUE(parse_target(t.raw, out, err)) << t.raw << ": " << err.detail;
    EXPECT_EQ(out.path, t.path) << t.raw;
  }
  Target out;
  HttpError err;
  ASSERT_TRUE(parse_target("/x?count=3&kind=a+b&flag&&z=%3D", out, err));
  const std::vector<std::pair<std::string, std::string>> want = {
      {"count", "3"}, {"kind", "a b"}, {"flag", ""}, {"z", "="}};
  EXPECT_EQ(out.query, want);
  ASSERT_TRUE(parse_target("*", out, err));
  EXPECT_EQ(out.form, Target::Form::asterisk);
}

TEST(Token, IsOneOrMoreTcharsOfRfc9110) {
  for (const char* yes : {"GET", "chunked", "X-Request-Id", "!#$%&'*+-.^_`|~09azAZ"})
    EXPECT_TRUE(is_token(yes)) << yes;
  for (const char* no : {"", "a b", "chunked;q=1", "Na:me", "caf\xc3\xa9", "x\ty", "(x)", "a,b"})
    EXPECT_FALSE(is_token(no)) << no;
  EXPECT_FALSE(is_token(std::string_view("a\0b", 3)));
}

TEST(Target, RefusedTargetsSayWhy) {
  struct Case {
    const char* raw;
    const char* says;
  };
  for (const Case& t : {Case{"", "neither"},
                        Case{"v1/ids", "neither"},
                        Case{"ftp://h/x", "neither"},
                        Case{"http://u@h/", "userinfo"},
                        Case{"http:///x", "no host"},
                        Case{"/a\"b", "0x22"},
                        Case{"/a#b", "fragment"},
                        Case{"/\xff", "0xff"},
                        Case{"/%ff", "not valid UTF-8"},
                        Case{"/%c0%ae", "not valid UTF-8"},
                        Case{"/%ed%a0%80", "not valid UTF-8"},
                        Case{"/a%00b", "control byte 0x00"},
                        Case{"/a%2fb", "encoded '/'"},
                        Case{"/a%5cb", "encoded '\\'"},
                        Case{"/../x", "dot-segment"},
                        Case{"/%2E%2e/x", "dot-segment"},
                        Case{"/./x", "dot-segment"},
                        Case{"/a//b", "empty segment"},
                        Case{"/a%zz", "hex"},
                        Case{"/a%2", "hex"},
                        Case{"/x?count=%ff", "'count' is not valid UTF-8"},
                        Case{"/x?%ff=1", "'\\xff' is not valid UTF-8"},
                        Case{"/x?c=1&c=2", "more than once"},
                        Case{"/x?=1", "no parameter name"},
                        Case{"/x?c=%0a", "control byte 0x0a"}}) {
    Target out;
    HttpError err;
    EXPECT_FALSE(parse_target(t.raw, out, err)) << t.raw;
    EXPECT_EQ(err.status, 400) << t.raw;
    EXPECT_NE(err.detail.find(t.says), std::string::npos) << t.raw << " -> " << err.detail;
    EXPECT_TRUE(is_utf8(err.detail)) << err.detail;
  }
}

TEST(Utf8, AcceptsWellFormedAndPointsAtTheFirstBadByte) {
  EXPECT_TRUE(is_utf8("plain"));
  EXPECT_TRUE(is_utf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf"));
  struct Case {
    const char* text;
    std::size_t at;
  };
  for (const Case& t : {Case{"\xff", 0}, Case{"ab\xc0\xae", 2}, Case{"a\xe0\x80\xaf", 1},
                        Case{"\xed\xa0\x80", 0}, Case{"\xf4\x90\x80\x80", 0}, Case{"ok\xc3", 2},
                        Case{"\xc3\x28", 0}, Case{"\xf8\x88\x80\x80\x80", 0}}) {
    std::size_t at = 99;
    EXPECT_FALSE(is_utf8(t.text, &at)) << t.text;
    EXPECT_EQ(at, t.at) << t.text;
  }
}

TEST(Printable, EscapesEverythingAClientCouldForgeWith) {
  EXPECT_EQ(printable("GET /a\"b\\c\xff\x1b[31m\r\n"),
            "GET /a\\x22b\\x5cc\\xff\\x1b[31m\\x0d\\x0a");
  EXPECT_EQ(printable(std::string(10, 'a'), 4), "aaaa...(10 bytes)");
}

ScanResult scan(std::string_view in, HttpError& err) {
  HeadScan s;
  return scan_head(in, s, err);
}

TEST(HeadScan, FindsTheEndOfAHeadThatArrivesByteByByte) {
  const std::string head = "\r\nGET / HTTP/1.1\r\nHost: t\r\n\r\nnext";
  HeadScan s;
  HttpError err;
  std::size_t fed = 1;
  for (; fed <= head.size(); ++fed)
    if (scan_head(std::string_view(head).substr(0, fed), s, err) != ScanResult::need_more) break;
  EXPECT_EQ(fed, head.size() - 4);
  EXPECT_EQ(s.start, 2u);
  EXPECT_EQ(s.pos, head.size() - 4);
}

TEST(HeadScan, EachLimitAndRuleHasItsStatus) {
  struct Case {
    std::string in;
    int status;
  };
  std::string many = "GET / HTTP/1.1\r\n";
  for (int i = 0; i < 101; ++i) many += "X: y\r\n";
  std::string crlf_flood;
  while (crlf_flood.size() <= kMaxHeadBytes) crlf_flood += "\r\n";
  for (const Case& t :
       {Case{"GET /" + std::string(kMaxTargetBytes, 'a') + " HTTP/1.1\r\n\r\n", 414},
        Case{"GET /" + std::string(kMaxTargetBytes + 64, 'a'), 414},
        Case{std::string(40, 'A') + " / HTTP/1.1\r\n\r\n", 501}, Case{std::string(100, 'A'), 501},
        Case{std::string(100, '{'), 400},
        Case{"GET / HTTP/1.1\r\nX: " + std::string(kMaxFieldLineBytes, 'x') + "\r\n\r\n", 431},
        Case{many + "\r\n", 431}, Case{"GET / HTTP/1.1\nHost: t\n\n", 400},
        Case{"GET / HTTP/1.1\r\nX: a\rb\r\n\r\n", 400},
        Case{"GET / HTTP/1.1\r\nX: a\r\n b\r\n\r\n", 400},
        Case{std::string("GET / HTTP/1.1\r\nX: \0\r\n\r\n", 24), 400}, Case{"GET /\r\n\r\n", 400},
        Case{crlf_flood, 431}}) {
    HttpError err;
    EXPECT_EQ(scan(t.in, err), ScanResult::error) << t.in.substr(0, 60);
    EXPECT_EQ(err.status, t.status) << t.in.substr(0, 60) << " -> " << err.detail;
  }
}

}  // namespace
}  // namespace idforge::server::detail
