#include "db_probe.hpp"

#include <libpq-fe.h>
#include <mysql.h>

#include <stdexcept>

namespace idforge::test {
namespace {

struct MyUrl {
  std::string user = "root", host = "127.0.0.1", db = "idforge";
  unsigned port = 3306;
};

MyUrl parse_my(const std::string& url) {
  MyUrl u;
  std::string rest = url.substr(url.find("://") + 3);
  const auto at = rest.rfind('@');
  if (at != std::string::npos) {
    u.user = rest.substr(0, rest.find_first_of(":@"));
    rest = rest.substr(at + 1);
  }
  const auto slash = rest.find('/');
  if (slash != std::string::npos) u.db = rest.substr(slash + 1);
  const std::string hp = rest.substr(0, slash);
  const auto colon = hp.rfind(':');
  u.host = hp.substr(0, colon);
  if (colon != std::string::npos) u.port = static_cast<unsigned>(std::stoul(hp.substr(colon + 1)));
  return u;
}

std::string pg_url(const std::string& url) {
  // libpq takes postgres:// and postgresql:// alike; a short connect timeout for frozen ones.
  return url + (url.find('?') == std::string::npos ? "?" : "&") + "connect_timeout=5";
}

bool is_pg(const std::string& url);
std::string record_sql(const std::string& name);

}  // namespace

std::optional<ProbedRecord> probe_record(const std::string& url, const std::string& name) {
  const std::string sql = record_sql(name);
  if (is_pg(url)) {
    PGconn* c = PQconnectdb(pg_url(url).c_str());
    if (PQstatus(c) != CONNECTION_OK) {
      const std::string msg = PQerrorMessage(c);
      PQfinish(c);
      throw std::runtime_error("probe " + url + ": " + msg);
    }
    PGresult* r = PQexec(c, sql.c_str());
    std::optional<ProbedRecord> out;
    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1)
      out = ProbedRecord{PQgetvalue(r, 0, 0), std::stoll(PQgetvalue(r, 0, 1)), PQgetvalue(r, 0, 2),
                         std::string(PQgetvalue(r, 0, 3)) == "t"};
    const bool ok = PQresultStatus(r) == PGRES_TUPLES_OK ||
                    std::string(PQresultErrorField(r, PG_DIAG_SQLSTATE) ?: "") == "42P01";
    const std::string msg = PQresultErrorMessage(r);
    PQclear(r);
    PQfinish(c);
    if (!ok) throw std::runtime_error("probe " + url + ": " + msg);
    return out;
  }
  const MyUrl u = parse_my(url);
  MYSQL* m = mysql_init(nullptr);
  const unsigned t = 5;
  mysql_options(m, MYSQL_OPT_CONNECT_TIMEOUT, &t);
  mysql_options(m, MYSQL_OPT_READ_TIMEOUT, &t);
  if (!mysql_real_connect(m, u.host.c_str(), u.user.c_str(), nullptr, u.db.c_str(), u.port, nullptr,
                          0)) {
    const std::string msg = mysql_error(m);
    mysql_close(m);
    if (msg.find("Unknown database") != std::string::npos) return std::nullopt;
    throw std::runtime_error("probe " + url + ": " + msg);
  }
  std::optional<ProbedRecord> out;
  if (mysql_query(m, sql.c_str()) == 0) {
    MYSQL_RES* r = mysql_store_result(m);
    if (MYSQL_ROW row = r ? mysql_fetch_row(r) : nullptr)
      out = ProbedRecord{row[0], std::stoll(row[1]), row[2], std::string(row[3]) == "1"};
    if (r) mysql_free_result(r);
  } else if (mysql_errno(m) != 1146) {  // no such table: no record
    const std::string msg = mysql_error(m);
    mysql_close(m);
    throw std::runtime_error("probe " + url + ": " + msg);
  }
  mysql_close(m);
  return out;
}

namespace {

bool is_pg(const std::string& url) {
  return url.rfind("postgres", 0) == 0;
}

std::string record_sql(const std::string& name) {
  return "SELECT state, epoch, token, next_epoch IS NOT NULL FROM idforge_ticket_members WHERE "
         "name = '" +
         name + "'";
}

}  // namespace

RecordProbe::RecordProbe(std::vector<std::string> urls) : urls_(std::move(urls)) {
  for (const auto& u : urls_) {
    if (is_pg(u)) {
      PGconn* c = PQconnectdb(pg_url(u).c_str());
      if (PQstatus(c) != CONNECTION_OK) {
        const std::string msg = PQerrorMessage(c);
        PQfinish(c);
        throw std::runtime_error("probe " + u + ": " + msg);
      }
      conns_.push_back(c);
    } else {
      const MyUrl m = parse_my(u);
      MYSQL* c = mysql_init(nullptr);
      if (!mysql_real_connect(c, m.host.c_str(), m.user.c_str(), nullptr, nullptr, m.port, nullptr,
                              0)) {
        const std::string msg = mysql_error(c);
        mysql_close(c);
        throw std::runtime_error("probe " + u + ": " + msg);
      }
      conns_.push_back(c);
    }
  }
}

RecordProbe::~RecordProbe() {
  for (std::size_t i = 0; i < conns_.size(); ++i) {
    if (is_pg(urls_[i]))
      PQfinish(static_cast<PGconn*>(conns_[i]));
    else
      mysql_close(static_cast<MYSQL*>(conns_[i]));
  }
}

std::vector<std::optional<ProbedRecord>> RecordProbe::read(const std::string& name) {
  std::vector<std::optional<ProbedRecord>> out;
  for (std::size_t i = 0; i < conns_.size(); ++i) {
    std::optional<ProbedRecord> rec;
    if (is_pg(urls_[i])) {
      PGresult* r = PQexec(static_cast<PGconn*>(conns_[i]), record_sql(name).c_str());
      if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        const std::string msg = PQresultErrorMessage(r);
        PQclear(r);
        throw std::runtime_error("probe " + urls_[i] + ": " + msg);
      }
      if (PQntuples(r) == 1)
        rec = ProbedRecord{PQgetvalue(r, 0, 0), std::stoll(PQgetvalue(r, 0, 1)),
                           PQgetvalue(r, 0, 2), std::string(PQgetvalue(r, 0, 3)) == "t"};
      PQclear(r);
    } else {
      MYSQL* c = static_cast<MYSQL*>(conns_[i]);
      const std::string sql = "SELECT state, epoch, token, next_epoch IS NOT NULL FROM `" +
                              parse_my(urls_[i]).db + "`.idforge_ticket_members WHERE name = '" +
                              name + "'";
      if (mysql_query(c, sql.c_str()) != 0) {
        if (mysql_errno(c) == 1146 || mysql_errno(c) == 1049) {  // no table or database
          out.push_back(std::nullopt);
          continue;
        }
        throw std::runtime_error("probe " + urls_[i] + ": " + mysql_error(c));
      }
      MYSQL_RES* r = mysql_store_result(c);
      if (MYSQL_ROW row = r ? mysql_fetch_row(r) : nullptr)
        rec = ProbedRecord{row[0], std::stoll(row[1]), row[2], std::string(row[3]) == "1"};
      if (r) mysql_free_result(r);
    }
    out.push_back(std::move(rec));
  }
  return out;
}

Session::Session(const std::string& url) : url_(url) {
  if (is_pg(url)) {
    PGconn* c = PQconnectdb(pg_url(url).c_str());
    if (PQstatus(c) != CONNECTION_OK) {
      const std::string msg = PQerrorMessage(c);
      PQfinish(c);
      throw std::runtime_error("session " + url + ": " + msg);
    }
    conn_ = c;
    return;
  }
  const MyUrl m = parse_my(url);
  MYSQL* c = mysql_init(nullptr);
  if (!mysql_real_connect(c, m.host.c_str(), m.user.c_str(), nullptr, m.db.c_str(), m.port, nullptr,
                          0)) {
    const std::string msg = mysql_error(c);
    mysql_close(c);
    throw std::runtime_error("session " + url + ": " + msg);
  }
  conn_ = c;
}

Session::~Session() {
  if (is_pg(url_))
    PQfinish(static_cast<PGconn*>(conn_));
  else
    mysql_close(static_cast<MYSQL*>(conn_));
}

void Session::run(const std::string& sql) {
  if (is_pg(url_)) {
    PGresult* r = PQexec(static_cast<PGconn*>(conn_), sql.c_str());
    const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
    const std::string msg = PQresultErrorMessage(r);
    PQclear(r);
    if (!ok) throw std::runtime_error(sql + ": " + msg);
    return;
  }
  MYSQL* c = static_cast<MYSQL*>(conn_);
  if (mysql_query(c, sql.c_str()) != 0) throw std::runtime_error(sql + ": " + mysql_error(c));
  if (MYSQL_RES* r = mysql_store_result(c)) mysql_free_result(r);
}

std::string Session::scalar(const std::string& sql) {
  if (is_pg(url_)) {
    PGresult* r = PQexec(static_cast<PGconn*>(conn_), sql.c_str());
    const bool ok = PQresultStatus(r) == PGRES_TUPLES_OK;
    const std::string v = ok && PQntuples(r) > 0 ? PQgetvalue(r, 0, 0) : "";
    const std::string msg = PQresultErrorMessage(r);
    PQclear(r);
    if (!ok) throw std::runtime_error(sql + ": " + msg);
    return v;
  }
  MYSQL* c = static_cast<MYSQL*>(conn_);
  if (mysql_query(c, sql.c_str()) != 0) throw std::runtime_error(sql + ": " + mysql_error(c));
  std::string v;
  if (MYSQL_RES* r = mysql_store_result(c)) {
    if (MYSQL_ROW row = mysql_fetch_row(r); row && row[0]) v = row[0];
    mysql_free_result(r);
  }
  return v;
}

void run_sql(const std::string& url, const std::string& sql) {
  if (url.rfind("postgres", 0) == 0) {
    PGconn* c = PQconnectdb(pg_url(url).c_str());
    PGresult* r = PQexec(c, sql.c_str());
    const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
    const std::string msg = PQresultErrorMessage(r);
    PQclear(r);
    PQfinish(c);
    if (!ok) throw std::runtime_error(sql + ": " + msg);
    return;
  }
  const MyUrl u = parse_my(url);
  MYSQL* m = mysql_init(nullptr);
  if (!mysql_real_connect(m, u.host.c_str(), u.user.c_str(), nullptr, nullptr, u.port, nullptr,
                          0) ||
      mysql_query(m, sql.c_str()) != 0) {
    const std::string msg = mysql_error(m);
    mysql_close(m);
    throw std::runtime_error(sql + ": " + msg);
  }
  if (MYSQL_RES* r = mysql_store_result(m)) mysql_free_result(r);
  mysql_close(m);
}

}  // namespace idforge::test
