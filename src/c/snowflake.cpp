// Snowflake handles: a node ID leased from a store through the same path `idforge serve
// --lease` takes (coord::open_lease_store + SharedLeasedSnowflakeGenerator); a fixed node without a
// store is registered in the default lease folder, as `idforge gen --node` registers it.
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "c_support.hpp"
#include "idforge/coord/lease.hpp"
#include "idforge/coord/lease_url.hpp"
#include "idforge/coord/leased_generator.hpp"
#include "idforge/detail/fork_epoch.hpp"
#include "idforge/detail/printable.hpp"
#include "idforge/snowflake.hpp"
#include "idforge/snowflake_generator.hpp"
#include "node_registry.hpp"

// Every handle holds a leased generator: a node the caller fixes without a store is
// registered in the default lease folder (default_lease_store), as the CLI's `gen --node`
// does, so it takes a lock and a high-water mark like any other. The claim keeps the node
// unique inside this process (node_registry.hpp).
struct idforge_snowflake {
  // Null only in a forked child whose rebind failed: every call but rebind and free refuses.
  std::unique_ptr<idforge::coord::SharedLeasedSnowflakeGenerator> leased;
  std::optional<idforge::Layout> layout;  // set by open(); kept for a rebind after a failed one
  std::string unbound;                    // why leased is null (the failed rebind's message)
  std::string store_url;         // the lease store's URL (the default folder for a fixed node)
  bool fixed = false;            // node given with no store: rebind needs a node of its own
  std::uint64_t fork_epoch = 0;  // the process generation that took the lease
  idforge::c::NodeClaim claim;   // ends after leased: its floor is leased's last issued time

  const idforge::SharedSnowflakeGenerator& generator() const noexcept {
    return leased->generator();
  }
  // Releases the lease (storing the mark) and then the claim, with the last issued time.
  void close() {
    if (!leased) return;
    const std::int64_t last = leased->generator().last_unix_ms();
    leased.reset();
    claim.end(last);
  }
  ~idforge_snowflake() {
    try {
      close();
    } catch (...) {
    }
  }
};

namespace idforge::c {
namespace {

// A call from C, Python or Node waits for the next tick only within a second: a layout with
// a longer tick (up to a day) answers IDFORGE_E_COUNTER_EXHAUSTED with the wait instead of
// blocking its thread, and an interpreter's Ctrl-C, for that long.
constexpr std::int64_t kMaxSequenceWaitMs = 1000;

// Where a fixed node without a store keeps its lock and mark: the CLI's `gen` folder, or the
// folder IDFORGE_LEASE_DIR names (a service's data folder, a tmpfs for tests).
constexpr const char* kDefaultLeaseFolder = ".data/leases";

std::string default_lease_store() {
  const char* env = std::getenv("IDFORGE_LEASE_DIR");
  const std::string dir = env ? env : kDefaultLeaseFolder;
  if (dir.empty())
    throw Error(errc::invalid_argument,
                "IDFORGE_LEASE_DIR is set but empty: it names the folder where a fixed node "
                "keeps its lock and high-water mark; unset it (for " +
                    std::string(kDefaultLeaseFolder) + ") or give a folder");
  // The URL's query is split at '?' and '&': a folder holding one would be misread.
  if (dir.find_first_of("?&") != std::string::npos)
    throw Error(errc::invalid_argument,
                "IDFORGE_LEASE_DIR '" + detail::printable(dir) +
                    "': a lease folder may not contain '?' or '&' (the lease URL's query "
                    "separators); choose another folder");
  return "file:" + dir;
}

SnowflakePolicy policy(std::int64_t floor_unix_ms) {
  SnowflakePolicy p;
  p.max_sequence_wait_ms = kMaxSequenceWaitMs;
  p.issued_up_to_unix_ms = floor_unix_ms;
  return p;
}

// IDFORGE_E_FORKED for a handle whose rebind in a forked child failed: it holds no node until
// a rebind succeeds; IDFORGE_OK for a bound one.
idforge_status bound(const idforge_snowflake& h, const char* function) noexcept {
  if (h.leased) return IDFORGE_OK;
  return fail(IDFORGE_E_FORKED, std::string(function) +
                                    ": this handle holds no node in this forked child: its "
                                    "rebind failed (" +
                                    h.unbound +
                                    "); call idforge_snowflake_rebind with another node");
}

// Opens a generator on url for node (< 0: any free one), registered in this process's node
// registry: a fixed node is claimed before the store is asked (so a second handle of this
// process is refused naming the first, and continues above it once that one is freed), a
// leased one once the store has named its node.
void open(idforge_snowflake& h, const Layout& layout, std::int64_t node) {
  // A bare static:/ordinal: URL locks its node nowhere: two processes given it would issue
  // the same IDs. The bindings have no data folder of their own to lock it in (as the CLI
  // does), so they refuse it, as the database extensions do.
  coord::require_node_lock(coord::parse_lease_url(h.store_url));
  coord::LeasedOptions options;
  NodeClaim claim;
  if (node >= 0) {
    const std::uint64_t n = layout.check_node(static_cast<std::uint64_t>(node));
    claim = NodeClaim::take(layout, n, h.store_url);
    options.keeper.node = n;
  }
  auto leased = std::make_unique<coord::SharedLeasedSnowflakeGenerator>(
      coord::open_lease_store(h.store_url), layout, policy(claim.floor_unix_ms()), options);
  if (!claim.held()) {
    // Two stores (file:/a, file:/b) may hand out the same node; the second one refuses here,
    // and its lease goes back with the generator.
    claim = NodeClaim::take(layout, leased->node(), h.store_url);
  }
  h.claim = std::move(claim);
  h.leased = std::move(leased);
  h.layout = layout;
  h.unbound.clear();
  h.fork_epoch = detail::fork_epoch();
}

}  // namespace
}  // namespace idforge::c

using namespace idforge;
using idforge::c::guard;
using idforge::c::null_argument;

extern "C" {

idforge_status idforge_snowflake_new(const char* layout, int64_t node, const char* lease_store,
                                     idforge_snowflake** out) {
  if (!out) return null_argument("idforge_snowflake_new", "out");
  *out = nullptr;
  return guard([&] {
    const Layout l = c::layout_or_default(layout);
    if (!lease_store && node < 0)
      return c::fail(IDFORGE_E_INVALID_ARGUMENT,
                     "a Snowflake generator needs a node ID (node >= 0) or a lease store URL "
                     "(file:DIR, redis://HOST:PORT, etcd://HOST:PORT, static:N?state=DIR)");
    if (node >= 0) l.check_node(static_cast<std::uint64_t>(node));  // before any folder is made
    auto h = std::make_unique<idforge_snowflake>();
    h->fixed = !lease_store;
    h->store_url = lease_store ? std::string(lease_store) : c::default_lease_store();
    c::open(*h, l, node);
    *out = h.release();
    return IDFORGE_OK;
  });
}

idforge_status idforge_snowflake_next(idforge_snowflake* gen, uint64_t* out) {
  if (!gen) return null_argument("idforge_snowflake_next", "gen");
  if (!out) return null_argument("idforge_snowflake_next", "out");
  if (const idforge_status s = c::bound(*gen, "idforge_snowflake_next")) return s;
  return guard([&] {
    *out = gen->leased->next().value();
    return IDFORGE_OK;
  });
}

idforge_status idforge_snowflake_next_batch(idforge_snowflake* gen, uint64_t* out, size_t n,
                                            size_t* written) {
  if (written) *written = 0;
  if (!gen) return null_argument("idforge_snowflake_next_batch", "gen");
  if (!out && n) return null_argument("idforge_snowflake_next_batch", "out");
  if (const idforge_status s = c::bound(*gen, "idforge_snowflake_next_batch")) return s;
  return guard([&] {
    static_assert(sizeof(Snowflake) == sizeof(std::uint64_t));
    const std::span<Snowflake> ids(reinterpret_cast<Snowflake*>(out), n);
    std::size_t done = 0;
    while (done < n) {
      // The exception-free overload counts what was written before an error; the fence of a
      // leased generator holds there too (only its message is plainer).
      std::error_code error;
      done += gen->leased->next_batch(ids.subspan(done), error);
      if (written) *written = done;
      if (!error) break;
      // The batch's waits together reached the bound a call may wait (kMaxSequenceWaitMs):
      // the call ends here, rather than wait once more for each further tick.
      if (error == errc::counter_exhausted && done > 0) {
        const Layout& l = gen->generator().layout();
        throw Error(errc::counter_exhausted,
                    std::to_string(done) + " of " + std::to_string(n) + " IDs written: layout '" +
                        l.name() + "' issues " + std::to_string(l.ids_per_tick()) + " per " +
                        std::to_string(l.tick_ms()) + " ms tick, and a call waits at most " +
                        std::to_string(c::kMaxSequenceWaitMs) +
                        " ms in all for its ticks; ask for fewer IDs per call");
      }
      // One call alone gives the error's full message (a leased one names the store); it
      // issues nothing when it fails, and when the cause has passed it is the next ID.
      ids[done] = gen->leased->next();
      if (written) *written = ++done;
    }
    return IDFORGE_OK;
  });
}

idforge_status idforge_snowflake_node(const idforge_snowflake* gen, uint64_t* out) {
  if (!gen) return null_argument("idforge_snowflake_node", "gen");
  if (!out) return null_argument("idforge_snowflake_node", "out");
  if (const idforge_status s = c::bound(*gen, "idforge_snowflake_node")) return s;
  *out = gen->leased->node();
  return IDFORGE_OK;
}

idforge_status idforge_snowflake_layout(const idforge_snowflake* gen, char* out, size_t size,
                                        size_t* needed) {
  if (!gen) return null_argument("idforge_snowflake_layout", "gen");
  if (needed) *needed = 0;
  if (const idforge_status s = c::check_out("idforge_snowflake_layout", out, size)) return s;
  return guard([&] { return c::write_text(gen->layout->to_spec(), out, size, needed); });
}

idforge_status idforge_snowflake_rebind(idforge_snowflake* gen, int64_t node) {
  if (!gen) return null_argument("idforge_snowflake_rebind", "gen");
  return guard([&] {
    if (gen->fixed && node < 0)
      return c::fail(IDFORGE_E_INVALID_ARGUMENT,
                     "idforge_snowflake_rebind: node " + std::to_string(node) +
                         ": a generator with a fixed node needs a node ID >= 0 of its own");
    if (gen->leased && detail::fork_epoch() == gen->fork_epoch)
      return c::fail(IDFORGE_E_INVALID_ARGUMENT,
                     "idforge_snowflake_rebind: this process holds node " +
                         std::to_string(gen->leased->node()) + " of '" + gen->store_url +
                         "' itself; rebind is for a forked child (make a new generator instead)");
    // In the child the old generator's destructor leaves the parent's lease alone, and the
    // registry's copy of the parent's claim is this handle's: both go before the new lease.
    gen->close();
    try {
      c::open(*gen, *gen->layout, node);
    } catch (const std::exception& e) {
      // The handle stays unbound (calls refuse with IDFORGE_E_FORKED) until a rebind works.
      gen->unbound = e.what();
      throw;
    }
    return IDFORGE_OK;
  });
}

idforge_status idforge_snowflake_release(idforge_snowflake* gen) {
  if (!gen) return null_argument("idforge_snowflake_release", "gen");
  // Unbound (a failed rebind in a forked child): it holds nothing to give back.
  if (!gen->leased) return IDFORGE_OK;
  return guard([&] {
    gen->leased->release();
    // The node is free in this process too; the generator stays (later calls fail) until
    // the handle is freed, so its last issued time is read again then.
    gen->claim.end(gen->leased->generator().last_unix_ms());
    return IDFORGE_OK;
  });
}

void idforge_snowflake_free(idforge_snowflake* gen) {
  try {
    delete gen;  // a leased generator releases its node ID; errors are dropped there
  } catch (...) {
  }
}

idforge_status idforge_snowflake_decompose(const char* layout, uint64_t id,
                                           idforge_snowflake_parts* out) {
  if (!out) return null_argument("idforge_snowflake_decompose", "out");
  return guard([&] {
    const SnowflakeParts p = decompose(c::layout_or_default(layout), Snowflake(id));
    *out = {p.tick, p.unix_ms, p.datacenter, p.worker, p.node, p.sequence};
    return IDFORGE_OK;
  });
}

idforge_status idforge_snowflake_compose(const char* layout, const idforge_snowflake_parts* parts,
                                         uint64_t* out) {
  if (!parts) return null_argument("idforge_snowflake_compose", "parts");
  if (!out) return null_argument("idforge_snowflake_compose", "out");
  return guard([&] {
    SnowflakeParts p;
    p.tick = parts->tick;
    p.node = parts->node;
    p.sequence = parts->sequence;
    *out = compose(c::layout_or_default(layout), p).value();
    return IDFORGE_OK;
  });
}

}  // extern "C"
