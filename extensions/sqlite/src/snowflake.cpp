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
#include <vector>

#include "functions.hpp"
#include "idforge/detail/fork_epoch.hpp"
#include "idforge/error.hpp"
#include "idforge/snowflake_generator.hpp"
#include "idforge/snowflake_layout.hpp"
#ifdef IDFORGE_SQLITE_WITH_COORD
#include "idforge/coord/lease.hpp"
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

// One generator per (layout, node ID) in the process, never destroyed: a generator made anew
// for a node that issued earlier in this process could repeat the last millisecond's IDs.
// Layouts compare by their fields, not their names, so "twitter" and its spec share one.
SharedSnowflakeGenerator& fixed_generator(const Layout& layout, std::uint64_t node) {
  struct Entry {
    Layout layout;
    std::uint64_t node;
    SharedSnowflakeGenerator* gen;
  };
  static std::mutex mutex;
  static auto* entries = new std::vector<Entry>();
  const std::lock_guard lock(mutex);
  for (const Entry& e : *entries)
    if (e.node == node && e.layout == layout) return *e.gen;  // in a forked child it refuses
  auto gen = std::make_unique<SharedSnowflakeGenerator>(layout, node, policy());
  entries->push_back({layout, node, gen.get()});
  return *gen.release();
}

#ifdef IDFORGE_SQLITE_WITH_COORD
// One lease per (store URL, layout) in the process, shared by the connections that name it and
// released (its high-water mark stored) when the last of them closes or picks another node. A
// lease taken before fork() is not the child's: the child takes its own.
std::shared_ptr<coord::LeasedSnowflakeGenerator> leased_generator(const std::string& url,
                                                                  const Layout& layout) {
  struct Entry {
    std::string url;
    Layout layout;
    std::uint64_t fork_epoch;
    std::weak_ptr<coord::LeasedSnowflakeGenerator> gen;
  };
  static std::mutex mutex;
  static auto* entries = new std::vector<Entry>();
  const std::lock_guard lock(mutex);  // held while leasing: two connections never lease twice
  const std::uint64_t epoch = detail::fork_epoch();
  for (const Entry& e : *entries)
    if (e.url == url && e.layout == layout && e.fork_epoch == epoch)
      if (auto gen = e.gen.lock()) return gen;
  std::erase_if(*entries, [&](const Entry& e) { return e.gen.expired() || e.fork_epoch != epoch; });
  auto gen = std::make_shared<coord::LeasedSnowflakeGenerator>(coord::open_lease_store(url), layout,
                                                               policy());
  entries->push_back({url, layout, epoch, gen});
  return gen;
}
#endif

Connection& connection_of(sqlite3_context* ctx) {
  return **static_cast<ConnectionRef*>(sqlite3_user_data(ctx));
}

Layout layout_arg(int argc, sqlite3_value** argv) {
  if (argc < 2) return presets::twitter();
  return parse_layout(text_arg(argv[1],
                               "the layout must be text: a preset name (twitter, discord, "
                               "sonyflake, instagram, baidu) or a spec"));
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
  SharedSnowflakeGenerator& gen =
      fixed_generator(layout, layout.check_node(static_cast<std::uint64_t>(node)));
  c.fixed = &gen;
#ifdef IDFORGE_SQLITE_WITH_COORD
  c.leased.reset();  // the last connection to leave a lease releases it
#endif
}

void bind_lease(Connection& c, std::string_view url, const Layout& layout) {
#ifdef IDFORGE_SQLITE_WITH_COORD
  c.leased = leased_generator(std::string(url), layout);
  c.fixed = nullptr;
#else
  (void)c;
  (void)layout;
  throw ArgumentError("lease URL '" + std::string(url) +
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
      case SQLITE_TEXT:
        bind_lease(c, text_arg(argv[0], ""), layout);
        break;
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
      throw Error(errc::forked, std::string(e.what()) +
                                    "; in SQLite: in the child process call idforge_node() with "
                                    "a node ID no other process uses, or a lease URL");
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
