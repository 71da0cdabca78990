#include "idforge/lab/advice.hpp"

#include <cstdio>

#include "idforge/error.hpp"

namespace idforge::lab {
namespace {

std::string f(const char* format, double v) {
  const int n = std::snprintf(nullptr, 0, format, v);
  std::string out(static_cast<std::size_t>(n > 0 ? n : 0) + 1, '\0');
  std::snprintf(out.data(), out.size(), format, v);
  out.pop_back();
  return out;
}
std::string pct(double v) {
  return f("%.0f%%", v * 100);
}
std::string times(double v) {
  return f(v >= 10 ? "%.0fx" : "%.1fx", v);
}
std::string ms(double v) {
  return f(v >= 10 ? "%.0f ms" : v >= 1 ? "%.1f ms" : "%.2f ms", v);
}
std::string gb(double bytes) {
  const double g = bytes / 1e9;
  return f(g >= 100 ? "%.0f GB" : g >= 1 ? "%.1f GB" : "%.3f GB", g);
}

const CandidateCost* cost_of(const Advice& a, KeyKind k) {
  for (const auto& c : a.costs)
    if (c.kind == k) return &c;
  return nullptr;
}

// The fill as measured, never argued past it: SQLite balances a split page with its siblings,
// so a run there can show UUIDv4's leaves as full as UUIDv7's, and the advice must say so.
std::string fill_words(const MeasuredFigures& m) {
  if (m.fill_random < m.fill_ordered)
    return "leaves " + pct(m.fill_random) + " full against " + pct(m.fill_ordered);
  return "leaves as full as UUIDv7's in this run (" + pct(m.fill_random) + " against " +
         pct(m.fill_ordered) + ": this engine balances split pages)";
}

std::string uuid4_evidence(const MeasuredFigures& m) {
  if (!m.random_past_memory)
    return "not UUIDv4 as the key: in the measured run its index stayed in memory, so it shows no "
           "slowdown there "
           "(run 'idforge lab db --memory-mb M' with more rows); it had " +
           fill_words(m) + " and an index " + times(m.index_vs_ordered) + " UUIDv7's";
  return "not UUIDv4 as the key: once its index outgrew memory, single-row inserts took " +
         ms(m.p50_random_after_ms) + " (p50) against " + ms(m.p50_random_before_ms) +
         " while it fitted and " + ms(m.p50_ordered_ms) +
         " for UUIDv7 at the same size: " + times(m.slowdown_vs_ordered) + " slower, at " +
         pct(m.throughput_vs_ordered) + " of UUIDv7's inserts/s, with " + times(m.wal_vs_ordered) +
         " the WAL per insert, " + times(m.index_vs_ordered) + " the index and " + fill_words(m);
}

void add_common(Advice& a, const Situation& s, const MeasuredFigures& m) {
  if (a.key == "token") return;
  a.reasons.push_back(uuid4_evidence(m));
  if (a.key == "uuid7")
    a.settings.push_back(
        "store it as 16 bytes (PostgreSQL uuid, MySQL BINARY(16)), never as 36-character text: " +
        times(m.text_index_vs_binary) + " the index, measured");
  if (s.js_clients && (a.key == "snowflake" || a.key == "identity"))
    a.settings.push_back(
        "send it to JavaScript as a string too (\"id_str\"): JSON.parse rounds integers above 2^53 "
        "- 1 "
        "(idforge serve does this)");
  if (s.memory_gb > 0) {
    const CandidateCost* mine = cost_of(a, a.key == "identity"    ? KeyKind::snowflake
                                           : a.key == "snowflake" ? KeyKind::snowflake
                                                                  : KeyKind::uuid7);
    const CandidateCost* v4 = cost_of(a, KeyKind::uuid4);
    if (mine && !mine->fits_memory)
      a.warnings.push_back("the key's indexes (" + gb(mine->index_bytes) + ") will not fit in " +
                           f("%.3g GB", s.memory_gb) +
                           " of RAM: time-ordered inserts stay fast (they touch the right edge "
                           "only), lookups of old "
                           "rows will read from disk");
    if (v4 && !v4->fits_memory)
      a.warnings.push_back("with UUIDv4 the indexes would be " + gb(v4->index_bytes) +
                           ", past the " + f("%.0f GB", s.memory_gb) +
                           " of RAM: the slowdown measured past memory (" +
                           times(m.slowdown_vs_ordered) + ") is what UUIDv4 would cost here");
  }
}

}  // namespace

Advice advise(const Situation& s, const MeasuredFigures& m) {
  if (s.databases == 0)
    throw Error(errc::invalid_argument, "databases 0: at least one database takes the writes");
  if (!(s.writes_per_second >= 0))
    throw Error(errc::invalid_argument,
                "writes per second " + std::to_string(s.writes_per_second) + ": must be 0 or more");
  if (!(s.rows >= 1))
    throw Error(errc::invalid_argument, "rows " + std::to_string(s.rows) + ": must be at least 1");
  if (s.copies == 0)
    throw Error(errc::invalid_argument, "copies 0: the primary key itself is one copy");
  if (!(s.memory_gb >= 0))
    throw Error(errc::invalid_argument,
                "memory " + std::to_string(s.memory_gb) + " GB: must be 0 (not said) or more");
  if (!(m.fill_ordered > 0 && m.fill_ordered <= 1 && m.fill_random > 0 && m.fill_random <= 1))
    throw Error(errc::invalid_argument,
                "measured fills must be in (0, 1] (source: " + m.source + ")");

  Advice a;
  a.measured = m;
  CostOptions co;
  co.rows = s.rows;
  co.copies = s.copies;
  const std::string src = "measured: " + m.source;
  const auto table = cost_table({{KeyKind::snowflake, m.fill_ordered, src},
                                 {KeyKind::uuid7, m.fill_ordered, src},
                                 {KeyKind::uuid4, m.fill_random, src},
                                 {KeyKind::uuid4_text, m.fill_random, src}},
                                co);
  for (const CostRow& r : table)
    a.costs.push_back({r.input.kind, r.index_bytes, r.server_gb, r.usd_per_month,
                       s.memory_gb <= 0 || r.index_bytes <= s.memory_gb * 1e9});
  const CandidateCost& sf = *cost_of(a, KeyKind::snowflake);
  const CandidateCost& v7 = *cost_of(a, KeyKind::uuid7);
  const bool distributed = s.databases > 1 || s.writes_per_second >= 10'000;

  if (s.secret) {
    a.scheme = "a random token (CSPRNG, 256 bits)";
    a.key = "token";
    a.command = "idforge gen token --bits 256";
    a.settings = {"store only a hash of it (e.g. SHA-256) and compare in constant time",
                  "keep it apart from the row's key: the key stays an identity column or UUIDv7, "
                  "the token is a column",
                  "base62 or base64url: URL-safe as it is"};
    a.reasons = {
        "Snowflake, UUIDv7 and ULID begin with their creation time: anyone holding one knows when "
        "it was "
        "made and narrows the search for others; `idforge inspect` says so for every time-based ID",
        "a token is random bits only: 256 of them cannot be guessed, and one says nothing about "
        "another"};
    if (s.must_fit_64_bits)
      a.warnings.push_back(
          "64 bits is too few for a secret: a token needs at least 128 random bits");
    return a;
  }
  if (!distributed && !s.serverless) {
    a.scheme = "the database's own identity column";
    a.key = "identity";
    a.command =
        "none: BIGINT GENERATED ALWAYS AS IDENTITY (PostgreSQL), BIGINT AUTO_INCREMENT (MySQL)";
    a.settings = {"BIGINT, 8 bytes"};
    a.reasons = {f("one database takes every write (%.0f a second, under 10,000): its counter is "
                   "unique, ordered and "
                   "8 bytes with no code to run",
                   s.writes_per_second),
                 "it appends at the right edge like Snowflake: leaves " + pct(m.fill_ordered) +
                     " full, measured"};
    a.warnings = {
        "a counter on a public URL publishes your growth and invites enumeration: expose a random "
        "public ID "
        "beside it",
        "a second database taking writes would collide with it: then move to UUIDv7 or Snowflake "
        "(idforge advise --databases 2)"};
  } else if (s.serverless && !s.must_fit_64_bits) {
    a.scheme = "UUIDv7 (RFC 9562)";
    a.key = "uuid7";
    a.command = "idforge gen uuid7";
    a.reasons = {
        "short-lived processes cannot keep a node ID: UUIDv7 needs none (74 random bits instead)",
        "its 48-bit time prefix keeps inserts at the right edge: " + ms(m.p50_ordered_ms) +
            " p50 with its table past memory, measured"};
  } else if (s.serverless && s.must_fit_64_bits) {
    a.scheme = "Snowflake with node IDs leased at start";
    a.key = "snowflake";
    a.command =
        "idforge gen snowflake --node auto --lease-store etcd://127.0.0.1:2379 (or redis://...)";
    a.settings = {"layout twitter: 41-bit ms, 10-bit node, 12-bit sequence (1,024 live nodes)",
                  "BIGINT"};
    a.reasons = {
        "64 bits leave no room for UUIDv7's random part: uniqueness needs a node ID",
        "a lease hands each process a node ID for as long as it lives and takes it back after"};
    a.warnings = {
        "every cold start pays one round trip to the lease store; more than 1,024 live processes "
        "need a "
        "layout with more node bits (idforge layout)",
        "or take blocks of a sequence from one database (idforge seq: hi/lo segments) and accept "
        "gaps"};
  } else if (s.must_fit_64_bits || s.rows >= 1e9 || (!v7.fits_memory && sf.fits_memory) ||
             (v7.server_gb > sf.server_gb && s.rows >= 1e8)) {
    a.scheme = "Snowflake (64-bit)";
    a.key = "snowflake";
    a.command =
        "idforge gen snowflake --layout twitter --node N (N from a StatefulSet ordinal or --node "
        "auto with a lease)";
    a.settings = {
        "layout twitter: 41-bit ms (69 years from its epoch), 10-bit node, 12-bit sequence",
        "BIGINT, 8 bytes"};
    a.reasons = {"its index is half a UUID's: " + gb(sf.index_bytes) + " against " +
                     gb(v7.index_bytes) + f(" for %.3g rows", s.rows) +
                     f(" stored %.0f times", s.copies) + " (" + f("%.0f GB", sf.server_gb) +
                     " against " + f("%.0f GB", v7.server_gb) + " of RAM)",
                 "time-ordered like UUIDv7: inserts append at the right edge"};
    if (s.writes_per_second > 4.096e6)
      a.reasons.push_back(
          f("one node makes up to 4,096,000 IDs a second; %.0f a second needs several nodes",
            s.writes_per_second));
    a.warnings = {
        "every generating process needs a unique node ID (0..1023): never pick it at random "
        "(idforge lease)",
        "a clock that steps back must not repeat IDs: idforge waits or refuses "
        "(docs/SNOWFLAKE.md)"};
    if (s.must_fit_64_bits && s.rows < 1e9)
      a.reasons.push_back("the column or API is a 64-bit integer");
  } else {
    a.scheme = "UUIDv7 (RFC 9562)";
    a.key = "uuid7";
    a.command = "idforge gen uuid7";
    a.reasons = {
        "many writers and no single counter: UUIDv7 is made locally with no node ID to assign",
        "its 48-bit time prefix keeps inserts at the right edge: " + ms(m.p50_ordered_ms) +
            " p50 with its table past memory, measured",
        "its index costs " + gb(v7.index_bytes) + " against Snowflake's " + gb(sf.index_bytes) +
            f(" at %.3g rows: ", s.rows) +
            (v7.server_gb == sf.server_gb
                 ? "the same RAM tier, so the node IDs Snowflake needs buy nothing"
                 : "Snowflake saves a RAM tier; worth it once the bill shows it")};
  }
  add_common(a, s, m);
  return a;
}

MeasuredFigures figures_from(const MemoryLabResult& run, const std::string& source) {
  const MemoryKindResult* v7 = run.of(KeyKind::uuid7);
  const MemoryKindResult* v4 = run.of(KeyKind::uuid4);
  if (!v7 || !v4)
    throw Error(errc::invalid_argument, "measured run '" + source + "' has no " +
                                            std::string(!v7 ? "uuid7" : "uuid4") +
                                            " results (advise compares UUIDv4 with UUIDv7)");
  MeasuredFigures m;
  // A stopped run's kinds are whole, but the reader should know the run was cut short.
  m.source =
      run.interrupted ? source + " (a run stopped by a signal; both kinds finished)" : source;
  m.fill_ordered = v7->leaf_fill;
  m.fill_random = v4->leaf_fill;
  m.random_past_memory = v4->after_is_past_knee;
  m.p50_ordered_ms = v7->p50_after_ms;
  m.p50_random_before_ms = v4->p50_before_ms;
  m.p50_random_after_ms = v4->p50_after_ms;
  m.slowdown_vs_ordered = v7->p50_after_ms > 0 ? v4->p50_after_ms / v7->p50_after_ms : 0;
  m.throughput_vs_ordered =
      v7->inserts_per_s_after > 0 ? v4->inserts_per_s_after / v7->inserts_per_s_after : 0;
  // Over the whole growth, as the lab's report and INDEX-LAB.md quote it: full-page images
  // come in bursts after checkpoints, which the last quarter alone may miss or catch.
  m.wal_vs_ordered =
      v7->wal_bytes_per_insert > 0 ? v4->wal_bytes_per_insert / v7->wal_bytes_per_insert : 0;
  m.index_vs_ordered =
      v7->index_bytes ? static_cast<double>(v4->index_bytes) / static_cast<double>(v7->index_bytes)
                      : 0;
  if (const MemoryKindResult* text = run.of(KeyKind::uuid4_text); text && v4->index_bytes)
    m.text_index_vs_binary =
        static_cast<double>(text->index_bytes) / static_cast<double>(v4->index_bytes);
  return m;
}

}  // namespace idforge::lab
