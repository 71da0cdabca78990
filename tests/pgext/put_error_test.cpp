// How the shims shorten a message for the C glue's fixed buffer: the head and the cause at
// the end both survive, and no UTF-8 sequence is cut (a lone lead byte made PostgreSQL refuse
// the whole ERROR for a LATIN1 client).
#include "put_error.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

bool valid_utf8(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c < 0x80         ? 1
                          : (c >> 5) == 6  ? 2
                          : (c >> 4) == 14 ? 3
                          : (c >> 3) == 30 ? 4
                                           : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

TEST(PgPutError, AShortMessageIsCopiedWhole) {
  char err[IDF_ERR_SIZE];
  idforge_pg::put_error(err, "store unreachable: Connection refused");
  EXPECT_STREQ(err, "store unreachable: Connection refused");
}

TEST(PgPutError, ALongMessageKeepsHeadAndCauseAndWholeCharacters) {
  for (std::size_t pad = 0; pad < 8; ++pad) {  // every alignment of the two-byte characters
    std::string url = "redis://127.0.0.1:1?prefix=" + std::string(pad, 'x');
    for (int i = 0; i < 1500; ++i) url += "\xc3\xa9";  // é
    const std::string message =
        "store unreachable (" + url + "): cannot connect to Redis: Connection refused";
    char err[IDF_ERR_SIZE];
    idforge_pg::put_error(err, message);
    const std::string got = err;
    SCOPED_TRACE(pad);
    EXPECT_LT(got.size(), std::size_t{IDF_ERR_SIZE});
    EXPECT_TRUE(valid_utf8(got)) << got;
    EXPECT_EQ(got.rfind("store unreachable (redis://127.0.0.1:1?prefix=", 0), 0u) << got;
    EXPECT_NE(got.find("..."), std::string::npos) << got;
    EXPECT_EQ(got.substr(got.size() - 18), "Connection refused") << got;
  }
}

TEST(PgPutError, AMessageOfExactlyTheRoomIsNotShortened) {
  const std::string message(IDF_ERR_SIZE - 1, 'a');
  char err[IDF_ERR_SIZE];
  idforge_pg::put_error(err, message);
  EXPECT_EQ(std::string(err), message);
}

}  // namespace
