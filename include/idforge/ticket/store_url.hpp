// Where sequences and tickets live, written as one URL:
//   sqlite:PATH                      an SQLite file (the embedded default, several processes
//                                    on one host share it safely)
//   postgres://user@host:port/db     PostgreSQL (also postgresql://); any libpq URL
//   mysql://user@host:port/db        MariaDB / MySQL (also mariadb://)
#pragma once

#include <string>
#include <string_view>

namespace idforge::ticket {

/// The kind of database a store URL names.
enum class StoreKind { sqlite, postgres, mariadb };

/// A parsed store URL. For SQLite, path is the file; for the servers, url is passed on.
struct StoreUrl {
  StoreKind kind;
  std::string url;   ///< the URL as given
  std::string path;  ///< SQLite: the file path; empty otherwise
};

/// The default store of the CLI: an SQLite file in the project's data folder.
inline constexpr std::string_view kDefaultStore = "sqlite:.data/sequences.db";

/// Parses a store URL; errc::invalid_argument names the URL and the accepted forms.
StoreUrl parse_store_url(std::string_view text);

/// The URL with any password replaced by "***", for messages, logs and stored member lists.
/// The password is taken as widely as any reading allows: from the first ':' of the user
/// part to the LAST '@' (so '@', '/', '?', '#' in it are hidden too), and ?password=.
std::string redact_url(std::string_view url);

/// message with every piece of url's password replaced by "***": libpq, given a password
/// holding '@' or '/', prints parts of it as a host name, port or database.
std::string scrub_password(std::string message, std::string_view url);

}  // namespace idforge::ticket
