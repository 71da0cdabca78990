// Where a ticket set stands: read from every listed server and put in words. Used by
// `idforge ticket status` and by every init or resize that stops, so the message says what
// each server does now.
#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "idforge/ticket/sequence_name.hpp"
#include "idforge/ticket/ticket_set.hpp"
#include "member_record.hpp"
#include "set_status.hpp"

namespace idforge::ticket {
namespace {

std::string member_words(const TicketConfig& c, std::int64_t index) {
  const auto v = detail::values_of(c, index);
  return "member " + std::to_string(index + 1) + " of " + std::to_string(c.k()) + ": values " +
         std::to_string(v.first) + ", " + std::to_string(v.first + v.step) + ", ...";
}

std::string ids_words(const std::vector<MemberRef>& members) {
  std::string out = std::to_string(members.size()) + " member(s) [";
  for (std::size_t i = 0; i < members.size(); ++i) out += (i ? " " : "") + members[i].id;
  return out + "]";
}

std::string server_words(const ServerStatus& s, std::size_t pos) {
  return "server " + std::to_string(pos + 1) + " (" + s.url + ")";
}

}  // namespace

namespace detail {

std::string find_conflict(std::string_view name, const std::vector<ServerStatus>& servers) {
  const std::string set = "ticket set '" + std::string(name) + "'";
  // One database listed twice (or a copy that kept its identity) would hand out one member's
  // values twice.
  std::map<std::string, std::size_t> by_id;
  for (std::size_t i = 0; i < servers.size(); ++i) {
    const auto& s = servers[i];
    if (s.identity.empty()) continue;
    if (auto [it, fresh] = by_id.emplace(s.identity, i); !fresh)
      return "refused: " + server_words(servers[it->second], it->second) + " and " +
             server_words(s, i) + " are one database (identity " + s.identity +
             "): list each server once; a copy or restore of a member is not a member";
  }
  // Each record must name this very database at its own place: a copied or restored
  // database carries the record of the member it was copied from.
  for (std::size_t i = 0; i < servers.size(); ++i) {
    const auto& s = servers[i];
    if (!s.record || s.identity.empty() || s.record->state == MemberState::retired) continue;
    const MemberRecord& r = *s.record;
    if (r.config.members.empty() && r.index < 0) continue;  // joining: nothing recorded yet
    const auto k = static_cast<std::int64_t>(r.config.members.size());
    if (r.index < 0 || r.index >= k)
      return "refused: " + server_words(s, i) + " holds a record of " + set + " at member index " +
             std::to_string(r.index) + " of " + std::to_string(k) + " members (a damaged record)";
    const auto& named = r.config.members[static_cast<std::size_t>(r.index)];
    if (named.id != s.identity)
      return "refused: " + server_words(s, i) + " is " + s.identity + " but its record of " + set +
             " names member " + std::to_string(r.index + 1) + " as " + named.id + " (" + named.url +
             "): a copy or restore of another member's database, which would hand out that "
             "member's values again";
  }
  // Records of one epoch must name the same members from the same first value: two inits of
  // one name, or a record re-created by hand, would interleave two unrelated sets.
  struct Seen {
    std::size_t pos;
    const TicketConfig* config;
  };
  std::map<std::int64_t, Seen> by_epoch;
  for (std::size_t i = 0; i < servers.size(); ++i) {
    const auto& s = servers[i];
    if (!s.record) continue;
    for (const TicketConfig* c : {&s.record->config, s.record->next ? &*s.record->next : nullptr}) {
      if (!c || c->members.empty()) continue;
      auto [it, fresh] = by_epoch.emplace(c->epoch, Seen{i, c});
      if (fresh) continue;
      const TicketConfig& o = *it->second.config;
      std::vector<std::string> a, b;
      for (const auto& m : o.members) a.push_back(m.id);
      for (const auto& m : c->members) b.push_back(m.id);
      const auto& os = servers[it->second.pos];
      if (a != b)
        return "refused: " + server_words(os, it->second.pos) + " and " + server_words(s, i) +
               " record different members for epoch " + std::to_string(c->epoch) + " of " + set +
               " (" + ids_words(o.members) + " against " + ids_words(c->members) +
               "): separate inits of one name or a record made by hand; they are not one set";
      if (o.first != c->first)
        return "refused: " + server_words(os, it->second.pos) + " and " + server_words(s, i) +
               " record different first values for epoch " + std::to_string(c->epoch) + " of " +
               set + " (" + std::to_string(o.first) + " against " + std::to_string(c->first) +
               "): they are not one set";
    }
  }
  return {};
}

}  // namespace detail

std::string describe_server(const ServerStatus& s, std::int64_t set_epoch) {
  if (!s.error.empty()) return "unreachable: " + s.error;
  if (!s.record) return "holds no record of the set";
  const MemberRecord& r = *s.record;
  switch (r.state) {
    case MemberState::active: {
      std::string out = "active in epoch " + std::to_string(r.config.epoch) + " as " +
                        member_words(r.config, r.index);
      if (r.config.epoch < set_epoch)
        out += "; STALE: the set is at epoch " + std::to_string(set_epoch) +
               " (this server was dropped while unreachable), clients that know epoch " +
               std::to_string(set_epoch) + " refuse its values; list it in a resize to retire it";
      return out;
    }
    case MemberState::retired:
      return "retired (left the set at epoch " + std::to_string(r.config.epoch) + ")";
    case MemberState::fenced: {
      std::string out = "fenced by " + r.token + ": hands out nothing";
      if (r.highest)
        out += ", highest value it handed out " + std::to_string(*r.highest) + " (in epoch " +
               std::to_string(r.config.epoch) + ")";
      else
        out += ", joining (never handed out a value)";
      if (!r.next) return out + "; nothing prepared yet";
      const std::int64_t idx = detail::index_of(*r.next, s.identity);
      if (idx < 0) return out + "; prepared to retire in epoch " + std::to_string(r.next->epoch);
      return out + "; prepared for epoch " + std::to_string(r.next->epoch) + " as " +
             member_words(*r.next, idx);
    }
  }
  return "?";
}

SetStatus read_ticket_set(std::span<const std::unique_ptr<TicketServer>> servers,
                          std::string_view name) {
  check_sequence_name(name);
  std::vector<ServerStatus> read;
  for (const auto& srv : servers) {
    ServerStatus s;
    s.url = srv->describe();
    try {
      s.identity = srv->identity();
      s.record = srv->read(name);
    } catch (const Error& e) {
      s.identity.clear();
      s.error = e.what();
    }
    read.push_back(std::move(s));
  }
  return detail::summarize_ticket_set(std::string(name), std::move(read));
}

namespace detail {

SetStatus summarize_ticket_set(std::string name, std::vector<ServerStatus> servers) {
  SetStatus st;
  st.name = std::move(name);
  st.servers = std::move(servers);
  st.conflict = find_conflict(st.name, st.servers);
  // The newest epoch any server records, and its members (any record of it names them).
  for (const auto& s : st.servers)
    if (s.record && s.record->config.epoch > st.epoch && !s.record->config.members.empty()) {
      st.epoch = s.record->config.epoch;
      st.members = s.record->config.members;
    }
  std::set<std::string> listed;
  for (const auto& s : st.servers)
    if (!s.identity.empty()) listed.insert(s.identity);
  for (const auto& m : st.members)
    if (!listed.count(m.id)) st.unlisted.push_back(m);

  // Unfinished runs: fenced records, grouped by the token that fenced them.
  std::map<std::string, std::vector<const ServerStatus*>> fenced;
  std::size_t held = 0;
  for (const auto& s : st.servers)
    if (s.record) {
      ++held;
      if (s.record->state == MemberState::fenced) fenced[s.record->token].push_back(&s);
    }
  const std::string set = "ticket set '" + st.name + "'";
  if (held == 0) {
    bool unreachable = false;
    for (const auto& s : st.servers) unreachable = unreachable || !s.error.empty();
    st.summary = set + " is on none of the listed servers" +
                 (unreachable ? " that answered" : std::string());
    return st;
  }
  if (fenced.empty()) {
    std::size_t stale = 0;
    for (const auto& s : st.servers)
      if (s.record && s.record->state == MemberState::active && s.record->config.epoch < st.epoch)
        ++stale;
    st.summary = set + " is at epoch " + std::to_string(st.epoch) + " with " +
                 std::to_string(st.members.size()) + " member(s)";
    st.summary += st.unlisted.empty()
                      ? ", all listed"
                      : ", " + std::to_string(st.unlisted.size()) + " of them not listed here";
    if (stale) st.summary += "; " + std::to_string(stale) + " stale server(s) of an older epoch";
    return st;
  }
  std::string parts;
  for (const auto& [token, list] : fenced) {
    // Decided: some server already hands out (or left at) the epoch this token prepared.
    std::int64_t next_epoch = 0;
    std::size_t prepared = 0;
    for (const auto* s : list)
      if (s->record->next) {
        next_epoch = s->record->next->epoch;
        ++prepared;
      }
    std::size_t activated = 0;
    for (const auto& s : st.servers)
      if (s.record && s.record->token == token && s.record->state != MemberState::fenced)
        ++activated;
    if (!parts.empty()) parts += "; ";
    const std::string run = (token.rfind("e1-", 0) == 0 ? "init " : "resize ") + token;
    if (activated > 0)
      parts += run + " to epoch " + std::to_string(next_epoch) +
               " is decided: " + std::to_string(activated) + " server(s) took its configuration, " +
               std::to_string(list.size()) +
               " are fenced with it prepared and hand out nothing; rerun with --resume to "
               "finish it";
    else
      parts += run + " is unfinished: " + std::to_string(list.size()) +
               " server(s) fenced (they hand out nothing), " + std::to_string(prepared) +
               " with a configuration prepared, none activated, so no value of a new epoch "
               "exists; rerun with --resume to take it over";
  }
  st.summary = set + " (epoch " + std::to_string(st.epoch) + "): " + parts;
  return st;
}

}  // namespace detail

std::string format_ticket_set(const SetStatus& st) {
  std::string out = st.summary + "\n";
  for (std::size_t i = 0; i < st.servers.size(); ++i) {
    const auto& s = st.servers[i];
    out += "  server " + std::to_string(i + 1) + " " + s.url;
    if (!s.identity.empty()) out += " [" + s.identity + "]";
    out += ": " + describe_server(s, st.epoch) + "\n";
  }
  for (const auto& m : st.unlisted)
    out += "  not listed: member " + m.url + " [" + m.id + "] of epoch " +
           std::to_string(st.epoch) + "\n";
  return out;
}

}  // namespace idforge::ticket
