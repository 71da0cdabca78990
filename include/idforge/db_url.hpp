// A MariaDB / MySQL connection URL taken apart, as text only (no client library), for the
// parts that connect to MariaDB (the index lab, the ticket servers):
//
//   mysql://USER[:PASSWORD]@HOST[:PORT][/DB][?...]      (mariadb:// means the same)
//
// The user part ends at the LAST '@', so a password may hold '@'; user and password may
// carry %XX escapes, which are decoded. Anything after '?' is ignored (the client library
// takes no options from the URL).
#pragma once

#include <string>
#include <string_view>

namespace idforge {

/// The parts of a mysql:// or mariadb:// URL. A part the URL leaves out keeps its default.
struct MariaDbUrl {
  std::string user = "root";
  std::string password;
  std::string host = "127.0.0.1";
  unsigned port = 3306;  ///< 1..65535
  std::string database;  ///< letters, digits and _ only; empty when the URL names none
};

/// Takes url apart. Throws Error(errc::invalid_argument) naming the URL (its password
/// hidden as ***) and the rule: the scheme is mysql:// or mariadb://, a user is named before
/// '@', the port is 1..65535, the database is letters, digits and _.
MariaDbUrl parse_mariadb_url(std::string_view url);

/// url with the password of its user part (and any password=... option) shown as ***.
std::string redact_mariadb_url(std::string_view url);

}  // namespace idforge
