// idforge_node() and snowflake() on the C ABI's Snowflake handles (idforge.h). Every node is
// held in a lease store, so two processes can never issue with the same node at once:
//  - idforge_node(N [, layout]) takes node N in the lease folder beside the database file,
//    file:<database file>-idforge (a flock per node, and the node's high-water mark, so a
//    restart with the clock behind waits or refuses instead of issuing again). A database with
//    no file (in memory, temporary) has nowhere to lock N and is refused, saying how to give
//    a folder;
//  - idforge_node(N, 'store URL') and idforge_node(N, layout, 'store URL') take node N in that
//    store;
//  - idforge_node('store URL' [, layout]) leases any free node from the store.
// The handle behind a node is one for the whole process per node, so two connections (on any
// threads) that choose the same node share one sequence and never collide; it is freed, the
// node released with its mark, when the last connection that uses it closes or picks another.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "functions.hpp"

namespace idforge::sqlite {

/// A C ABI Snowflake handle and the node it holds, shared by the connections that issue with
/// it. Freeing it releases the node and stores its mark; in a forked child it leaves the
/// parent's lease alone.
class Generator {
 public:
  Generator(idforge_snowflake* handle, std::uint64_t node) noexcept
      : handle_(handle), node_(node) {}
  ~Generator() { idforge_snowflake_free(handle_); }
  Generator(const Generator&) = delete;
  Generator& operator=(const Generator&) = delete;

  idforge_snowflake* handle() const noexcept { return handle_; }
  std::uint64_t node() const noexcept { return node_; }

 private:
  idforge_snowflake* handle_;
  std::uint64_t node_;
};

/// What snowflake() draws from on one connection (null: no node chosen yet).
struct Connection {
  std::shared_ptr<Generator> generator;
};

namespace {

using ConnectionRef = std::shared_ptr<Connection>;

constexpr const char* kStores =
    "file:DIR, redis://HOST:PORT, etcd://HOST:PORT, static:N?state=DIR (docs/LEASES.md)";

// A layout as the C ABI reads it (idforge_snowflake_rule: the canonical spec, the bits); the
// registry compares two with idforge_layout_same, so this face holds no layout rule of its own.
using Layout = idforge_snowflake_rule;

std::int64_t unix_ms_now() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The rule of layout text (a preset name or a spec) for node; CallError naming the value and
// the rule (a bad layout, a node outside it) otherwise.
Layout rule_of(const std::string& text, std::int64_t node = 0) {
  Layout r{};
  ok(idforge_snowflake_rule_make(text.c_str(), node, unix_ms_now(), &r));
  return r;
}

bool same_layout(const Layout& a, const Layout& b) {
  return idforge_layout_same(a.spec, b.spec) == 1;
}

// A layout's name: the canonical spec starts "name=NAME," (a name holds no comma).
std::string layout_name(const Layout& layout) {
  const std::string_view spec(layout.spec);
  const std::size_t comma = spec.find(',');
  return std::string(spec.substr(5, comma == std::string_view::npos ? spec.npos : comma - 5));
}

// A layout as messages show it: its name and its canonical spec.
std::string layout_shown(const Layout& layout) {
  return "'" + layout_name(layout) + "' (" + layout.spec + ")";
}

// Where a node's lease is asked for, for the registry and for messages.
struct Source {
  std::string store;         // the lease store URL handed to the C ABI
  bool fixed = true;         // node N exactly; else a free node the store picks
  bool beside_file = false;  // store is the folder beside the database file
};

// The per-process registry, keyed by node number: a node number issues from exactly one
// handle in the process, whatever asked for it (idforge_node(N), or a lease URL whose store
// handed out N). Two handles on one node would each start their sequence at 0 in the same
// millisecond, and two layouts on one node can put the same bits in the same place (twitter and
// 'twitter,node=10', or an epoch a few ms apart), so their IDs could be equal; and a node held
// in one store but issued into a database whose folder does not hold it could be taken there
// by another process. An entry goes when its handle does. A lease taken before fork() is not
// the child's: the child takes its own; a fixed node from before fork() is shared in the child
// only to refuse there (the parent keeps issuing with it).
struct NodeEntry {
  NodeEntry(std::uint64_t n, Layout l, Source s)
      : node(n), layout(std::move(l)), source(std::move(s)) {}
  std::uint64_t node;
  Layout layout;
  Source source;
  pid_t pid = ::getpid();  // a lease taken before fork() is the parent's
  std::weak_ptr<Generator> generator;
};

struct Registry {
  std::mutex mutex;  // held while leasing too: two connections never lease twice
  std::vector<NodeEntry> entries;
};

Registry& registry() {
  static auto* r = new Registry();  // never destroyed: connections may close after exit begins
  return *r;
}

// Drops the entries of freed handles, and of leases from before fork(); the caller holds the
// mutex.
void prune(Registry& r) {
  const pid_t pid = ::getpid();
  std::erase_if(r.entries, [&](const NodeEntry& e) {
    return e.generator.expired() || (!e.source.fixed && e.pid != pid);
  });
}

// Where a node's handle came from, for messages.
std::string source_of(const NodeEntry& e) {
  const std::string n = std::to_string(e.node);
  if (e.source.beside_file) return "idforge_node(" + n + ")";
  if (e.source.fixed) return "idforge_node(" + n + ", '" + shown(e.source.store) + "')";
  return "lease URL '" + shown(e.source.store) + "'";
}

NodeEntry* entry_for_node(Registry& r, std::uint64_t node) {
  for (NodeEntry& e : r.entries)
    if (e.node == node) return &e;
  return nullptr;
}

[[noreturn]] void refuse_other_layout(const NodeEntry& e, const Layout& layout) {
  throw ArgumentError("node " + std::to_string(e.node) +
                      " already issues in this process under layout " + layout_shown(e.layout) +
                      " (from " + source_of(e) + "); layout " + layout_shown(layout) +
                      " on the same node is refused: one layout per node per process, since IDs of "
                      "the two could be equal; use another node ID for this layout");
}

[[noreturn]] void refuse_other_store(const NodeEntry& e, const Source& wanted) {
  throw ArgumentError("node " + std::to_string(e.node) + " already issues in this process from " +
                      source_of(e) + ", held in lease store '" + shown(e.source.store) +
                      "'; this call would hold it in '" + shown(wanted.store) +
                      "' instead, where another process could take it: one generator per node per "
                      "process, held in one store; name that store (idforge_node(" +
                      std::to_string(e.node) + ", '" + shown(e.source.store) +
                      "')) or use another node ID");
}

// A C ABI handle for node (>= 0: exactly it; IDFORGE_NODE_ANY: a free one) in source.store.
std::shared_ptr<Generator> open_handle(const Layout& layout, std::int64_t node,
                                       const Source& source) {
  idforge_snowflake* h = nullptr;
  const idforge_status s = idforge_snowflake_new(layout.spec, node, source.store.c_str(), &h);
  if (s == IDFORGE_E_LEASE_ERROR && source.beside_file) {
    const std::string n = std::to_string(node);
    throw CallError(
        s, (std::string(idforge_last_error()) + "; idforge_node(" + n + ") holds node " + n +
            " in the lease folder beside the database file: while another process "
            "holds it, choose another node ID or lease a free one with "
            "idforge_node('" +
            source.store +
            "'); where that folder cannot be used, give one: "
            "idforge_node(" +
            n + ", 'file:/path/to/folder')")
               .c_str());
  }
  ok(s);
  std::uint64_t got = 0;
  if (const idforge_status n = idforge_snowflake_node(h, &got); n != IDFORGE_OK) {
    idforge_snowflake_free(h);
    ok(n);
  }
  return std::make_shared<Generator>(h, got);
}

std::shared_ptr<Generator> bind_fixed(const Layout& layout, std::uint64_t node, Source source) {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  prune(r);
  if (NodeEntry* e = entry_for_node(r, node)) {
    if (!same_layout(e->layout, layout)) refuse_other_layout(*e, layout);
    if (e->source.store != source.store) refuse_other_store(*e, source);
    if (auto g = e->generator.lock()) return g;  // in a forked child it refuses to issue
  }
  auto g = open_handle(layout, static_cast<std::int64_t>(node), source);
  NodeEntry entry(node, layout, std::move(source));
  entry.generator = g;
  r.entries.push_back(std::move(entry));
  return g;
}

std::shared_ptr<Generator> bind_leased(const std::string& url, const Layout& layout) {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  prune(r);
  for (const NodeEntry& e : r.entries)
    if (!e.source.fixed && e.source.store == url && same_layout(e.layout, layout))
      if (auto g = e.generator.lock()) return g;
  Source source{url, false, false};
  auto g = open_handle(layout, IDFORGE_NODE_ANY, source);
  const std::uint64_t node = g->node();
  if (const NodeEntry* e = entry_for_node(r, node)) {
    // Refused rather than shared: sharing would leave the lease held by no generator, and the
    // connection issuing on a node its store does not vouch for.
    const std::string other = source_of(*e);
    g.reset();  // releases the lease
    throw ArgumentError("lease URL '" + shown(url) + "' acquired node " + std::to_string(node) +
                        ", which this process already issues from via " + other +
                        "; the lease is released: one generator per node per process, so give "
                        "every connection of the process the same source for a node (the same "
                        "lease URL, spelled the same, or the same node ID)");
  }
  NodeEntry entry(node, layout, std::move(source));
  entry.generator = g;
  r.entries.push_back(std::move(entry));
  return g;
}

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

// message with text, wherever quoted whole, shortened to shown(text), so a 100 KB URL or spec
// is not echoed in full (by the store or parser below, which cannot know the limit here).
std::string with_text_shortened(std::string m, std::string_view text) {
  const std::string short_text = shown(text);
  for (std::size_t at = m.find(text); !text.empty() && at != std::string::npos;
       at = m.find(text, at + short_text.size()))
    m.replace(at, text.size(), short_text);
  // Parts of text (a path, a value) may still be quoted whole: keep the head and the tail,
  // where the cause is.
  constexpr std::size_t kHead = 240, kTail = 160;
  if (m.size() > kHead + kTail + 64)
    m = m.substr(0, kHead) + " ... (" + std::to_string(m.size() - kHead - kTail) +
        " bytes cut) ... " + m.substr(m.size() - kTail);
  return m;
}

// Runs body; a message that quotes text whole has it shortened (with_text_shortened).
template <class Body>
auto quoting_shortened(std::string_view text, Body&& body) {
  const auto long_text = [&](const char* what) {
    return shown(text).size() < text.size() || std::string_view(what).size() >= 512;
  };
  try {
    return body();
  } catch (const ArgumentError& e) {
    if (!long_text(e.what())) throw;
    throw ArgumentError(with_text_shortened(e.what(), text));
  } catch (const CallError& e) {
    if (!long_text(e.what())) throw;
    throw CallError(e.status(), with_text_shortened(e.what(), text).c_str());
  }
}

constexpr const char* kLayoutRule =
    "the layout must be text: a preset name (twitter, discord, sonyflake, instagram, baidu) or "
    "a spec";

Layout parse_layout_arg(sqlite3_value* value) {
  const std::string_view spec =
      without_nul(text_arg(value, kLayoutRule), "the layout", kMaxSpecBytes);
  return quoting_shortened(spec, [&] { return rule_of(std::string(spec)); });
}

std::string store_arg(sqlite3_value* value) {
  return std::string(without_nul(
      text_arg(value, std::string("the lease store must be text: a URL such as ") + kStores),
      "the lease URL", kMaxUrlBytes));
}

// Whether a second argument names a lease store rather than a layout: it starts with a scheme
// ("file:", "redis:"), and a layout spec has '=' or ',' before any ':' (an epoch's time).
bool names_store(sqlite3_value* value) {
  if (sqlite3_value_type(value) != SQLITE_TEXT) return false;
  const std::string_view t = text_arg(value, "");
  const std::size_t colon = t.find(':');
  return colon != std::string_view::npos && colon > 0 &&
         t.substr(0, colon).find_first_not_of("abcdefghijklmnopqrstuvwxyz") ==
             std::string_view::npos;
}

bool all_digits(std::string_view text) {
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) text.remove_prefix(1);
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

// The lease folder beside the connection's main database file, as a file: store URL.
Source beside_database(sqlite3_context* ctx, std::uint64_t node) {
  const std::string n = std::to_string(node);
  const char* file = sqlite3_db_filename(sqlite3_context_db_handle(ctx), "main");
  if (!file || !*file)
    throw ArgumentError(
        "node " + n +
        ": this connection's database has no file (it is in memory or temporary), so there is "
        "no folder beside it to lock node " +
        n +
        " in, and another process could issue with the same node unseen; give a lease store "
        "that every process issuing these IDs shares: idforge_node(" +
        n + ", 'file:/path/to/folder') takes node " + n +
        " there, idforge_node('file:/path/to/folder') takes any free node");
  // The folder is named for this path of the file: a hard link is another path of the same
  // database, whose folder would not see this one's lock (two processes each held node 7 and
  // issued 254,376 equal IDs of 1.9 M). A symbolic link resolves to one name: SQLite opens
  // its target.
  struct stat st {};
  if (::stat(file, &st) == 0 && st.st_nlink > 1)
    throw ArgumentError(
        "node " + n + ": the database file '" + shown(file) + "' has " +
        std::to_string(st.st_nlink) +
        " hard links, and the lease folder beside one of its names does not lock the others, so "
        "a process that opens it by another name could issue with node " +
        n + " too; give a lease store every process shares: idforge_node(" + n +
        ", 'file:/path/to/folder'), or remove the extra links");
  const std::string folder = std::string(file) + "-idforge";
  if (folder.find('?') != std::string::npos)
    throw ArgumentError("node " + n + ": the database file name '" + shown(file) +
                        "' holds a '?', which a lease URL reads as the start of its options; "
                        "give the folder yourself: idforge_node(" +
                        n + ", 'file:/path/to/folder')");
  return Source{"file:" + folder, true, true};
}

std::shared_ptr<Generator> bind_node(sqlite3_context* ctx, std::int64_t node, const Layout& layout,
                                     const std::string* store) {
  rule_of(layout.spec, node);  // refuses a node outside the layout, naming its range
  const auto n = static_cast<std::uint64_t>(node);
  if (!store) return bind_fixed(layout, n, beside_database(ctx, n));
  return quoting_shortened(*store, [&] { return bind_fixed(layout, n, Source{*store}); });
}

}  // namespace

void* new_connection() {
  return new ConnectionRef(std::make_shared<Connection>());
}

void* new_connection_ref(void* shared_connection) {
  return new ConnectionRef(*static_cast<ConnectionRef*>(shared_connection));
}

void free_connection_ref(void* ref) noexcept {
  delete static_cast<ConnectionRef*>(ref);  // idforge_snowflake_free never throws
}

void set_node(sqlite3_context* ctx, int argc, sqlite3_value** argv) noexcept {
  guard(ctx, "idforge_node", [&] {
    Connection& c = connection_of(ctx);
    if (argc == 0) {  // which node this connection issues with, if any
      if (c.generator)
        sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(c.generator->node()));
      else
        sqlite3_result_null(ctx);
      return;
    }
    switch (sqlite3_value_type(argv[0])) {
      case SQLITE_INTEGER: {
        // (N), (N, layout), (N, 'store URL'), (N, layout, 'store URL')
        const bool store_second = argc == 2 && names_store(argv[1]);
        const Layout layout =
            argc >= 2 && !store_second ? parse_layout_arg(argv[1]) : rule_of("twitter");
        std::string store;
        if (argc == 3 || store_second) store = store_arg(argv[argc - 1]);
        // the last connection to leave a node releases it (the one replaced here)
        c.generator = bind_node(ctx, sqlite3_value_int64(argv[0]), layout,
                                argc == 3 || store_second ? &store : nullptr);
        break;
      }
      case SQLITE_TEXT: {
        const std::string url =
            std::string(without_nul(text_arg(argv[0], ""), "the lease URL", kMaxUrlBytes));
        if (all_digits(url))
          throw ArgumentError("text '" + shown(url) +
                              "' is neither a node ID nor a lease URL: pass an INTEGER node ID "
                              "(idforge_node(" +
                              shown(url) + "), not '" + shown(url) +
                              "'), or a lease URL such as file:/path");
        if (argc == 3)
          throw ArgumentError(
              "a lease URL takes a layout only, idforge_node('URL', layout); the three-argument "
              "form is idforge_node(N, layout, 'store URL')");
        const Layout layout = argc >= 2 ? parse_layout_arg(argv[1]) : rule_of("twitter");
        c.generator = quoting_shortened(url, [&] { return bind_leased(url, layout); });
        break;
      }
      default: {
        const Layout layout =
            argc >= 2 && !names_store(argv[1]) ? parse_layout_arg(argv[1]) : rule_of("twitter");
        throw ArgumentError("the node must be an integer node ID (under layout '" +
                            layout_name(layout) + "') or a lease URL (" + kStores + "), got " +
                            describe(argv[0]));
      }
    }
    sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(c.generator->node()));
  });
}

void snowflake(sqlite3_context* ctx, int, sqlite3_value**) noexcept {
  guard(ctx, "snowflake", [&] {
    const Connection& c = connection_of(ctx);
    if (!c.generator)
      throw ArgumentError(
          "this connection has no node ID: set one first with SELECT idforge_node(N) (N unique "
          "among the processes that share the IDs; 0..1023 under the default twitter layout), "
          "idforge_node(N, 'layout') or idforge_node('lease URL')");
    std::uint64_t id = 0;
    const idforge_status s = idforge_snowflake_next(c.generator->handle(), &id);
    if (s == IDFORGE_E_FORKED)
      throw CallError(s, ("snowflake generator for node " + std::to_string(c.generator->node()) +
                          " was created before fork(); in the child process call idforge_node() "
                          "with another node (one no other process uses) or a lease URL (the "
                          "parent keeps issuing with this one)")
                             .c_str());
    ok(s);
    // SQLite's INTEGER is signed: an unsigned layout's ID from 2^63 up would read back negative
    // and sort first, so it is refused rather than stored out of order.
    if (id > static_cast<std::uint64_t>(std::numeric_limits<sqlite3_int64>::max()))
      throw CallError(IDFORGE_E_TIME_EXHAUSTED,
                      ("ID " + std::to_string(id) +
                       " does not fit SQLite's INTEGER (signed 64 bits): the unsigned layout has "
                       "used its 64th bit; choose a signed layout")
                          .c_str());
    sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(id));
  });
}

}  // namespace idforge::sqlite
