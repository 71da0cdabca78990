// init and resize: one protocol (read, fence, prepare, activate; see ticket_set.hpp and
// docs/SEQUENCES.md). An init is a resize from nothing: every server joins, epoch 1.
#include "idforge/ticket/ticket_set.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <string>

#include "idforge/ticket/sequence_name.hpp"
#include "idforge/ticket/store_url.hpp"
#include "idforge/ticket/ticket_errc.hpp"
#include "member_record.hpp"
#include "set_status.hpp"

namespace idforge::ticket {
namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

// A listed server as read at the start (and again after finishing an earlier run).
struct Listed {
  TicketServer* server = nullptr;
  std::size_t pos = 0;  // 0-based place in the list
  std::string id;       // empty: did not answer
  std::optional<MemberRecord> rec;
  std::string error;
  std::error_code error_code = ticket_errc::store_unreachable;
};

std::string server_words(const Listed& l) {
  return "server " + std::to_string(l.pos + 1) + " (" + l.server->describe() + ")";
}

std::vector<Listed> read_all(std::span<const std::unique_ptr<TicketServer>> servers,
                             std::string_view name) {
  std::vector<Listed> out;
  for (std::size_t i = 0; i < servers.size(); ++i) {
    Listed l;
    l.server = servers[i].get();
    l.pos = i;
    try {
      l.id = l.server->identity();
      l.rec = l.server->read(name);
    } catch (const Error& e) {
      l.id.clear();
      l.error = e.what();
      l.error_code = e.code();
    }
    out.push_back(std::move(l));
  }
  return out;
}

// The same database twice would be fenced twice, take two places and hand out overlapping
// values, so it is refused before anything changes.
void check_duplicates(const std::vector<Listed>& all) {
  std::map<std::string, const Listed*> by_id, by_url;
  for (const auto& l : all) {
    const auto twice = [&](const Listed& other, const std::string& what) {
      throw Error(errc::invalid_argument, server_words(other) + " and " + server_words(l) +
                                              " are the same server (" + what +
                                              "): list each server once; nothing changed");
    };
    if (auto [it, fresh] = by_url.emplace(l.server->describe(), &l); !fresh)
      twice(*it->second, "same URL");
    if (l.id.empty()) continue;
    if (auto [it, fresh] = by_id.emplace(l.id, &l); !fresh) twice(*it->second, "identity " + l.id);
  }
}

// Does a --drop entry name this member? By identity, or by URL with passwords hidden.
bool names(const std::string& entry, const MemberRef& m) {
  return entry == m.id || redact_url(entry) == m.url;
}

std::string refs_words(const std::vector<MemberRef>& refs) {
  std::string out;
  for (const auto& r : refs) out += (out.empty() ? "" : ", ") + r.url;
  return out;
}

// The smallest value above `above` that is 1 (mod k), or nullopt past 2^63-1.
std::optional<std::int64_t> aligned_first(std::int64_t above, std::int64_t k) {
  if (above >= kMax) return std::nullopt;
  const std::int64_t from = std::max<std::int64_t>(above, 0) + 1;
  const std::int64_t r = (from - 1) % k;
  if (r != 0 && from > kMax - (k - r)) return std::nullopt;
  const std::int64_t first = r == 0 ? from : from + (k - r);
  if (first > kMax - (k - 1)) return std::nullopt;
  return first;
}

class Run {
 public:
  Run(std::span<const std::unique_ptr<TicketServer>> servers, std::string_view name, bool init,
      std::int64_t new_k, std::int64_t start, const ResizeOptions& opt)
      : servers_(servers), name_(name), init_(init), new_k_(new_k), start_(start), opt_(opt) {}

  ResizeReport go();

 private:
  void check_one_set() const;
  [[noreturn]] void stop(std::error_code code, const std::string& what, const std::string& advice);
  void finish_decided();
  void plan();
  void fence_all();
  void prepare_all();
  void activate_all();
  std::string verb() const { return init_ ? "init" : "resize"; }

  std::span<const std::unique_ptr<TicketServer>> servers_;
  std::string name_;
  bool init_;
  std::int64_t new_k_;
  std::int64_t start_;
  ResizeOptions opt_;

  std::vector<Listed> all_;
  ResizeReport rep_;
  std::string token_;
  TicketConfig next_;
  std::vector<Listed*> fence_targets_;          // canonical order
  std::vector<Listed*> changes_;                // everyone prepared, canonical order
  std::map<std::string, MemberRecord> fenced_;  // by identity, after our fence
  std::int64_t highest_ = std::numeric_limits<std::int64_t>::min();
  std::size_t activated_ = 0;
};

void Run::stop(std::error_code code, const std::string& what, const std::string& advice) {
  SetStatus st = read_ticket_set(servers_, name_);
  std::string states;
  for (std::size_t i = 0; i < st.servers.size(); ++i)
    states += (i ? "; " : "") + std::string("server ") + std::to_string(i + 1) + " (" +
              st.servers[i].url + "): " + describe_server(st.servers[i], st.epoch);
  throw TicketSetError(code,
                       verb() + " of ticket set '" + name_ + "' " + what + ". " + advice +
                           (states.empty() ? "" : " Servers now: " + states),
                       std::move(st));
}

// Records that cannot be one set (a copy of a member, separate inits of one name) are
// refused before anything changes: a resize would fence and renumber them as one.
void Run::check_one_set() const {
  std::vector<ServerStatus> read;
  for (const auto& l : all_) read.push_back({l.server->describe(), l.id, l.rec, l.error});
  const std::string conflict = detail::find_conflict(name_, read);
  if (!conflict.empty())
    throw Error(errc::invalid_argument,
                verb() + " of ticket set '" + name_ + "' " + conflict + "; nothing changed");
}

// An earlier run that activated one member has every member prepared: finish it (each
// activation is conditional on its token, so a run still going and this one cannot clash).
void Run::finish_decided() {
  std::set<std::string> decided;
  for (const auto& l : all_)
    if (l.rec && l.rec->state != MemberState::fenced)
      for (const auto& f : all_)
        if (f.rec && f.rec->state == MemberState::fenced && f.rec->token == l.rec->token &&
            f.rec->next && f.rec->next->epoch == l.rec->config.epoch)
          decided.insert(l.rec->token);
  if (decided.empty()) return;
  std::vector<Listed*> order;
  for (auto& l : all_)
    if (l.rec && l.rec->state == MemberState::fenced && decided.count(l.rec->token))
      order.push_back(&l);
  std::sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->id < b->id; });
  for (Listed* l : order) {
    try {
      const MemberRecord r = l->server->activate(name_, l->rec->token);
      rep_.finished_token = r.token;
      rep_.finished_epoch = r.config.epoch;
    } catch (const Error& e) {
      stop(e.code(),
           "could not finish the earlier run " + l->rec->token + " on " + server_words(*l) + ": " +
               e.what(),
           "That run is decided (other servers hand out its values); this server stays fenced "
           "and hands out nothing. Rerun with --resume once it answers.");
    }
  }
  all_ = read_all(servers_, name_);
}

void Run::plan() {
  const auto refuse = [&](std::error_code code, const std::string& why) {
    throw Error(code, verb() + " of ticket set '" + name_ + "' refused, nothing changed: " + why);
  };
  // Every server that will take part must answer.
  for (std::size_t i = 0; i < all_.size(); ++i) {
    const Listed& l = all_[i];
    if (!l.error.empty() && (init_ || static_cast<std::int64_t>(i) < new_k_))
      refuse(ticket_errc::store_unreachable, server_words(l) + " must answer: " + l.error);
  }
  if (init_) {
    for (const auto& l : all_) {
      if (!l.rec) continue;
      const bool unfinished_init = l.rec->state == MemberState::fenced && l.rec->config.epoch == 0;
      if (unfinished_init && opt_.resume) continue;
      if (l.rec->state == MemberState::retired)
        refuse(ticket_errc::already_exists,
               server_words(l) + " left the set at epoch " + std::to_string(l.rec->config.epoch) +
                   "; the set lives on: " + refs_words(l.rec->config.members));
      refuse(ticket_errc::already_exists,
             "ticket set '" + name_ + "' already exists on " + server_words(l));
    }
    if (start_ < 1 || start_ > kMax - (new_k_ - 1))
      refuse(errc::invalid_argument,
             "start " + std::to_string(start_) + " with " + std::to_string(new_k_) +
                 " servers needs 1 <= start and start + " + std::to_string(new_k_ - 1) +
                 " <= 2^63-1 (the last server's first value)");
    rep_.epoch = 1;
  }

  // The current epoch and every member that may hold values: those of the newest epoch and
  // those of any configuration an unfinished run prepared (one of them may be active).
  std::int64_t epoch = 0, newest = 0;
  std::vector<MemberRef> members;
  std::int64_t base = 0;  // every value of an epoch before the current one lies below it
  for (const auto& l : all_) {
    if (!l.rec) continue;
    newest = std::max(newest, l.rec->config.epoch);
    if (l.rec->next) newest = std::max(newest, l.rec->next->epoch);
    if (l.rec->config.epoch > epoch && !l.rec->config.members.empty()) {
      epoch = l.rec->config.epoch;
      members = l.rec->config.members;
      base = l.rec->config.first;
    }
  }
  // A member of the newest epoch still active in an older one: the servers were read while
  // another run moved them (some before its fence, some after its activation). Fencing from
  // such a view would win the first server and fail on the next, leaving a fence behind.
  for (const auto& l : all_)
    if (l.rec && l.rec->state == MemberState::active && l.rec->config.epoch < epoch &&
        std::any_of(members.begin(), members.end(),
                    [&](const MemberRef& m) { return m.id == l.id; }))
      refuse(errc::fenced, server_words(l) + " is active in epoch " +
                               std::to_string(l.rec->config.epoch) + " but a member of epoch " +
                               std::to_string(epoch) +
                               ": the set changed meanwhile (another resize ran at the same "
                               "time); rerun to resize from where it ended");
  // A member of the newest epoch that holds no record at all: it was read before the run that
  // made that epoch wrote its record there, and the others after that run activated them.
  // Fencing from such a view fences the others and then fails on this one.
  for (const auto& l : all_)
    if (!l.rec && !l.id.empty() && epoch > 0 &&
        std::any_of(members.begin(), members.end(),
                    [&](const MemberRef& m) { return m.id == l.id; }))
      refuse(errc::fenced, server_words(l) +
                               " holds no record of the set but is a member of "
                               "epoch " +
                               std::to_string(epoch) +
                               ": the set changed meanwhile (another resize ran at the same "
                               "time); rerun to resize from where it ended");
  // The same for a server the newest epoch retired: still active in the epoch before and not
  // dropped (left out unfenced) by the resize that made the newest one, it was read before
  // that resize fenced it, and the rest after it activated them.
  const std::vector<MemberRef>* newest_dropped = nullptr;
  for (const auto& l : all_)
    if (l.rec && l.rec->config.epoch == epoch && !l.rec->config.members.empty())
      newest_dropped = &l.rec->config.dropped;
  for (const auto& l : all_)
    if (newest_dropped && l.rec && l.rec->state == MemberState::active &&
        l.rec->config.epoch == epoch - 1 &&
        std::none_of(newest_dropped->begin(), newest_dropped->end(),
                     [&](const MemberRef& m) { return m.id == l.id; }))
      refuse(errc::fenced, server_words(l) + " is active in epoch " +
                               std::to_string(l.rec->config.epoch) + " but epoch " +
                               std::to_string(epoch) +
                               " neither has it as a member nor dropped it: the set changed "
                               "meanwhile (another resize ran at the same time); rerun to resize "
                               "from where it ended");
  std::vector<MemberRef> required = members;
  for (const auto& l : all_)
    if (l.rec && l.rec->next) {
      base = std::max(base, l.rec->next->first);
      for (const auto& m : l.rec->next->members)
        if (std::find(required.begin(), required.end(), m) == required.end()) required.push_back(m);
    }
  if (!init_) {
    if (epoch == 0 && required.empty())
      refuse(ticket_errc::not_found, "no listed server holds ticket set '" + name_ +
                                         "': create it with `idforge ticket init`");
    rep_.old_k = static_cast<std::int64_t>(members.size());
    rep_.epoch = newest + 1;
  }
  highest_ = base - 1;

  // Each required member is listed and answers, or is dropped on purpose.
  std::set<std::string> reachable;
  for (const auto& l : all_)
    if (!l.id.empty()) reachable.insert(l.id);
  std::vector<bool> drop_used(opt_.drop.size(), false);
  for (const auto& m : required) {
    if (reachable.count(m.id)) {
      for (std::size_t d = 0; d < opt_.drop.size(); ++d)
        if (names(opt_.drop[d], m))
          refuse(errc::invalid_argument, "--drop " + redact_url(opt_.drop[d]) +
                                             " names a member that answers: list it and the "
                                             "resize fences and retires it safely");
      continue;
    }
    bool dropped = false;
    for (std::size_t d = 0; d < opt_.drop.size(); ++d)
      if (names(opt_.drop[d], m)) dropped = drop_used[d] = true;
    // Only a member that does not answer may be dropped: one that refuses the login (a
    // wrong password in its URL) runs and keeps handing out its values.
    for (const auto& l : all_)
      if (dropped && l.id.empty() && l.server->describe() == m.url &&
          l.error_code != ticket_errc::store_unreachable)
        refuse(errc::invalid_argument, "--drop names member " + m.url +
                                           ", which answers but refused: " + l.error +
                                           "; only a member that does not answer can be "
                                           "dropped: fix its URL and list it");
    if (dropped) {
      rep_.dropped.push_back(m);
      continue;
    }
    const Listed* listed = nullptr;
    for (const auto& l : all_)
      if (l.id.empty() && l.server->describe() == m.url) listed = &l;
    refuse(ticket_errc::store_unreachable,
           "member " + m.url + " [" + m.id + "] " +
               (listed ? "does not answer (" + listed->error + ")" : "is not listed in --servers") +
               ", and without it the highest value handed out is unknown. List it and make it "
               "answer, or, if it is gone for good, drop it: --drop " +
               m.url +
               " --gap N, where N exceeds what it may have handed out beyond the others (it is "
               "not fenced: if it comes back it keeps its old values until retired, clients "
               "that know the new epoch refuse them, and the gap keeps them apart)");
  }
  for (std::size_t d = 0; d < opt_.drop.size(); ++d)
    if (!drop_used[d])
      refuse(errc::invalid_argument, "--drop " + redact_url(opt_.drop[d]) +
                                         " is no member of epoch " + std::to_string(epoch) +
                                         " (members: " + refs_words(required) + ")");
  if (!rep_.dropped.empty() && opt_.gap < 1)
    refuse(errc::invalid_argument,
           "dropping " + refs_words(rep_.dropped) +
               " needs --gap N >= 1: how far above the highest known value the new values start");
  if (rep_.dropped.empty() && opt_.gap != 0)
    refuse(errc::invalid_argument, "--gap " + std::to_string(opt_.gap) +
                                       " applies only with --drop (no member is dropped)");
  rep_.gap = opt_.gap;

  // Who is fenced, who is prepared: every listed server holding the set takes part (stale
  // ones and leavers retire), plus the new members.
  for (auto& l : all_)
    if (l.rec && l.rec->state != MemberState::retired && !l.id.empty())
      fence_targets_.push_back(&l);
  std::sort(fence_targets_.begin(), fence_targets_.end(),
            [](auto* a, auto* b) { return a->id < b->id; });
  for (std::int64_t i = 0; i < new_k_; ++i) {
    const Listed& l = all_[static_cast<std::size_t>(i)];
    next_.members.push_back({l.id, l.server->describe()});
  }
  next_.epoch = rep_.epoch;
  next_.dropped = rep_.dropped;
  next_.gap = rep_.gap;
  for (auto& l : all_) {
    const bool member = static_cast<std::int64_t>(l.pos) < new_k_;
    const bool holds = l.rec && l.rec->state != MemberState::retired;
    if (member || holds) changes_.push_back(&l);
    if (!member && holds) rep_.retired.push_back({l.id, l.server->describe()});
  }
  std::sort(changes_.begin(), changes_.end(), [](auto* a, auto* b) { return a->id < b->id; });
  token_ = detail::new_token(rep_.epoch);
}

void Run::fence_all() {
  for (Listed* l : fence_targets_) {
    try {
      const MemberRecord r = l->server->fence(name_, l->rec->version, token_);
      if (r.highest) highest_ = std::max(highest_, *r.highest);
      fenced_[l->id] = r;
    } catch (const Error& e) {
      const std::string what = "stopped while fencing " + server_words(*l) + ": " + e.what();
      if (fenced_.empty()) stop(e.code(), what, "Nothing changed.");
      stop(e.code(), what,
           "No server hands out a value of a new epoch; the fenced ones hand out nothing until "
           "a resize finishes: rerun with --resume.");
    }
  }
}

void Run::prepare_all() {
  // The new values start above everything handed out before, and above the gap.
  std::int64_t above = highest_;
  if (rep_.gap > 0) {
    if (above > kMax - rep_.gap)
      above = kMax;
    else
      above += rep_.gap;
  }
  rep_.highest = highest_;
  if (init_) {
    next_.first = start_;
  } else {
    const auto first = aligned_first(above, new_k_);
    if (!first)
      stop(errc::counter_exhausted,
           "cannot continue: the highest value handed out is " + std::to_string(highest_) +
               " and " + std::to_string(new_k_) + " servers would pass 2^63-1",
           "The fenced servers hand out nothing; the set has run out of values.");
    next_.first = *first;
  }
  rep_.first = next_.first;
  rep_.new_k = new_k_;
  for (Listed* l : changes_) {
    try {
      // Fenced by this run: matched by the token. Retired and rejoining: by its version.
      // New here: no record yet (nullopt).
      std::optional<std::int64_t> version;
      if (const auto f = fenced_.find(l->id); f != fenced_.end())
        version = f->second.version;
      else if (l->rec)
        version = l->rec->version;
      l->server->prepare(name_, version, token_, next_);
    } catch (const Error& e) {
      const std::string what = "stopped while preparing " + server_words(*l) + ": " + e.what();
      if (init_) {
        // All or nothing: remove what this run created (it never handed out a value).
        std::string left;
        for (Listed* c : changes_) {
          try {
            c->server->discard(name_, token_);
          } catch (const Error&) {
            left += (left.empty() ? "" : ", ") + c->server->describe();
          }
        }
        stop(e.code(), what,
             left.empty() ? "Nothing was created."
                          : "Could not remove the records it made on " + left +
                                " (fenced, never active): rerun init with --resume.");
      }
      stop(e.code(), what,
           "No server hands out a value of a new epoch; the fenced ones hand out nothing until "
           "a resize finishes: rerun with --resume.");
    }
  }
}

void Run::activate_all() {
  for (Listed* l : changes_) {
    try {
      l->server->activate(name_, token_);
      ++activated_;
    } catch (const Error& e) {
      const std::string what = "stopped while activating " + server_words(*l) + ": " + e.what();
      if (activated_ == 0)
        stop(e.code(), what,
             "No server took the new configuration yet; the fenced ones hand out nothing until "
             "a resize finishes: rerun with --resume.");
      stop(e.code(), what,
           "The new configuration (epoch " + std::to_string(rep_.epoch) +
               ") is decided: every member has it prepared, " + std::to_string(activated_) +
               " hand(s) out its values; the rest stay fenced (they never hand out old values): "
               "rerun with --resume to finish.");
    }
  }
}

ResizeReport Run::go() {
  all_ = read_all(servers_, name_);
  check_duplicates(all_);
  check_one_set();
  bool fenced = false;
  std::string fenced_by;
  for (const auto& l : all_)
    if (l.rec && l.rec->state == MemberState::fenced) {
      fenced = true;
      fenced_by = l.rec->token;
    }
  if (fenced) {
    if (!opt_.resume) {
      // Described as read: the other run may have moved on since.
      std::vector<ServerStatus> seen;
      for (const auto& l : all_) seen.push_back({l.server->describe(), l.id, l.rec, l.error});
      SetStatus st = detail::summarize_ticket_set(name_, std::move(seen));
      const std::string summary = st.summary;
      throw TicketSetError(
          errc::fenced,
          verb() + " of ticket set '" + name_ +
              "' refused, nothing changed: another run has servers fenced: " + summary +
              ". If it is still going, wait for it; if it stopped, rerun with "
              "--resume; `idforge ticket status` shows each server",
          std::move(st));
    }
    finish_decided();
    // The earlier run reached exactly what is asked now: nothing more to do.
    if (!rep_.finished_token.empty()) {
      bool same = true;
      std::int64_t k = 0;
      for (const auto& l : all_)
        if (l.rec && l.rec->state == MemberState::active) {
          ++k;
          same = same && static_cast<std::int64_t>(l.pos) == l.rec->index &&
                 l.rec->token == rep_.finished_token;
        } else if (l.rec && l.rec->state == MemberState::fenced) {
          same = false;
        }
      if (same && k == new_k_) {
        rep_.only_finished = true;
        rep_.new_k = k;
        rep_.epoch = rep_.finished_epoch;
        for (const auto& l : all_)
          if (l.rec && l.rec->state == MemberState::active && l.rec->index == 0)
            rep_.first = l.rec->config.first;
        return rep_;
      }
    }
  }
  plan();
  fence_all();
  prepare_all();
  activate_all();
  return rep_;
}

void check_k(std::int64_t k, std::size_t listed, const std::string& what) {
  const auto limit = std::min<std::int64_t>(static_cast<std::int64_t>(listed), kMaxTicketServers);
  if (k < 1 || k > limit)
    throw Error(errc::invalid_argument, what + " " + std::to_string(k) +
                                            " servers needs 1 <= K <= " + std::to_string(limit) +
                                            " (the number of servers listed)");
}

}  // namespace

ResizeReport init_ticket_set(std::span<const std::unique_ptr<TicketServer>> servers,
                             std::string_view name, std::int64_t start,
                             const ResizeOptions& options) {
  check_sequence_name(name);
  if (servers.empty() || static_cast<std::int64_t>(servers.size()) > kMaxTicketServers)
    throw Error(errc::invalid_argument, "a ticket set needs 1.." +
                                            std::to_string(kMaxTicketServers) + " servers, not " +
                                            std::to_string(servers.size()));
  if (!options.drop.empty() || options.gap != 0)
    throw Error(errc::invalid_argument, "init drops no member: --drop and --gap are for resize");
  Run run(servers, name, true, static_cast<std::int64_t>(servers.size()), start, options);
  return run.go();
}

ResizeReport resize_ticket_set(std::span<const std::unique_ptr<TicketServer>> servers,
                               std::string_view name, std::int64_t new_k,
                               const ResizeOptions& options) {
  check_sequence_name(name);
  check_k(new_k, servers.size(), "resize to");
  if (options.gap < 0)
    throw Error(errc::invalid_argument, "--gap " + std::to_string(options.gap) + " must be >= 0");
  Run run(servers, name, false, new_k, 0, options);
  return run.go();
}

}  // namespace idforge::ticket
