// Snowflake handles: a fixed node, or a node ID leased from a store through the same path
// `idforge serve --lease` takes (coord::open_lease_store + LeasedSnowflakeGenerator).
#include <limits>
#include <memory>
#include <span>
#include <string>

#include "c_support.hpp"
#include "idforge/coord/lease.hpp"
#include "idforge/coord/lease_url.hpp"
#include "idforge/coord/leased_generator.hpp"
#include "idforge/detail/fork_epoch.hpp"
#include "idforge/snowflake.hpp"
#include "idforge/snowflake_generator.hpp"

// Exactly one of fixed and leased is set. Both hold a thread-safe SharedSnowflakeGenerator.
struct idforge_snowflake {
  std::unique_ptr<idforge::SharedSnowflakeGenerator> fixed;
  std::unique_ptr<idforge::coord::LeasedSnowflakeGenerator> leased;
  std::string store_url;         // the lease store's URL; empty for a fixed node
  std::uint64_t fork_epoch = 0;  // the process generation that took the lease

  const idforge::SharedSnowflakeGenerator& generator() const noexcept {
    return fixed ? *fixed : leased->generator();
  }
  std::size_t next_batch(std::span<idforge::Snowflake> out, std::error_code& error) noexcept {
    return fixed ? fixed->next_batch(out, error) : leased->next_batch(out, error);
  }
};

namespace idforge::c {
namespace {

// A call from C, Python or Node waits for the next tick only within a second: a layout with
// a longer tick (up to a day) answers IDFORGE_E_COUNTER_EXHAUSTED with the wait instead of
// blocking its thread, and an interpreter's Ctrl-C, for that long.
constexpr std::int64_t kMaxSequenceWaitMs = 1000;

SnowflakePolicy policy() {
  SnowflakePolicy p;
  p.max_sequence_wait_ms = kMaxSequenceWaitMs;
  return p;
}

std::unique_ptr<coord::LeasedSnowflakeGenerator> lease(const std::string& url, const Layout& layout,
                                                       std::int64_t node) {
  // A bare static:/ordinal: URL locks its node nowhere: two processes given it would issue
  // the same IDs. The bindings have no data folder of their own to lock it in (as the CLI
  // does), so they refuse it, as the database extensions do.
  coord::require_node_lock(coord::parse_lease_url(url));
  coord::LeasedOptions options;
  if (node >= 0) options.keeper.node = static_cast<std::uint64_t>(node);
  return std::make_unique<coord::LeasedSnowflakeGenerator>(coord::open_lease_store(url), layout,
                                                           policy(), options);
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
    auto h = std::make_unique<idforge_snowflake>();
    h->fork_epoch = detail::fork_epoch();
    if (lease_store) {
      h->store_url = lease_store;
      h->leased = c::lease(h->store_url, l, node);
    } else {
      h->fixed = std::make_unique<SharedSnowflakeGenerator>(
          l, l.check_node(static_cast<std::uint64_t>(node)), c::policy());
    }
    *out = h.release();
    return IDFORGE_OK;
  });
}

idforge_status idforge_snowflake_next(idforge_snowflake* gen, uint64_t* out) {
  if (!gen) return null_argument("idforge_snowflake_next", "gen");
  if (!out) return null_argument("idforge_snowflake_next", "out");
  return guard([&] {
    *out = (gen->fixed ? gen->fixed->next() : gen->leased->next()).value();
    return IDFORGE_OK;
  });
}

idforge_status idforge_snowflake_next_batch(idforge_snowflake* gen, uint64_t* out, size_t n,
                                            size_t* written) {
  if (written) *written = 0;
  if (!gen) return null_argument("idforge_snowflake_next_batch", "gen");
  if (!out && n) return null_argument("idforge_snowflake_next_batch", "out");
  return guard([&] {
    static_assert(sizeof(Snowflake) == sizeof(std::uint64_t));
    const std::span<Snowflake> ids(reinterpret_cast<Snowflake*>(out), n);
    std::size_t done = 0;
    while (done < n) {
      // The exception-free overload counts what was written before an error; the fence of a
      // leased generator holds there too (only its message is plainer).
      std::error_code error;
      done += gen->next_batch(ids.subspan(done), error);
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
      ids[done] = gen->fixed ? gen->fixed->next() : gen->leased->next();
      if (written) *written = ++done;
    }
    return IDFORGE_OK;
  });
}

idforge_status idforge_snowflake_node(const idforge_snowflake* gen, uint64_t* out) {
  if (!gen) return null_argument("idforge_snowflake_node", "gen");
  if (!out) return null_argument("idforge_snowflake_node", "out");
  *out = gen->fixed ? gen->fixed->node() : gen->leased->node();
  return IDFORGE_OK;
}

idforge_status idforge_snowflake_layout(const idforge_snowflake* gen, char* out, size_t size,
                                        size_t* needed) {
  if (!gen) return null_argument("idforge_snowflake_layout", "gen");
  if (needed) *needed = 0;
  if (const idforge_status s = c::check_out("idforge_snowflake_layout", out, size)) return s;
  return guard([&] {
    auto* g = const_cast<idforge_snowflake*>(gen);
    return c::write_text(g->generator().layout().to_spec(), out, size, needed);
  });
}

idforge_status idforge_snowflake_rebind(idforge_snowflake* gen, int64_t node) {
  if (!gen) return null_argument("idforge_snowflake_rebind", "gen");
  return guard([&] {
    if (gen->fixed) {
      if (node < 0)
        return c::fail(IDFORGE_E_INVALID_ARGUMENT,
                       "idforge_snowflake_rebind: node " + std::to_string(node) +
                           ": a generator with a fixed node needs a node ID >= 0 of its own");
      const Layout& l = gen->fixed->layout();
      gen->fixed->rebind(l.check_node(static_cast<std::uint64_t>(node)));  // refuses in the parent
      return IDFORGE_OK;
    }
    if (detail::fork_epoch() == gen->fork_epoch)
      return c::fail(IDFORGE_E_INVALID_ARGUMENT,
                     "idforge_snowflake_rebind: this process holds node " +
                         std::to_string(gen->leased->node()) + " of '" + gen->store_url +
                         "' itself; rebind is for a forked child (make a new generator instead)");
    // In the child the old generator's destructor leaves the parent's lease alone.
    const Layout l = gen->leased->generator().layout();
    gen->leased = c::lease(gen->store_url, l, node);
    gen->fork_epoch = detail::fork_epoch();
    return IDFORGE_OK;
  });
}

idforge_status idforge_snowflake_release(idforge_snowflake* gen) {
  if (!gen) return null_argument("idforge_snowflake_release", "gen");
  return guard([&] {
    if (gen->fixed)
      gen->fixed->set_fence_unix_ms(std::numeric_limits<std::int64_t>::min());
    else
      gen->leased->release();
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
