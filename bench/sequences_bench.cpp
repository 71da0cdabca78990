// Sequences side by side, in one run on loopback: a database call per ID (a plain nextval()
// through libpq, the same sequence through a one-server ticket client, ticket servers on
// PostgreSQL and MariaDB) against none (segment client from memory, Snowflake).
// Needs IDFORGE_PG_URL, IDFORGE_PG_TICKET_URLS and IDFORGE_MARIADB_TICKET_URLS
// (scripts/services.sh start); a benchmark whose server is missing reports an error and the
// others run.
#include <benchmark/benchmark.h>
#include <libpq-fe.h>

#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "idforge/snowflake_generator.hpp"
#include "idforge/ticket/segment_client.hpp"
#include "idforge/ticket/segment_store.hpp"
#include "idforge/ticket/ticket_client.hpp"
#include "idforge/ticket/ticket_set.hpp"

namespace {

using namespace idforge;
using namespace idforge::ticket;

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::vector<std::string> urls_of(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  for (std::string u; std::getline(in, u, ',');)
    if (!u.empty()) out.push_back(u);
  return out;
}

const std::string kSet = "bench_" + std::to_string(::getpid());

// Ticket sets and segments are created once, before any benchmark runs.
struct Setup {
  std::string pg;                      // the main PostgreSQL: a bare sequence
  std::vector<std::string> nextval;    // one PostgreSQL ticket server: nextval() + epoch
  std::vector<std::string> pg_ticket;  // two PostgreSQL ticket servers
  std::vector<std::string> my_ticket;  // two MariaDB ticket servers (separate instances)
  std::unique_ptr<SegmentStore> sqlite_store, pg_store;
  std::unique_ptr<SegmentClient> sqlite_seg, pg_seg;
  std::unique_ptr<SharedSnowflakeGenerator> snowflake;
};
Setup* g = nullptr;

void init_set(const std::vector<std::string>& urls) {
  std::vector<std::unique_ptr<TicketServer>> s;
  for (const auto& u : urls) s.push_back(open_ticket_server(u));
  init_ticket_set(s, kSet);
}

SegmentOptions segment_options() {
  // Blocks sized to last about a second at the measured rate, refilled in the background.
  return {.initial_step = 10'000,
          .min_step = 1'000,
          .max_step = std::int64_t{1} << 30,
          .target_block_ns = 1'000'000'000,
          .prefetch_at = 0.5,
          .background = true};
}

void BM_Snowflake(benchmark::State& st) {
  for (auto _ : st) benchmark::DoNotOptimize(g->snowflake->next());
  st.SetItemsProcessed(st.iterations());
}

void segment(benchmark::State& st, SegmentClient* c) {
  if (!c) {
    st.SkipWithError("store not available");
    return;
  }
  for (auto _ : st) benchmark::DoNotOptimize(c->next());
  st.SetItemsProcessed(st.iterations());
}
void BM_SegmentSqlite(benchmark::State& st) {
  segment(st, g->sqlite_seg.get());
}
void BM_SegmentPostgres(benchmark::State& st) {
  segment(st, g->pg_seg.get());
}

// Each thread is one client process would be: its own connections.
void tickets(benchmark::State& st, const std::vector<std::string>& urls) {
  if (urls.empty()) {
    st.SkipWithError("servers not available");
    return;
  }
  std::vector<std::unique_ptr<TicketServer>> s;
  for (const auto& u : urls) s.push_back(open_ticket_server(u));
  TicketClient c(std::move(s), kSet);
  c.next();  // connect outside the timed loop
  for (auto _ : st) benchmark::DoNotOptimize(c.next());
  st.SetItemsProcessed(st.iterations());
}
// The floor: nextval() on a bare sequence, one round trip through libpq, nothing else.
void BM_PgNextvalPlain(benchmark::State& st) {
  if (g->pg.empty()) {
    st.SkipWithError("PostgreSQL not available");
    return;
  }
  PGconn* c = PQconnectdb(g->pg.c_str());
  if (PQstatus(c) != CONNECTION_OK) {
    st.SkipWithError(PQerrorMessage(c));
    PQfinish(c);
    return;
  }
  const std::string seq = "idforge_bench_plain_" + std::to_string(::getpid());
  const char* params[] = {seq.c_str()};
  for (auto _ : st) {
    PGresult* r =
        PQexecParams(c, "SELECT nextval($1::regclass)", 1, nullptr, params, nullptr, nullptr, 0);
    benchmark::DoNotOptimize(PQgetvalue(r, 0, 0));
    PQclear(r);
  }
  PQfinish(c);
  st.SetItemsProcessed(st.iterations());
}
void BM_PgNextval(benchmark::State& st) {
  tickets(st, g->nextval);
}
void BM_TicketPostgres2(benchmark::State& st) {
  tickets(st, g->pg_ticket);
}
void BM_TicketMariaDb2(benchmark::State& st) {
  tickets(st, g->my_ticket);
}

}  // namespace

BENCHMARK(BM_PgNextvalPlain)->Threads(1)->Threads(8)->UseRealTime();
BENCHMARK(BM_PgNextval)->Threads(1)->Threads(8)->UseRealTime();
BENCHMARK(BM_TicketPostgres2)->Threads(1)->Threads(8)->UseRealTime();
BENCHMARK(BM_TicketMariaDb2)->Threads(1)->Threads(8)->UseRealTime();
BENCHMARK(BM_SegmentSqlite)->Threads(1)->Threads(8)->UseRealTime();
BENCHMARK(BM_SegmentPostgres)->Threads(1)->Threads(8)->UseRealTime();
BENCHMARK(BM_Snowflake)->Threads(1)->Threads(8)->UseRealTime();

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  Setup setup;
  g = &setup;
  setup.snowflake = std::make_unique<SharedSnowflakeGenerator>(presets::twitter(), 1);
  const std::string dir = std::string("/tmp/idforge-bench-") + std::to_string(::getpid());
  setup.sqlite_store = open_segment_store("sqlite:" + dir + "/seq.db");
  setup.sqlite_store->create(kSet, 1, 10'000);
  setup.sqlite_seg = std::make_unique<SegmentClient>(*setup.sqlite_store, kSet, segment_options());
  if (const auto pg = env("IDFORGE_PG_URL"); !pg.empty()) {
    setup.pg_store = open_segment_store(pg);
    setup.pg_store->create(kSet, 1, 10'000);
    setup.pg_seg = std::make_unique<SegmentClient>(*setup.pg_store, kSet, segment_options());
    setup.nextval = {pg};
    init_set(setup.nextval);
    setup.pg = pg;
    PGconn* c = PQconnectdb(pg.c_str());
    const std::string sql =
        "CREATE SEQUENCE IF NOT EXISTS idforge_bench_plain_" + std::to_string(::getpid());
    PQclear(PQexec(c, sql.c_str()));
    PQfinish(c);
  }
  if (const auto t = urls_of(env("IDFORGE_PG_TICKET_URLS")); t.size() >= 2) {
    setup.pg_ticket = {t[0], t[1]};
    init_set(setup.pg_ticket);
  }
  if (const auto m = urls_of(env("IDFORGE_MARIADB_TICKET_URLS")); m.size() >= 2) {
    setup.my_ticket = {m[0], m[1]};
    init_set(setup.my_ticket);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
