// idforge_node() and snowflake(): the node ID is chosen once per connection; the generator
// behind it is one for the whole process per (layout, node ID), so two connections (on any
// threads) that choose the same node share one sequence and never collide. Two processes that
// choose the same node ID would collide: that is what distinct node IDs or a lease URL
// (idforge_node('file:DIR'), the stores of docs/LEASES.md) are for.
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "functions.hpp"
#include "idforge/detail/fork_epoch.hpp"
#include "idforge/error.hpp"
#include "idforge/snowflake_generator.hpp"
#include "idforge/snowflake_layout.hpp"
#ifdef IDFORGE_SQLITE_WITH_COORD
#include "idforge/coord/lease.hpp"
#include "idforge/coord/lease_url.hpp"
#include "idforge/coord/leased_generator.hpp"
#endif

namespace idforge::sqlite {

/// What snowflake() draws from on one connection: at most one of the two is set.
struct Connection {
  SharedSnowflakeGenerator* fixed =
      nullptr;  // from fixed_generator(): lives as long as the process
#ifdef IDFORGE_SQLITE_WITH_COORD
  std::shared_ptr<coord::LeasedSnowflakeGenerator> leased;
#endif
};

namespace {

using ConnectionRef = std::shared_ptr<Connection>;

constexpr const char* kStores =
    "file:DIR, redis://HOST:PORT, etcd://HOST:PORT, static:N?state=DIR (docs/LEASES.md)";

// A statement waits for the next tick only within a second: a layout with a longer tick (up to
// a day) answers counter_exhausted naming the wait instead of holding the connection, as the C
// ABI does.
SnowflakePolicy policy() {
  SnowflakePolicy p;
  p.max_sequence_wait_ms = 1000;
  return p;
}

// A layout as messages show it: its name and its canonical spec.
std::string layout_shown(const Layout& layout) {
  return "'" + layout.name() + "' (" + layout.to_spec() + ")";
}

// The per-process registry, keyed by node number: a node number issues from exactly one
// generator in the process, whatever asked for it (idforge_node(N), or a lease URL whose store
// handed out N). Two generators on one node would each start their sequence at 0 in the same
// millisecond, and two layouts on one node can put the same bits in the same place (twitter and
// 'twitter,node=10', or an epoch a few ms apart), so their IDs could be equal.
//
// A fixed node's generator is never destroyed: one made anew for a node that issued earlier in
// this process could repeat the last millisecond's IDs, so once idforge_node(N) has run, N keeps
// that layout for the life of the process. A leased generator is released (its high-water mark
// stored) when the last connection that uses it closes or picks another node; its entry goes
// with it. A lease taken before fork() is not the child's: the child takes its own.
struct NodeEntry {
  NodeEntry(std::uint64_t n, Layout l) : node(n), layout(std::move(l)) {}
  std::uint64_t node;
  Layout layout;
  std::string url;  // the lease URL as given; empty for a fixed node
  SharedSnowflakeGenerator* fixed = nullptr;
#ifdef IDFORGE_SQLITE_WITH_COORD
  std::uint64_t fork_epoch = 0;
  std::weak_ptr<coord::LeasedSnowflakeGenerator> leased;
#endif
};

struct Registry {
  std::mutex mutex;  // held while leasing too: two connections never lease twice
  std::vector<NodeEntry> entries;
};

Registry& registry() {
  static auto* r = new Registry();  // never destroyed: connections may close after exit begins
  return *r;
}

// Drops the entries of released leases and of leases from before fork(); the caller holds the
// mutex.
void prune(Registry& r) {
#ifdef IDFORGE_SQLITE_WITH_COORD
  const std::uint64_t epoch = detail::fork_epoch();
  std::erase_if(r.entries, [&](const NodeEntry& e) {
    return !e.fixed && (e.leased.expired() || e.fork_epoch != epoch);
  });
#else
  (void)r;
#endif
}

// Where a node's generator came from, for messages.
std::string source_of(const NodeEntry& e) {
  if (e.fixed) return "idforge_node(" + std::to_string(e.node) + ")";
  return "lease URL '" + shown(e.url) + "'";
}

NodeEntry* entry_for_node(Registry& r, std::uint64_t node) {
  for (NodeEntry& e : r.entries)
    if (e.node == node) return &e;
  return nullptr;
}

[[noreturn]] void refuse_other_layout(const NodeEntry& e, const Layout& layout) {
  throw Error(errc::invalid_argument,
              "node " + std::to_string(e.node) + " already issues in this process under layout " +
                  layout_shown(e.layout) + " (from " + source_of(e) + "); layout " +
                  layout_shown(layout) +
                  " on the same node is refused: one layout per node per process, since IDs of "
                  "the two could be equal; use another node ID for this layout");
}

Connection bind_fixed(const Layout& layout, std::uint64_t node) {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  prune(r);
  Connection c;
  if (NodeEntry* e = entry_for_node(r, node)) {
    if (!(e->layout == layout)) refuse_other_layout(*e, layout);
    c.fixed = e->fixed;  // in a forked child a fixed generator refuses
#ifdef IDFORGE_SQLITE_WITH_COORD
    if (!c.fixed) c.leased = e->leased.lock();  // the lease of this node, shared
#endif
    return c;
  }
  auto gen = std::make_unique<SharedSnowflakeGenerator>(layout, node, policy());
  NodeEntry entry(node, layout);
  entry.fixed = gen.get();
  r.entries.push_back(std::move(entry));
  c.fixed = gen.release();
  return c;
}

#ifdef IDFORGE_SQLITE_WITH_COORD
std::shared_ptr<coord::LeasedSnowflakeGenerator> bind_leased(const std::string& url,
                                                             const Layout& layout) {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  prune(r);
  for (const NodeEntry& e : r.entries)
    if (!e.fixed && e.url == url && e.layout == layout)
      if (auto gen = e.leased.lock()) return gen;
  coord::require_node_lock(coord::parse_lease_url(url));
  auto gen = std::make_shared<coord::LeasedSnowflakeGenerator>(coord::open_lease_store(url), layout,
                                                               policy());
  const std::uint64_t node = gen->node();
  if (const NodeEntry* e = entry_for_node(r, node)) {
    // Refused rather than shared: sharing would leave the lease held by no generator, and the
    // connection issuing on a node its store does not vouch for.
    const std::string other = source_of(*e);
    gen.reset();  // releases the lease
    throw Error(errc::invalid_argument,
                "lease URL '" + shown(url) + "' acquired node " + std::to_string(node) +
                    ", which this process already issues from via " + other +
                    "; the lease is released: one generator per node per process, so give "
                    "every connection of the process the same source for a node (the same "
                    "lease URL, spelled the same, or the same node ID)");
  }
  NodeEntry entry(node, layout);
  entry.url = url;
  entry.fork_epoch = detail::fork_epoch();
  entry.leased = gen;
  r.entries.push_back(std::move(entry));
  return gen;
}
#endif

Connection& connection_of(sqlite3_context* ctx) {
  return **static_cast<ConnectionRef*>(sqlite3_user_data(ctx));
}

constexpr std::size_t kMaxUrlBytes = 4096;   // PATH_MAX, the longest file: DIR that could work
constexpr std::size_t kMaxSpecBytes = 1024;  // the longest spec is a few dozen bytes

// A lease URL or layout spec with a NUL inside is refused: the C APIs below it (paths, what())
// would stop at the NUL and act on the truncated text.
// Longer text is refused before use: the stores and the parser quote parts of it (a path, a
// value) in their messages, and those parts are not ours to shorten.
std::string_view without_nul(std::string_view text, const char* what, std::size_t max_bytes) {
  if (text.size() > max_bytes)
    throw ArgumentError(std::string(what) + " is " + std::to_string(text.size()) +
                        " bytes, longer than the " + std::to_string(max_bytes) +
                        " allowed, got text '" + shown(text) + "'");
  if (const std::size_t at = text.find('\0'); at != std::string_view::npos)
    throw ArgumentError(std::string(what) + " must not contain a NUL byte (found at byte " +
                        std::to_string(at) + "), got text '" + shown(text) + "'");
  return text;
}

// Runs body; an Error that quotes text whole has it shortened to shown(text), so a 100 KB URL or
// spec is not echoed in full (by the store or parser below, which cannot know the limit here).
template <class Body>
auto quoting_shortened(std::string_view text, Body&& body) {
  try {
    return body();
  } catch (const Error& e) {
    const std::string short_text = shown(text);
    if (short_text.size() >= text.size() && std::string_view(e.what()).size() < 512) throw;
    std::string m = e.what();
    for (std::size_t at = m.find(text); at != std::string::npos;
         at = m.find(text, at + short_text.size()))
      m.replace(at, text.size(), short_text);
    // Parts of text (a path, a value) may still be quoted whole: keep the head and the tail,
    // where the cause is.
    constexpr std::size_t kHead = 240, kTail = 160;
    if (m.size() > kHead + kTail + 64)
      m = m.substr(0, kHead) + " ... (" + std::to_string(m.size() - kHead - kTail) +
          " bytes cut) ... " + m.substr(m.size() - kTail);
    throw Error(e.code(), m);
  }
}

Layout layout_arg(int argc, sqlite3_value** argv) {
  if (argc < 2) return presets::twitter();
  const std::string_view spec = without_nul(
      text_arg(argv[1],
               "the layout must be text: a preset name (twitter, discord, sonyflake, instagram, "
               "baidu) or a spec"),
      "the layout", kMaxSpecBytes);
  return quoting_shortened(spec, [&] { return parse_layout(spec); });
}

bool all_digits(std::string_view text) {
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) text.remove_prefix(1);
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

std::uint64_t node_of(const Connection& c) {
#ifdef IDFORGE_SQLITE_WITH_COORD
  if (c.leased) return c.leased->node();
#endif
  return c.fixed->node();
}

bool has_node(const Connection& c) {
#ifdef IDFORGE_SQLITE_WITH_COORD
  if (c.leased) return true;
#endif
  return c.fixed != nullptr;
}

void bind_node(Connection& c, std::int64_t node, const Layout& layout) {
  if (node < 0)
    throw Error(errc::node_out_of_range,
                "node ID " + std::to_string(node) + " out of range: layout '" + layout.name() +
                    "' has " + std::to_string(layout.node_bits()) + " node bits, so 0.." +
                    std::to_string(layout.node_count() - 1));
  c = bind_fixed(layout, layout.check_node(static_cast<std::uint64_t>(node)));
  // the last connection to leave a lease releases it (the old c.leased, just replaced)
}

void bind_lease(Connection& c, std::string_view url, const Layout& layout) {
#ifdef IDFORGE_SQLITE_WITH_COORD
  c.leased = bind_leased(std::string(url), layout);
  c.fixed = nullptr;
#else
  (void)c;
  (void)layout;
  throw ArgumentError("lease URL '" + shown(url) +
                      "': this build of the extension has no lease stores (build idforge with "
                      "IDFORGE_BUILD_COORD=ON); give a node ID instead, e.g. idforge_node(7)");
#endif
}

}  // namespace

void* new_connection() {
  return new ConnectionRef(std::make_shared<Connection>());
}

void* new_connection_ref(void* shared_connection) {
  return new ConnectionRef(*static_cast<ConnectionRef*>(shared_connection));
}

void free_connection_ref(void* ref) noexcept {
  delete static_cast<ConnectionRef*>(ref);  // a leased generator's destructor never throws
}

void set_node(sqlite3_context* ctx, int argc, sqlite3_value** argv) noexcept {
  guard(ctx, "idforge_node", [&] {
    Connection& c = connection_of(ctx);
    if (argc == 0) {  // which node this connection issues with, if any
      if (has_node(c))
        sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(node_of(c)));
      else
        sqlite3_result_null(ctx);
      return;
    }
    const Layout layout = layout_arg(argc, argv);
    switch (sqlite3_value_type(argv[0])) {
      case SQLITE_INTEGER:
        bind_node(c, sqlite3_value_int64(argv[0]), layout);
        break;
      case SQLITE_TEXT: {
        const std::string_view url =
            without_nul(text_arg(argv[0], ""), "the lease URL", kMaxUrlBytes);
        if (all_digits(url))
          throw ArgumentError("text '" + shown(url) +
                              "' is neither a node ID nor a lease URL: pass an INTEGER node ID "
                              "(idforge_node(" +
                              shown(url) + "), not '" + shown(url) +
                              "'), or a lease URL such as file:/path");
        quoting_shortened(url, [&] { bind_lease(c, url, layout); });
        break;
      }
      default:
        throw ArgumentError("the node must be an integer node ID (0.." +
                            std::to_string(layout.node_count() - 1) + " under layout '" +
                            layout.name() + "') or a lease URL (" + kStores + "), got " +
                            describe(argv[0]));
    }
    sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(node_of(c)));
  });
}

void snowflake(sqlite3_context* ctx, int, sqlite3_value**) noexcept {
  guard(ctx, "snowflake", [&] {
    Connection& c = connection_of(ctx);
    if (!has_node(c))
      throw ArgumentError(
          "this connection has no node ID: set one first with SELECT idforge_node(N) (N unique "
          "among the processes that share the IDs; 0..1023 under the default twitter layout), "
          "idforge_node(N, 'layout') or idforge_node('lease URL')");
    Snowflake id;
    try {
#ifdef IDFORGE_SQLITE_WITH_COORD
      id = c.leased ? c.leased->next() : c.fixed->next();
#else
      id = c.fixed->next();
#endif
    } catch (const Error& e) {
      if (e.code() != errc::forked) throw;
      throw Error(errc::forked,
                  "snowflake generator for node " + std::to_string(node_of(c)) +
                      " was created before fork(); in the child process call idforge_node() "
                      "with another node (one no other process uses) or a lease URL (the parent "
                      "keeps issuing with this one)");
    }
    // SQLite's INTEGER is signed: an unsigned layout's ID from 2^63 up would read back negative
    // and sort first, so it is refused rather than stored out of order.
    if (id.value() > static_cast<std::uint64_t>(std::numeric_limits<sqlite3_int64>::max()))
      throw Error(errc::time_exhausted,
                  "ID " + std::to_string(id.value()) +
                      " does not fit SQLite's INTEGER (signed 64 bits): the unsigned layout has "
                      "used its 64th bit; choose a signed layout");
    sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(id.value()));
  });
}

}  // namespace idforge::sqlite
