// The MariaDB driver (Connector/C), InnoDB tables in a database of the lab's own. Shrinking
// the buffer pool is a SET GLOBAL: the driver puts the old size back when it is done.
#include <mysql.h>

#include <chrono>
#include <thread>

#include "db_driver.hpp"
#include "idforge/db_url.hpp"
#include "idforge/error.hpp"
#include "idforge/lab/lab_errc.hpp"

namespace idforge::lab::detail {
namespace {

// The URL's parts (core's parser), its errors said as the variable's.
MariaDbUrl url_parts(const std::string& url) {
  try {
    return parse_mariadb_url(url);
  } catch (const Error& e) {
    throw Error(errc::invalid_argument, std::string("IDFORGE_MARIADB_URL: ") + e.what());
  }
}

class MariaDriver final : public DbDriver {
 public:
  explicit MariaDriver(const DbConnection& c) {
    if (c.mariadb_url.empty() && c.mariadb_socket.empty())
      throw Error(lab_errc::store_unreachable,
                  "mariadb: neither IDFORGE_MARIADB_URL nor IDFORGE_MARIADB_SOCKET is set (start "
                  "the server with "
                  "'bash scripts/services.sh start mariadb' and source .data/services.env)");
    where_ = c.mariadb_url.empty() ? c.mariadb_socket : redact_mariadb_url(c.mariadb_url);
    conn_ = mysql_init(nullptr);
    MYSQL* ok = nullptr;
    if (!c.mariadb_url.empty()) {
      const MariaDbUrl u = url_parts(c.mariadb_url);
      ok = mysql_real_connect(conn_, u.host.c_str(), u.user.c_str(), u.password.c_str(), nullptr,
                              u.port, nullptr, 0);
    } else {
      ok = mysql_real_connect(conn_, nullptr, "root", nullptr, nullptr, 0, c.mariadb_socket.c_str(),
                              0);
    }
    if (!ok) {
      const std::string why = mysql_error(conn_);
      mysql_close(conn_);
      throw Error(lab_errc::store_unreachable,
                  "mariadb: cannot connect to '" + where_ + "': " + why);
    }
    exec("CREATE DATABASE IF NOT EXISTS idforge_lab");
    exec("USE idforge_lab");
  }
  ~MariaDriver() override {
    if (old_pool_ != 0) {
      try {
        resize_pool(old_pool_);
      } catch (const Error&) {
        // The server keeps the smaller pool; nothing else to do from a destructor.
      }
    }
    mysql_close(conn_);
  }

  std::string version() override { return std::string("MariaDB ") + mysql_get_server_info(conn_); }
  std::uint32_t page_bytes() override {
    return static_cast<std::uint32_t>(std::stoul(scalar("SELECT @@innodb_page_size")));
  }

  std::string set_cache(std::uint64_t bytes) override {
    const std::uint64_t before = std::stoull(scalar("SELECT @@innodb_buffer_pool_size"));
    if (bytes == 0) return "innodb_buffer_pool_size " + std::to_string(before >> 20) + " MiB";
    old_pool_ = before;
    const std::uint64_t now = resize_pool(bytes);
    return "innodb_buffer_pool_size " + std::to_string(before >> 20) + " MiB -> " +
           std::to_string(now >> 20) + " MiB for the run (asked " + std::to_string(bytes >> 20) +
           " MiB; restored afterwards)";
  }

  std::string column_type(KeyKind kind) override {
    return kind == KeyKind::snowflake    ? "BIGINT"
           : kind == KeyKind::uuid4_text ? "CHAR(36) CHARACTER SET ascii"
                                         : "BINARY(16)";
  }

  void create_table(KeyKind kind, const std::string& table) override {
    exec("DROP TABLE IF EXISTS " + table);
    exec("CREATE TABLE " + table + " (id " + column_type(kind) +
         " NOT NULL PRIMARY KEY) ENGINE=InnoDB");
  }

  void insert_batch(KeyKind kind, const std::string& table, std::span<const Key128> keys) override {
    std::string sql = "INSERT INTO " + table + " (id) VALUES ";
    sql.reserve(sql.size() + keys.size() * 44);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      sql += i ? ",(" : "(";
      sql += key_literal(kind, keys[i], false);
      sql += ')';
    }
    exec(sql);
  }

  IndexReport index_report(const std::string& table) override {
    exec_discard("ANALYZE TABLE " + table);
    IndexReport r;
    const std::uint64_t page = page_bytes();
    auto stat = [&](const char* name) {
      const std::string v = scalar(
          "SELECT stat_value FROM mysql.innodb_index_stats WHERE database_name='idforge_lab' "
          "AND table_name='" +
          table + "' AND index_name='PRIMARY' AND stat_name='" + name + "'");
      return v.empty() ? std::uint64_t{0} : std::stoull(v);
    };
    r.index_bytes = stat("size") * page;
    r.leaf_pages = stat("n_leaf_pages");
    MYSQL_RES* res = query(
        "SELECT COUNT(*), COALESCE(SUM(DATA_SIZE),0) FROM information_schema.INNODB_BUFFER_PAGE "
        "WHERE TABLE_NAME='`idforge_lab`.`" +
        table +
        "`' AND INDEX_NAME='PRIMARY' "
        "AND PAGE_TYPE='INDEX' AND NUMBER_RECORDS > 0");
    MYSQL_ROW row = mysql_fetch_row(res);
    const double pages = row && row[0] ? std::stod(row[0]) : 0,
                 data = row && row[1] ? std::stod(row[1]) : 0;
    mysql_free_result(res);
    r.leaf_fill = pages > 0 ? data / (pages * static_cast<double>(page)) : 0;
    r.fill_method = "INNODB_BUFFER_PAGE: record bytes / page bytes over " +
                    std::to_string(static_cast<long>(pages)) + " resident index pages of " +
                    std::to_string(stat("size"));
    return r;
  }

  std::optional<std::uint64_t> wal_position() override {
    MYSQL_RES* res = query("SHOW GLOBAL STATUS LIKE 'Innodb_lsn_current'");
    MYSQL_ROW row = mysql_fetch_row(res);
    std::optional<std::uint64_t> v;
    if (row && row[1]) v = std::stoull(row[1]);
    mysql_free_result(res);
    return v;
  }

  void drop_table(const std::string& table) override { exec("DROP TABLE IF EXISTS " + table); }

  void insert_one(KeyKind kind, const std::string& table, const Key128& key) override {
    // autocommit is on: the statement is its own transaction.
    exec("INSERT INTO " + table + " (id) VALUES (" + key_literal(kind, key, false) + ")");
  }

  std::uint64_t index_bytes_now(const std::string& table) override {
    // The pages the clustered index's segments hold (persistent statistics' "size", which
    // ANALYZE reads from the segment headers; its sampling reads 20 leaf pages). The file's
    // own size grows in steps of several MiB and says less.
    exec("ANALYZE TABLE " + table);
    const std::string v = scalar(
        "SELECT stat_value FROM mysql.innodb_index_stats WHERE database_name = 'idforge_lab' "
        "AND table_name = '" +
        table + "' AND index_name = 'PRIMARY' AND stat_name = 'size'");
    return v.empty() ? 0 : std::stoull(v) * page_bytes();
  }

  std::uint64_t cache_misses(const std::string&) override {
    return std::stoull(status_value("Innodb_buffer_pool_reads"));
  }

  std::uint64_t redo_written() override {
    return std::stoull(status_value("Innodb_os_log_written"));
  }

  void load_index(const std::string& table) override {
    exec("SELECT COUNT(*) FROM " + table + " FORCE INDEX (PRIMARY)");
  }

 private:
  // Online resize is asynchronous: wait (bounded) until the server reports the new size.
  std::uint64_t resize_pool(std::uint64_t bytes) {
    exec("SET GLOBAL innodb_buffer_pool_size = " + std::to_string(bytes));
    std::uint64_t now = 0;
    for (int i = 0; i < 200; ++i) {
      const std::string status = status_value("Innodb_buffer_pool_resize_status");
      now = std::stoull(scalar("SELECT @@innodb_buffer_pool_size"));
      if (status.find("ompleted") != std::string::npos || status.empty() || now == bytes) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return now;
  }
  std::string status_value(const std::string& name) {
    MYSQL_RES* res = query("SHOW GLOBAL STATUS LIKE '" + name + "'");
    MYSQL_ROW row = mysql_fetch_row(res);
    std::string v = row && row[1] ? row[1] : "";
    mysql_free_result(res);
    return v;
  }
  [[noreturn]] void fail(const std::string& sql) {
    throw Error(lab_errc::store_unreachable, "mariadb: '" + sql.substr(0, 80) +
                                                 (sql.size() > 80 ? "...'" : "'") +
                                                 " failed: " + mysql_error(conn_));
  }
  void exec(const std::string& sql) {
    if (mysql_real_query(conn_, sql.data(), sql.size()) != 0) fail(sql);
    if (MYSQL_RES* r = mysql_store_result(conn_)) mysql_free_result(r);
  }
  void exec_discard(const std::string& sql) { exec(sql); }
  MYSQL_RES* query(const std::string& sql) {
    if (mysql_real_query(conn_, sql.data(), sql.size()) != 0) fail(sql);
    MYSQL_RES* r = mysql_store_result(conn_);
    if (!r) fail(sql);
    return r;
  }
  std::string scalar(const std::string& sql) {
    MYSQL_RES* r = query(sql);
    MYSQL_ROW row = mysql_fetch_row(r);
    std::string v = row && row[0] ? row[0] : "";
    mysql_free_result(r);
    return v;
  }

  std::string where_;
  MYSQL* conn_ = nullptr;
  std::uint64_t old_pool_ = 0;
};

}  // namespace

std::unique_ptr<DbDriver> make_mariadb_driver(const DbConnection& c) {
  return std::make_unique<MariaDriver>(c);
}

}  // namespace idforge::lab::detail
