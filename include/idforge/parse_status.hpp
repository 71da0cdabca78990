// ParseStatus: the result of every non-throwing text parser of the ID families.
//
// Each text family (Uuid, Ulid, Ksuid, TypeId) parses the same three ways:
//   parse_<family>(text, out) -> ParseStatus   no throw, no allocation; out unchanged on failure
//   <Family>::parse(text)                      throws ParseError with the same position/reason
//   <Family>::try_parse(text)                  std::optional, never throws
// One status type for all of them, so code that handles one family's errors handles them all.
#pragma once

#include <cstddef>

namespace idforge {

/// Why a text is not an ID: the 0-based position in the input and the rule broken.
/// reason is nullptr (and position 0) when the text parsed.
struct ParseStatus {
  std::size_t position = 0;
  const char* reason = nullptr;
  constexpr bool ok() const noexcept { return reason == nullptr; }
};

}  // namespace idforge
