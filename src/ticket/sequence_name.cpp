#include "idforge/ticket/sequence_name.hpp"

#include <string>

#include "idforge/error.hpp"

namespace idforge::ticket {

std::string_view check_sequence_name(std::string_view name) {
  const auto fail = [&](const std::string& why) {
    throw Error(errc::invalid_argument,
                "sequence name '" + std::string(name) + "' is invalid: " + why +
                    " (rule: 1-40 characters of a-z, 0-9 and _, starting with a letter)");
  };
  if (name.empty()) fail("it is empty");
  if (name.size() > kMaxSequenceName) fail("it has " + std::to_string(name.size()) + " characters");
  if (name[0] < 'a' || name[0] > 'z') fail("it starts with '" + std::string(1, name[0]) + "'");
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
      fail("character '" + std::string(1, c) + "' at position " + std::to_string(i));
  }
  return name;
}

}  // namespace idforge::ticket
