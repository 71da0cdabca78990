#include "idforge/error.hpp"

#include <string>

namespace idforge {
namespace {

class Category final : public std::error_category {
 public:
  const char* name() const noexcept override { return "idforge"; }
  std::string message(int ev) const override {
    switch (static_cast<errc>(ev)) {
      case errc::invalid_layout: return "invalid layout";
      case errc::epoch_in_future: return "epoch in the future";
      case errc::node_out_of_range: return "node ID out of range";
      case errc::clock_moved_backwards: return "clock moved backwards";
      case errc::clock_before_epoch: return "clock reads before the epoch";
      case errc::time_exhausted: return "time field exhausted";
      case errc::forked: return "generator used in a forked child without its own node ID";
      case errc::fenced: return "generator fenced: lease deadline reached";
      case errc::parse_error: return "parse error";
      case errc::counter_exhausted: return "counter exhausted";
      case errc::lease_error: return "lease error";
      case errc::store_unreachable: return "store unreachable";
      case errc::invalid_argument: return "invalid argument";
      case errc::not_found: return "not found";
      case errc::already_exists: return "already exists";
      case errc::key_error: return "masking key missing, malformed or unknown";
      case errc::not_ours: return "public ID not made with this keyring";
    }
    return "unknown idforge error " + std::to_string(ev);
  }
};

std::string parse_message(std::string_view what_kind, std::string_view input, std::size_t pos,
                          std::string_view reason) {
  std::string m = "invalid ";
  m += what_kind;
  m += " '";
  m += input;
  m += "' at position ";
  m += std::to_string(pos);
  m += ": ";
  m += reason;
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
