// Reads a ticket set's record straight from a server with the client libraries, not with
// idforge's own code: the tests' ground truth for what the tool says about each server.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace idforge::test {

/// The columns of a record that matter to a reader.
struct ProbedRecord {
  std::string state;  ///< active, fenced or retired
  std::int64_t epoch = 0;
  std::string token;
  bool prepared = false;  ///< next_epoch is set
};

/// The record of set name on the server at url (postgres:// or mariadb://), nullopt when
/// there is none; throws std::runtime_error when the server cannot be read.
std::optional<ProbedRecord> probe_record(const std::string& url, const std::string& name);

/// probe_record() over connections kept open, for tests that ask again and again.
class RecordProbe {
 public:
  explicit RecordProbe(std::vector<std::string> urls);
  ~RecordProbe();
  RecordProbe(const RecordProbe&) = delete;
  RecordProbe& operator=(const RecordProbe&) = delete;
  /// The record of set name on each server, in order.
  std::vector<std::optional<ProbedRecord>> read(const std::string& name);

 private:
  std::vector<std::string> urls_;
  std::vector<void*> conns_;  // PGconn* or MYSQL*, by the URL's scheme
};

/// A session of its own on a server, kept open: a test runs statements in it (holds a
/// lock, keeps a transaction open) until it goes out of scope.
class Session {
 public:
  explicit Session(const std::string& url);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  /// Runs sql; throws std::runtime_error with the server's message.
  void run(const std::string& sql);
  /// Runs sql and returns the first column of the first row ("" when none).
  std::string scalar(const std::string& sql);

 private:
  std::string url_;
  void* conn_ = nullptr;
};

/// Runs one statement on the server at url (for tests that hold locks or make users).
void run_sql(const std::string& url, const std::string& sql);

}  // namespace idforge::test
