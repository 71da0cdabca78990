#include "idforge/error.hpp"

#include "idforge/detail/printable.hpp"

#include <algorithm>
#include <string>

namespace idforge {
namespace {

class Category final : public std::error_category {
 public:
  const char* name() const noexcept override { return "idforge"; }
  std::string message(int ev) const override {
    switch (static_cast<errc>(ev)) {
      case errc::invalid_layout:
        return "invalid layout";
      case errc::epoch_in_future:
        return "epoch in the future";
      case errc::node_out_of_range:
        return "node ID out of range";
      case errc::clock_moved_backwards:
        return "clock moved backwards";
      case errc::clock_before_epoch:
        return "clock reads before the epoch";
      case errc::time_exhausted:
        return "time field exhausted";
      case errc::forked:
        return "generator used in a forked child without its own node ID";
      case errc::fenced:
        return "generator fenced: lease deadline reached";
      case errc::parse_error:
        return "parse error";
      case errc::counter_exhausted:
        return "counter exhausted";
      case errc::invalid_argument:
        return "invalid argument";
      case errc::key_error:
        return "masking key missing, malformed or unknown";
      case errc::not_ours:
        return "public ID not made with this keyring";
    }
    return "unknown idforge error " + std::to_string(ev);
  }
};

// Moves a cut back to the start of a UTF-8 sequence so that shortening never splits one.
std::size_t utf8_floor(std::string_view s, std::size_t at) {
  while (at > 0 && at < s.size() && (static_cast<unsigned char>(s[at]) & 0xC0) == 0x80) --at;
  return at;
}

// A message names the offending value, but a megabyte of input must not become a megabyte of
// error text in a log line or an HTTP answer: long input is shown as its head, the bytes around
// the position when that lies further in, and its length.
// Input is quoted escaped (detail::printable): what() is a C string, and a NUL echoed from
// the input would end the message there, in every C, Python or Node caller, before the
// position and the rule; control bytes would act on a terminal or split a log line; bytes
// that are not UTF-8 would reach Python and Node as replacement characters and C as text
// no UTF-8 reader takes. So NUL is \x00, ESC \x1b, a newline \n, a stray 0xff \xff.
void append_quoted(std::string& m, std::string_view part) {
  m += detail::printable(part);
}

std::string bounded_input(std::string_view input, std::size_t pos) {
  constexpr std::size_t kWhole = 128, kHead = 48, kAround = 16;
  std::string m;
  if (input.size() <= kWhole) {
    append_quoted(m, input);
    return m;
  }
  append_quoted(m, input.substr(0, utf8_floor(input, kHead)));
  m += "...";
  if (pos > kHead + kAround) {
    const std::size_t from = utf8_floor(input, pos - kAround);
    const std::size_t to = utf8_floor(input, std::min(input.size(), pos + kAround));
    append_quoted(m, input.substr(from, to - from));
    if (to < input.size()) m += "...";
  }
  m += " (" + std::to_string(input.size()) + " bytes)";
  return m;
}

std::string parse_message(std::string_view what_kind, std::string_view input, std::size_t pos,
                          std::string_view reason) {
  std::string m = "invalid ";
  m += what_kind;
  m += " '";
  m += bounded_input(input, pos);
  m += "' at position ";
  m += std::to_string(pos);
  m += ": ";
  // A reason may quote a value from the input too ("got '...'"): keep it bounded, but keep
  // its head and its tail, since a rule's last words are often the hint ("... with
  // --encoding)"). The rules themselves stay under 512 bytes and are never cut.
  m += detail::shortened(reason, 512);
  return m;
}

}  // namespace

const std::error_category& error_category() noexcept {
  static const Category category;
  return category;
}

ParseError::ParseError(std::string_view what_kind, std::string_view input, std::size_t position,
                       std::string_view reason)
    : Error(errc::parse_error, parse_message(what_kind, input, position, reason)),
      input_(input),
      position_(position),
      reason_(reason) {}

}  // namespace idforge
