#include "idforge/ticket/segment_store.hpp"

#include <string>

#include "idforge/error.hpp"
#include "idforge/random.hpp"
#include "idforge/ticket/store_url.hpp"
#include "idforge/ticket/ticket_errc.hpp"
#include "pg_segment_store.hpp"
#include "segment_checks.hpp"
#include "sqlite_segment_store.hpp"

namespace idforge::ticket {
namespace detail {

void check_segment_args(std::string_view name, std::int64_t start, std::int64_t step) {
  if (step <= 0 || step > kMaxSegmentStep)
    throw Error(errc::invalid_argument,
                "step " + std::to_string(step) + " for sequence '" + std::string(name) +
                    "' is out of range: it must be 1.." + std::to_string(kMaxSegmentStep));
  if (start < 0)
    throw Error(errc::invalid_argument, "start " + std::to_string(start) + " for sequence '" +
                                            std::string(name) +
                                            "' is negative: sequences count up from 0 or more");
}

void check_take_count(std::string_view name, std::int64_t count) {
  if (count < 0 || count > kMaxSegmentStep)
    throw Error(errc::invalid_argument,
                "block size " + std::to_string(count) + " for sequence '" + std::string(name) +
                    "' is out of range: it must be 1.." + std::to_string(kMaxSegmentStep) +
                    " (or 0 for its step)");
}

void throw_missing(std::string_view name, const std::string& store) {
  throw Error(ticket_errc::not_found, "sequence '" + std::string(name) + "' does not exist in " +
                                          store + ": create it with `idforge seq create " +
                                          std::string(name) + "`");
}

std::string new_store_id() {
  unsigned char bytes[16];
  random_fill(bytes, sizeof bytes);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id;
  for (unsigned char b : bytes) (id += kHex[b >> 4]) += kHex[b & 15];
  return id;
}

void throw_replaced(const std::string& store, const std::string& opened, const std::string& what) {
  throw StoreReplaced("segment store " + store + " (store ID " + opened + ") " + what +
                      ": refusing it, nothing is written and no block is taken. A store made "
                      "again in its place starts its numbers again and would repeat values "
                      "this client handed out; only a client started after it may use it "
                      "(docs/SEQUENCES.md)");
}

}  // namespace detail

std::unique_ptr<SegmentStore> open_segment_store(std::string_view url,
                                                 const StoreOptions& options) {
  check_timeouts(options.timeouts);
  const StoreUrl u = parse_store_url(url);
  switch (u.kind) {
    case StoreKind::sqlite:
      return std::make_unique<detail::SqliteSegmentStore>(u.path, options.create);
    case StoreKind::postgres:
      return std::make_unique<detail::PgSegmentStore>(u.url, options.timeouts);
    case StoreKind::mariadb:
      break;
  }
  throw Error(errc::invalid_argument,
              "store '" + redact_url(url) +
                  "' is MariaDB: segments live in SQLite (sqlite:PATH) or PostgreSQL "
                  "(postgres://...); MariaDB serves ticket servers");
}

}  // namespace idforge::ticket
