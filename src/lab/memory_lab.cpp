#include "idforge/lab/memory_lab.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <latch>
#include <thread>

#include "db_driver.hpp"
#include "idforge/error.hpp"
#include "idforge/lab/key_source.hpp"
#include "idforge/lab/lab_errc.hpp"
#include "idforge/lab/lab_server.hpp"
#include "idforge/lab/memory_cgroup.hpp"

namespace idforge::lab {
namespace {

namespace fs = std::filesystem;
using clock = std::chrono::steady_clock;

double ms_since(clock::time_point t) {
  return std::chrono::duration<double, std::milli>(clock::now() - t).count();
}

double percentile(std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  const auto k = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

double median(std::vector<double> v) {
  return percentile(v, 0.5);
}

std::string mib(std::uint64_t b) {
  return std::to_string(b >> 20) + " MiB";
}

std::unique_ptr<detail::DbDriver> open_driver(DbEngine e, const DbConnection& c) {
  switch (e) {
    case DbEngine::sqlite:
      return detail::make_sqlite_driver(c, false);
    case DbEngine::postgres:
      return detail::make_postgres_driver(c);
    case DbEngine::mariadb:
      return detail::make_mariadb_driver(c);
  }
  return nullptr;
}

// What the window loop needs from where the engine runs.
struct Env {
  const MemoryLabOptions* o = nullptr;
  std::uint64_t cache_limit = 0;
  std::function<std::uint64_t()> storage_read;  // bytes read from storage so far
  const MemoryCgroup* cgroup = nullptr;
  // The most the cgroup held while its limit was in force: InnoDB's exact fill needs the limit
  // lifted for a moment, and what is charged then must not count as the run's peak.
  std::uint64_t* limited_peak = nullptr;
  // The peak before a lift could not be reset afterwards: later peaks are unknown.
  bool* peak_unknown = nullptr;
};

void check_stop(const MemoryLabOptions& o) {
  if (o.should_stop && o.should_stop())
    throw Error(errc::invalid_argument, "interrupted: the run was stopped");
}

void summarize(MemoryKindResult& r) {
  const auto& w = r.windows;
  std::vector<double> p50b, meanb, ipsb, p50a, p99a, meana, ipsa, miss, disk, wal, fpi;
  double rows = 0, wal_total = 0, fpi_total = 0;
  std::size_t knee_index = w.size();
  for (std::size_t i = 0; i < w.size(); ++i) {
    rows += static_cast<double>(w[i].rows);
    wal_total += w[i].wal_bytes_per_insert * static_cast<double>(w[i].rows);
    fpi_total += w[i].fpi_per_insert * static_cast<double>(w[i].rows);
    if (r.knee_rows && w[i].rows_end == *r.knee_rows) knee_index = i;
  }
  // Before: the windows ahead of the knee (at least the first).
  for (std::size_t i = 0; i < w.size() && (i < knee_index || i == 0); ++i) {
    p50b.push_back(w[i].p50_ms);
    meanb.push_back(w[i].mean_ms);
    ipsb.push_back(w[i].inserts_per_s);
  }
  const std::size_t from = w.size() - std::max<std::size_t>(1, w.size() / 4);
  r.after_is_past_knee = r.knee_rows.has_value() && from >= knee_index;
  for (std::size_t i = from; i < w.size(); ++i) {
    p50a.push_back(w[i].p50_ms);
    p99a.push_back(w[i].p99_ms);
    meana.push_back(w[i].mean_ms);
    ipsa.push_back(w[i].inserts_per_s);
    miss.push_back(w[i].misses_per_insert);
    disk.push_back(w[i].disk_kib_per_insert);
    wal.push_back(w[i].wal_bytes_per_insert);
    fpi.push_back(w[i].fpi_per_insert);
  }
  r.p50_before_ms = median(p50b);
  r.mean_before_ms = median(meanb);
  r.inserts_per_s_before = median(ipsb);
  r.p50_after_ms = median(p50a);
  r.p99_after_ms = median(p99a);
  r.mean_after_ms = median(meana);
  r.inserts_per_s_after = median(ipsa);
  r.misses_after = median(miss);
  r.disk_kib_after = median(disk);
  r.wal_bytes_after = median(wal);
  r.fpi_after = median(fpi);
  r.wal_bytes_per_insert = rows > 0 ? wal_total / rows : 0;
  r.fpi_per_insert = rows > 0 ? fpi_total / rows : 0;
}

// The exact fill once the table is complete. InnoDB reports fill from the pages in its
// buffer pool, so for it the cgroup's limit and the pool are raised until the index fits,
// the index is read, and both are put back for the next kind.
void final_report(detail::DbDriver& db, MemoryKindResult& r, const std::string& table,
                  const Env& env) {
  if (env.o->engine == DbEngine::mariadb && env.cgroup) {
    const std::uint64_t need = r.index_bytes + r.index_bytes / 4 + (16u << 20);
    *env.limited_peak = std::max(*env.limited_peak, env.cgroup->peak());
    env.cgroup->set_limit(env.o->memory_bytes + need + (64u << 20));
    db.set_cache(need);
    db.load_index(table);
    const detail::IndexReport rep = db.index_report(table);
    r.leaf_pages = rep.leaf_pages;
    r.leaf_fill = rep.leaf_fill;
    r.fill_method =
        rep.fill_method + " (limit lifted after the run so that every page is resident)";
    db.set_cache(env.o->cache_bytes);
    env.cgroup->set_limit(env.o->memory_bytes);
    if (!env.cgroup->reset_peak()) *env.peak_unknown = true;
    return;
  }
  const detail::IndexReport rep = db.index_report(table);
  r.leaf_pages = rep.leaf_pages;
  r.leaf_fill = rep.leaf_fill;
  r.fill_method = rep.fill_method;
}

MemoryKindResult grow(detail::DbDriver& db, KeyKind kind, const Env& env) {
  const MemoryLabOptions& o = *env.o;
  const std::string table = "idforge_mem_" + std::string(info(kind).name);
  MemoryKindResult r;
  r.kind = kind;
  r.column_type = db.column_type(kind);
  const double page_bytes = db.page_bytes();
  r.entry_bytes = index_entry_bytes(o.engine, kind);
  const double usable = o.engine == DbEngine::postgres  ? 8152.0 / 8192
                        : o.engine == DbEngine::mariadb ? 16264.0 / 16384
                                                        : 4088.0 / 4096;
  if (env.cgroup) env.cgroup->drop_page_cache();  // the last kind's pages are not this kind's cache
  db.create_table(kind, table);
  if (o.progress)
    o.progress(std::string(engine_name(o.engine)) + ": " + std::string(info(kind).name) + ", " +
               std::to_string(o.rows) + " rows in " + std::to_string(o.windows) + " windows");
  auto source = make_real_key_source(kind);
  std::vector<Key128> buf(o.batch);
  std::vector<double> lat;
  std::uint64_t done = 0;
  std::uint64_t misses = db.cache_misses(table), redo = db.redo_written(),
                disk = env.storage_read();
  std::uint64_t fpi = db.full_page_images().value_or(0);
  const auto start = clock::now();
  for (unsigned w = 0; w < o.windows; ++w) {
    const std::uint64_t end = o.rows * (w + 1) / o.windows, n = end - done;
    const std::uint64_t single = o.batch == 1 ? n : std::min<std::uint64_t>(o.probe, n);
    lat.clear();
    lat.reserve(single);
    double batch_ms = 0;
    const auto t0 = clock::now();
    for (std::uint64_t i = 0; i < single; ++i) {
      if ((i & 255) == 0) check_stop(o);
      const Key128 k = source->next();
      const auto t = clock::now();
      db.insert_one(kind, table, k);
      lat.push_back(ms_since(t));
    }
    for (std::uint64_t left = n - single; left > 0;) {
      check_stop(o);
      const auto m = static_cast<std::size_t>(std::min<std::uint64_t>(left, o.batch));
      source->fill(std::span(buf.data(), m));
      const auto t = clock::now();
      db.insert_batch(kind, table, std::span<const Key128>(buf.data(), m));
      batch_ms += ms_since(t);
      left -= m;
    }
    MemoryWindow x;
    x.seconds = ms_since(t0) / 1000;
    done = end;
    x.rows_end = done;
    x.rows = n;
    x.single_rows = single;
    x.inserts_per_s = x.seconds > 0 ? static_cast<double>(n) / x.seconds : 0;
    double sum = 0;
    for (double v : lat) sum += v;
    x.mean_ms = lat.empty() ? 0 : sum / static_cast<double>(lat.size());
    x.p50_ms = percentile(lat, 0.5);
    x.p99_ms = percentile(lat, 0.99);
    x.batch_ms_per_row = n > single ? batch_ms / static_cast<double>(n - single) : 0;
    const std::uint64_t misses1 = db.cache_misses(table), redo1 = db.redo_written(),
                        disk1 = env.storage_read();
    const std::uint64_t fpi1 = db.full_page_images().value_or(0);
    const double rows = static_cast<double>(n);
    x.misses_per_insert = static_cast<double>(misses1 - misses) / rows;
    x.wal_bytes_per_insert = static_cast<double>(redo1 - redo) / rows;
    x.disk_kib_per_insert = static_cast<double>(disk1 - disk) / 1024.0 / rows;
    x.fpi_per_insert = static_cast<double>(fpi1 - fpi) / rows;
    misses = misses1, redo = redo1, disk = disk1, fpi = fpi1;
    x.index_bytes = db.index_bytes_now(table);
    x.fill_estimate = x.index_bytes ? static_cast<double>(done) * r.entry_bytes /
                                          (static_cast<double>(x.index_bytes) * usable)
                                    : 0;
    x.cgroup_bytes = env.cgroup ? env.cgroup->usage() : 0;
    if (!r.crossing_rows && x.index_bytes > env.cache_limit) r.crossing_rows = done;
    if (!r.knee_rows && x.disk_kib_per_insert * 1024 >= 0.1 * page_bytes) r.knee_rows = done;
    r.windows.push_back(x);
  }
  r.seconds = ms_since(start) / 1000;
  r.index_bytes = r.windows.back().index_bytes;
  final_report(db, r, table, env);
  db.drop_table(table);
  summarize(r);
  return r;
}

// Appends to out as each point finishes, so that a run stopped part-way keeps those.
void writers_curve(detail::DbDriver& db, const DbConnection& conn, const Env& env,
                   std::vector<WritersResult>& out) {
  const MemoryLabOptions& o = *env.o;
  if (env.cgroup && env.limited_peak) {
    // The curve asks about the right edge with the keys in memory, and every writer is a
    // server process of its own: the limit is raised for it, and the run's peak is the one
    // before.
    unsigned most = 1;
    for (unsigned n : o.writers) most = std::max(most, n);
    *env.limited_peak = std::max(*env.limited_peak, env.cgroup->peak());
    *env.peak_unknown = true;
    env.cgroup->set_limit(std::max<std::uint64_t>(o.memory_bytes, 256u << 20) +
                          std::uint64_t{most} * (8u << 20));
  }
  for (KeyKind kind : o.writer_kinds) {
    const std::string table = "idforge_writers_" + std::string(info(kind).name);
    db.create_table(kind, table);
    {
      // Node 0 fills the table; writer i uses node i + 1, so no two writers share a node.
      auto fill = make_real_key_source(kind);
      std::vector<Key128> buf(1000);
      for (std::uint64_t left = o.writer_prefill; left > 0;) {
        check_stop(o);
        const auto m = static_cast<std::size_t>(std::min<std::uint64_t>(left, buf.size()));
        fill->fill(std::span(buf.data(), m));
        db.insert_batch(kind, table, std::span<const Key128>(buf.data(), m));
        left -= m;
      }
    }
    out.push_back(WritersResult{.kind = kind, .points = {}});
    for (unsigned n : o.writers) {
      if (o.progress)
        o.progress(std::string(engine_name(o.engine)) + ": writers curve, " +
                   std::string(info(kind).name) + ", " + std::to_string(n) + " writer(s)");
      std::vector<std::vector<double>> lat(n);
      std::vector<std::exception_ptr> errors(n);
      std::vector<std::unique_ptr<detail::DbDriver>> conns;
      for (unsigned i = 0; i < n; ++i) conns.push_back(open_driver(o.engine, conn));
      std::latch ready(n + 1);
      std::atomic<bool> stop{false};
      const std::uint64_t max_rows = static_cast<std::uint64_t>(o.writer_seconds * 200'000) + 1;
      std::vector<std::thread> threads;
      clock::time_point t0;
      for (unsigned i = 0; i < n; ++i)
        threads.emplace_back([&, i] {
          try {
            KeySourceOptions ko;
            ko.snowflake_node = i + 1;
            auto src = make_real_key_source(kind, ko);
            lat[i].reserve(4096);
            ready.arrive_and_wait();
            const auto deadline = t0 + std::chrono::duration_cast<clock::duration>(
                                           std::chrono::duration<double>(o.writer_seconds));
            for (std::uint64_t r = 0; r < max_rows && !stop.load(std::memory_order_relaxed); ++r) {
              const Key128 k = src->next();
              const auto t = clock::now();
              if (t >= deadline) break;
              conns[i]->insert_one(kind, table, k);
              lat[i].push_back(ms_since(t));
            }
          } catch (...) {
            errors[i] = std::current_exception();
            stop = true;
          }
        });
      t0 = clock::now();
      ready.arrive_and_wait();
      const auto begin = clock::now();
      // The writers stop at their deadline; this thread only passes on a request to stop.
      while (!stop && ms_since(begin) < o.writer_seconds * 1000) {
        if (o.should_stop && o.should_stop()) stop = true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      for (auto& t : threads) t.join();
      const double seconds = ms_since(begin) / 1000;
      for (auto& e : errors)
        if (e) std::rethrow_exception(e);
      check_stop(o);
      std::vector<double> all;
      for (auto& l : lat) all.insert(all.end(), l.begin(), l.end());
      WritersPoint p;
      p.writers = n;
      p.rows = all.size();
      p.seconds = seconds;
      p.inserts_per_s = seconds > 0 ? static_cast<double>(all.size()) / seconds : 0;
      p.p50_ms = percentile(all, 0.5);
      p.p99_ms = percentile(all, 0.99);
      out.back().points.push_back(p);
    }
    db.drop_table(table);
  }
}

// MariaDB's floors, measured: the server does not start with a buffer pool of 5 MiB, and is
// killed for memory in a 16, 20 or 32 MiB cgroup within the first rows (mariadbd holds its own
// memory beside the pool, and the redo log's page cache is charged too). Long runs need more:
// 10^6 rows a kind were killed at 64 MiB and ran at 128.
constexpr std::uint64_t kInnoDbMinPool = std::uint64_t{6} << 20;
constexpr std::uint64_t kMinMemory[] = {std::uint64_t{8} << 20, std::uint64_t{16} << 20,
                                        std::uint64_t{48} << 20};  // sqlite, postgres, mariadb

void validate(MemoryLabOptions& o) {
  const std::uint64_t min_memory = o.engine == DbEngine::sqlite     ? kMinMemory[0]
                                   : o.engine == DbEngine::postgres ? kMinMemory[1]
                                                                    : kMinMemory[2];
  if (o.memory_bytes < min_memory)
    throw Error(errc::invalid_argument, "memory " + mib(o.memory_bytes) + ": " +
                                            std::string(engine_name(o.engine)) +
                                            " needs at least " + mib(min_memory));
  // The port first of what the run will need, so a bad IDFORGE_PORT_OFFSET is named before
  // anything starts (SQLite's worker names its cgroup after PostgreSQL's port).
  if (o.port == 0)
    o.port = default_lab_port(o.engine == DbEngine::sqlite ? DbEngine::postgres : o.engine);
  if (o.engine == DbEngine::mariadb) {
    if (o.cache_bytes == 0) o.cache_bytes = std::max(o.memory_bytes / 4, kInnoDbMinPool);
    if (o.cache_bytes < kInnoDbMinPool)
      throw Error(errc::invalid_argument, "cache " + mib(o.cache_bytes) +
                                              ": InnoDB's buffer pool is at least " +
                                              mib(kInnoDbMinPool) + " with 16 KiB pages");
  }
  if (o.cache_bytes == 0) o.cache_bytes = o.memory_bytes / 4;
  if (o.cache_bytes >= o.memory_bytes)
    throw Error(
        errc::invalid_argument,
        "cache " + mib(o.cache_bytes) + ": must be below the memory limit " + mib(o.memory_bytes));
  if (o.windows < 2 || o.windows > 1000)
    throw Error(errc::invalid_argument,
                "windows " + std::to_string(o.windows) + ": must be 2..1000");
  if (o.rows < o.windows)
    throw Error(errc::invalid_argument, "rows " + std::to_string(o.rows) +
                                            ": need at least one a window (" +
                                            std::to_string(o.windows) + ")");
  if (o.batch == 0 || o.batch > 100'000)
    throw Error(errc::invalid_argument,
                "batch " + std::to_string(o.batch) + ": must be 1..100000 rows");
  if (o.kinds.empty()) throw Error(errc::invalid_argument, "no key kinds to run");
  if (!(o.writer_seconds >= 0.1 && o.writer_seconds <= 600))
    throw Error(errc::invalid_argument,
                "writer seconds " + std::to_string(o.writer_seconds) + ": must be 0.1..600");
  for (unsigned n : o.writers)
    if (n == 0 || n > 256)
      throw Error(errc::invalid_argument,
                  "writers " + std::to_string(n) + ": each count must be 1..256");
  if (o.parent_dir.empty()) {
    const char* d = std::getenv("IDFORGE_DATA");
    o.parent_dir = d && *d ? d : ".data";
  }
}

// Whether a run that failed was stopped on purpose with a kind already whole: then what
// finished is kept and marked interrupted, for the server and the SQLite worker alike.
bool stopped_after_a_kind(const MemoryLabOptions& o, const MemoryLabResult& res) {
  return o.should_stop && o.should_stop() && !res.results.empty();
}

// SQLite runs in the caller's process, so a child process joins the cgroup and runs every
// kind there, handing its results back as JSON through a pipe.
MemoryLabResult run_sqlite(const MemoryLabOptions& o) {
  const int port = o.port ? o.port : default_lab_port(DbEngine::postgres);
  const std::string name = "idforge-lab-sqlite-" + std::to_string(port);
  MemoryCgroup group = MemoryCgroup::create(name, o.memory_bytes);
  const std::string dir = fs::absolute(fs::path(o.parent_dir) / "lab-server" / name).string();
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir, ec);
  if (ec)
    throw Error(lab_errc::store_unreachable,
                "cannot make the lab's SQLite folder '" + dir + "': " + ec.message());
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code e;
      fs::remove_all(dir, e);
    }
  } cleanup{dir};
  int fds[2];
  if (::pipe(fds) != 0)
    throw Error(lab_errc::store_unreachable, "pipe for the SQLite worker failed");
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw Error(lab_errc::store_unreachable, "fork for the SQLite worker failed");
  }
  if (pid == 0) {
    ::close(fds[0]);
    std::string out;
    int code = 0;
    try {
      if (!MemoryCgroup::move_self_into(group.procs_file().c_str()))
        throw Error(lab_errc::store_unreachable, "the SQLite worker cannot join " + group.path());
      MemoryLabResult res;
      DbConnection c;
      c.sqlite_dir = dir;
      auto db = detail::make_sqlite_driver(c, false);
      res.server_version = db->version();
      res.page_bytes = db->page_bytes();
      res.settings = "SQLite in a child process in a " + mib(o.memory_bytes) + " cgroup v" +
                     std::to_string(group.version()) + ": " + db->set_cache(o.cache_bytes) +
                     ", WAL journal, synchronous NORMAL";
      Env env;
      env.o = &o;
      res.process_bytes = group.anon_bytes();
      env.cache_limit = o.memory_bytes > res.process_bytes ? o.memory_bytes - res.process_bytes : 0;
      res.cache_limit = env.cache_limit;
      env.storage_read = [] { return storage_read_bytes({::getpid()}); };
      env.cgroup = &group;
      try {
        for (KeyKind k : o.kinds) res.results.push_back(grow(*db, k, env));
      } catch (const Error&) {
        // As with a lab server: the kinds that finished are whole; the caller says the rest
        // is missing.
        if (!stopped_after_a_kind(o, res)) throw;
        res.interrupted = true;
      }
      out = memory_lab_json(res);
    } catch (const std::exception& e) {
      out = e.what();
      code = 3;
    }
    for (std::size_t off = 0; off < out.size();) {
      const ssize_t w = ::write(fds[1], out.data() + off, out.size() - off);
      if (w <= 0) break;
      off += static_cast<std::size_t>(w);
    }
    ::close(fds[1]);
    ::_exit(code);
  }
  ::close(fds[1]);
  std::string text;
  char chunk[65536];
  // A signal sent to idforge alone (kill PID, a supervisor) reaches only this process: it is
  // passed on to the worker, which stops between rows and answers with what finished. Polled
  // rather than left to EINTR, which misses a signal that lands just before the read.
  bool passed_on = false;
  for (;;) {
    if (!passed_on && o.should_stop && o.should_stop()) {
      ::kill(pid, SIGTERM);
      passed_on = true;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, 100);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    const ssize_t r = ::read(fds[0], chunk, sizeof chunk);
    if (r == 0) break;
    if (r < 0) {
      if (errno == EINTR) continue;
      break;
    }
    text.append(chunk, static_cast<std::size_t>(r));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const std::uint64_t peak = group.peak(), ooms = group.oom_kills();
  const int version = group.version();
  group.remove();
  if (WIFSIGNALED(status) && passed_on)
    throw Error(lab_errc::store_unreachable,
                "the SQLite worker was stopped by signal " + std::to_string(WTERMSIG(status)));
  if (WIFSIGNALED(status))
    throw Error(lab_errc::store_unreachable,
                "the SQLite worker was killed by signal " + std::to_string(WTERMSIG(status)) +
                    (ooms ? " (out of memory in the " + mib(o.memory_bytes) +
                                " cgroup: raise --memory-mb or lower --cache-mb)"
                          : ""));
  if (WEXITSTATUS(status) != 0) {
    if (o.should_stop && o.should_stop())
      throw Error(lab_errc::store_unreachable, "the SQLite worker stopped before a kind finished");
    throw Error(lab_errc::store_unreachable, "sqlite: " + text);
  }
  MemoryLabResult res = memory_lab_from_json(text);
  res.engine = DbEngine::sqlite;
  res.cgroup_version = version;
  res.cgroup_peak = peak;
  return res;
}

}  // namespace

double index_entry_bytes(DbEngine engine, KeyKind kind) {
  const double key = kind == KeyKind::snowflake ? 8 : kind == KeyKind::uuid4_text ? 36 : 16;
  switch (engine) {
    case DbEngine::postgres: {
      // IndexTupleData (8 bytes) + the key (text: 1-byte varlena header), MAXALIGNed, + line
      // pointer.
      const double raw = 8 + key + (kind == KeyKind::uuid4_text ? 1 : 0);
      return std::ceil(raw / 8) * 8 + 4;
    }
    case DbEngine::mariadb:
      // COMPACT/DYNAMIC record: 5-byte header, key, DB_TRX_ID 6, DB_ROLL_PTR 7; a 2-byte
      // directory slot per 4 to 8 records.
      return 5 + key + 6 + 7 + 2.0 / 6;
    case DbEngine::sqlite:
      // Cell pointer 2, payload size 1, record header 2, the key.
      return key + 5;
  }
  return key;
}

const MemoryKindResult* MemoryLabResult::of(KeyKind kind) const noexcept {
  for (const auto& r : results)
    if (r.kind == kind) return &r;
  return nullptr;
}

MemoryLabResult run_memory_lab(const MemoryLabOptions& in) {
  MemoryLabOptions o = in;
  validate(o);
  if (o.engine == DbEngine::sqlite) {
    MemoryLabResult res = run_sqlite(o);
    res.memory_bytes = o.memory_bytes;
    res.cache_bytes = o.cache_bytes;
    res.rows = o.rows;
    res.windows = o.windows;
    res.batch = o.batch;
    res.probe = o.batch > 1 ? o.probe : 0;
    return res;
  }
  LabServerOptions so;
  so.engine = o.engine;
  so.parent_dir = o.parent_dir;
  so.port = o.port;
  so.memory_bytes = o.memory_bytes;
  so.cache_bytes = o.cache_bytes;
  so.synchronous_commit = o.synchronous_commit;
  unsigned most = 1;
  for (unsigned n : o.writers) most = std::max(most, n);
  so.max_connections = most + 20;
  if (o.progress)
    o.progress(std::string(engine_name(o.engine)) + ": starting a lab server in a " +
               mib(o.memory_bytes) + " memory cgroup");
  auto server = LabServer::start(so);
  MemoryLabResult res;
  res.engine = o.engine;
  res.settings = server->settings();
  res.cgroup_version = server->cgroup().version();
  res.memory_bytes = o.memory_bytes;
  res.cache_bytes = o.cache_bytes;
  res.rows = o.rows;
  res.windows = o.windows;
  res.batch = o.batch;
  res.probe = o.batch > 1 ? o.probe : 0;
  const DbConnection conn = server->connection();
  {
    auto db = open_driver(o.engine, conn);
    res.server_version = db->version();
    res.page_bytes = db->page_bytes();
    // O_DIRECT: InnoDB's pages live in its buffer pool or on disk, never in the page cache.
    // PostgreSQL's shared_buffers and page cache share what its processes leave free.
    res.process_bytes = server->cgroup().anon_bytes();
    res.cache_limit = o.engine == DbEngine::mariadb        ? o.cache_bytes
                      : o.memory_bytes > res.process_bytes ? o.memory_bytes - res.process_bytes
                                                           : 0;
    Env env;
    env.o = &o;
    env.cache_limit = res.cache_limit;
    env.storage_read = [&] { return server->storage_read_bytes(); };
    env.cgroup = &server->cgroup();
    std::uint64_t limited_peak = 0;
    bool peak_unknown = false;
    env.limited_peak = &limited_peak;
    env.peak_unknown = &peak_unknown;
    try {
      for (KeyKind k : o.kinds) res.results.push_back(grow(*db, k, env));
      if (!o.writers.empty()) writers_curve(*db, conn, env, res.writers);
    } catch (const Error& e) {
      if (stopped_after_a_kind(o, res)) {
        // A stop late in a run of an hour must not take the finished kinds with it: they are
        // whole, and the caller says that the rest is missing.
        res.interrupted = true;
        std::erase_if(res.writers, [](const WritersResult& w) { return w.points.empty(); });
      } else if (server->cgroup().oom_kills() == 0) {
        throw;
      } else {
        // A server process killed for memory shows up as a lost connection; say which it was.
        throw Error(e.code(),
                    std::string(e.what()) + " (a server process was killed for memory in the " +
                        mib(o.memory_bytes) + " cgroup: raise --memory-mb or lower --cache-mb)");
      }
    }
    res.cgroup_peak = peak_unknown ? limited_peak : std::max(limited_peak, server->cgroup().peak());
  }
  server->stop();
  return res;
}

}  // namespace idforge::lab
