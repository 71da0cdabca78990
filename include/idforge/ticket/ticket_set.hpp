// Creating, resizing and inspecting a ticket set across servers.
//
// Resize K -> K' is the step the multi-master scheme makes painful: every server must stop,
// the highest value handed out anywhere must be found, and every server must restart with
// the new step above it, although the servers share no transaction. resize_ticket_set()
// does it as fence, prepare, activate (docs/SEQUENCES.md tells it step by step):
//   1. read every listed server's record; refuse before changing anything when a member of
//      the current epoch is missing (unless dropped on purpose), a server is listed twice,
//      or an earlier run left fences (unless resumed);
//   2. fence each member, one server at a time in one canonical order: it stops handing out
//      values and records its highest one, atomically on that server;
//   3. prepare the new configuration (epoch + 1) on every member, still fenced;
//   4. activate each member: it hands out its new values, or retires.
// No transaction ever spans two servers and each step is atomic on its server, so a crash or
// an error between any two statements leaves fenced members (which hand out nothing) and
// members of one epoch (whose values are disjoint): never two configurations whose values
// meet. Once one member is activated every member has its configuration prepared, so a
// rerun with resume finishes the same resize; before that, a rerun starts afresh.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "idforge/error.hpp"
#include "idforge/ticket/ticket_errc.hpp"
#include "idforge/ticket/ticket_server.hpp"

namespace idforge::ticket {

/// Choices an init or a resize needs beyond the servers.
struct ResizeOptions {
  /// Members of the current epoch to leave out although they cannot be fenced (down for
  /// good): each names one by the URL it was recorded with (password hidden or not) or by its
  /// identity. A dropped member that still runs keeps handing out its old values, so gap
  /// must keep them apart from the new ones, and clients that know the new epoch refuse them.
  std::vector<std::string> drop;
  /// With drop: the new values start this far above the highest value known (>= 1; e.g. what
  /// a dropped member could hand out before it is noticed, times K). 0 without drop.
  std::int64_t gap = 0;
  /// Finish or take over an init or resize that left members fenced (it crashed or failed).
  /// Without it such a set is refused, since the other run may still be going.
  bool resume = false;
};

/// What an init or resize did.
struct ResizeReport {
  std::int64_t old_k = 0;          ///< members of the epoch before (0 for init)
  std::int64_t new_k = 0;          ///< members now (the first new_k in the list)
  std::int64_t epoch = 0;          ///< the epoch now
  std::int64_t highest = 0;        ///< highest value handed out before, as far as known
  std::int64_t gap = 0;            ///< values skipped above it for dropped members
  std::int64_t first = 0;          ///< member 0's first value (> highest + gap, = 1 mod new_k)
  std::vector<MemberRef> dropped;  ///< members left out unfenced
  std::vector<MemberRef> retired;  ///< servers that left the set
  /// An earlier run this one finished first (resume): its token, and the epoch it reached.
  std::string finished_token;
  std::int64_t finished_epoch = 0;
  /// True when finishing that run already reached what was asked: nothing else was done.
  bool only_finished = false;
};

/// One listed server as read_ticket_set() found it.
struct ServerStatus {
  std::string url;                     ///< password hidden
  std::string identity;                ///< empty when it did not answer
  std::optional<MemberRecord> record;  ///< nullopt: it holds no record of the set
  std::string error;                   ///< non-empty: why it could not be read
};

/// Where a set stands on the listed servers.
struct SetStatus {
  std::string name;
  std::int64_t epoch = 0;             ///< the newest epoch any listed server records
  std::vector<MemberRef> members;     ///< that epoch's members
  std::vector<MemberRef> unlisted;    ///< of those, the ones no listed server is
  std::vector<ServerStatus> servers;  ///< in list order
  std::string summary;                ///< one line: consistent, or what is unfinished
  /// Non-empty when the records cannot be one set: one line naming the servers and what
  /// differs (a server that is not the member its record names, i.e. a copy or restore of
  /// another member; one database listed twice; two records of one epoch with different
  /// members or first values, i.e. separate inits of one name). Such a set is refused by
  /// `ticket next`, `status` and resize_ticket_set(), never merged.
  std::string conflict;
};

/// An init or resize that stopped: what() is one line that says what failed and what state
/// each listed server is in; status() has the same as data.
class TicketSetError : public Error {
 public:
  TicketSetError(std::error_code code, const std::string& message, SetStatus status)
      : Error(code, message), status_(std::move(status)) {}
  const SetStatus& status() const noexcept { return status_; }

 private:
  SetStatus status_;
};

/// Creates set name on every server, all or nothing: server i hands out start+i, start+i+K,
/// ... (K = servers.size()). Every server must answer; ticket_errc::already_exists if any holds the
/// set (nothing is created); errc::invalid_argument unless 1 <= start and start + K - 1 <=
/// 2^63-1. Failing half-way it removes what it created, or says what is left.
ResizeReport init_ticket_set(std::span<const std::unique_ptr<TicketServer>> servers,
                             std::string_view name, std::int64_t start = 1,
                             const ResizeOptions& options = {});

/// Moves set name to the first new_k servers of the list (1 <= new_k <= servers listed).
/// Every member of the current epoch must be listed and answer, or be dropped (options);
/// other listed servers that hold the set retire. The new values start above every value
/// handed out before (and the gap). Throws TicketSetError naming each server's state when it
/// stops; errc::invalid_argument (nothing changed) for a server listed twice, a member not
/// accounted for, a drop without a gap.
ResizeReport resize_ticket_set(std::span<const std::unique_ptr<TicketServer>> servers,
                               std::string_view name, std::int64_t new_k,
                               const ResizeOptions& options = {});

/// Reads set name's record on every listed server (a server that does not answer gets its
/// error) and sums up where the set stands. Changes nothing.
SetStatus read_ticket_set(std::span<const std::unique_ptr<TicketServer>> servers,
                          std::string_view name);

/// status as text: the summary, then one line per listed server, then the unlisted members.
std::string format_ticket_set(const SetStatus& status);

/// One server's state in words ("active in epoch 3 as member 2 of 3: values 8, 11, ...").
std::string describe_server(const ServerStatus& server, std::int64_t set_epoch);

}  // namespace idforge::ticket
