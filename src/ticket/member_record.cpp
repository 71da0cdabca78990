#include "member_record.hpp"

#include <charconv>
#include <cstdio>

#include "idforge/error.hpp"
#include "idforge/random.hpp"

namespace idforge::ticket {

std::string_view to_string(MemberState s) noexcept {
  switch (s) {
    case MemberState::active:
      return "active";
    case MemberState::fenced:
      return "fenced";
    case MemberState::retired:
      return "retired";
  }
  return "?";
}

namespace detail {
namespace {

std::int64_t to_int(std::string_view t, std::string_view where) {
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size())
    throw Error(errc::invalid_argument, "ticket record on " + std::string(where) + " holds '" +
                                            std::string(t) + "' where an integer belongs");
  return v;
}

}  // namespace

std::string encode_members(const std::vector<MemberRef>& members) {
  std::string out;
  for (const auto& m : members) out += m.id + " " + m.url + "\n";
  return out;
}

std::vector<MemberRef> decode_members(std::string_view text) {
  std::vector<MemberRef> out;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    if (line.empty()) continue;
    const auto sp = line.find(' ');
    out.push_back({std::string(line.substr(0, sp)), sp == std::string_view::npos
                                                        ? std::string()
                                                        : std::string(line.substr(sp + 1))});
  }
  return out;
}

MemberRecord parse_record(const std::function<std::optional<std::string_view>(int)>& col,
                          std::string_view where) {
  const auto text = [&](int i) { return std::string(col(i).value_or("")); };
  const auto num = [&](int i) { return to_int(col(i).value_or("0"), where); };
  MemberRecord r;
  const std::string state = text(0);
  if (state == "active")
    r.state = MemberState::active;
  else if (state == "fenced")
    r.state = MemberState::fenced;
  else if (state == "retired")
    r.state = MemberState::retired;
  else
    throw Error(errc::invalid_argument,
                "ticket record on " + std::string(where) + " has unknown state '" + state + "'");
  r.config.epoch = num(1);
  r.config.first = num(2);
  r.config.members = decode_members(text(3));
  r.config.dropped = decode_members(text(4));
  r.config.gap = num(5);
  r.index = num(6);
  r.token = text(7);
  if (col(8)) r.highest = num(8);
  if (col(9)) {
    TicketConfig n;
    n.epoch = num(9);
    n.first = num(10);
    n.members = decode_members(text(11));
    n.dropped = decode_members(text(12));
    n.gap = num(13);
    r.next = std::move(n);
  }
  r.version = num(14);
  return r;
}

MemberValues values_of(const TicketConfig& c, std::int64_t index) {
  MemberValues v;
  v.step = c.k();
  if (index < 0 || v.step == 0) return v;
  v.first = c.first + index;
  v.residue = (v.first - 1) % v.step + 1;
  return v;
}

std::int64_t index_of(const TicketConfig& c, std::string_view id) {
  for (std::size_t i = 0; i < c.members.size(); ++i)
    if (c.members[i].id == id) return static_cast<std::int64_t>(i);
  return -1;
}

std::string new_token(std::int64_t epoch) {
  const std::uint64_t r = random_u64();
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(r));
  return "e" + std::to_string(epoch) + "-" + hex;
}

}  // namespace detail
}  // namespace idforge::ticket
