// The rules every face shares: which option names an options object may hold, and how user
// text is quoted. Python, Node, Java and Go call these instead of keeping their own lists, so
// a misspelt option is refused with the same words in every language.
#include <array>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "c_support.hpp"
#include "idforge/detail/printable.hpp"

namespace idforge::c {
namespace {

// One option in both spellings.
struct OptionName {
  std::string_view snake;
  std::string_view camel;
};

constexpr std::array<OptionName, 3> kSnowflake{{
    {"layout", "layout"},
    {"node", "node"},
    {"lease_store", "leaseStore"},
}};
constexpr std::array<OptionName, 4> kMask{{
    {"mode", "mode"},
    {"form", "form"},
    {"alphabet", "alphabet"},
    {"key_id", "keyId"},
}};
constexpr std::array<OptionName, 3> kReadPublicId{{
    {"mode", "mode"},
    {"alphabet", "alphabet"},
    {"key_id", "keyId"},
}};

std::span<const OptionName> table(idforge_options options) {
  switch (options) {
    case IDFORGE_OPTIONS_SNOWFLAKE:
      return kSnowflake;
    case IDFORGE_OPTIONS_MASK:
      return kMask;
    case IDFORGE_OPTIONS_READ_PUBLIC_ID:
      return kReadPublicId;
  }
  return {};
}

std::string_view spelt(const OptionName& o, idforge_option_spelling spelling) {
  return spelling == IDFORGE_CAMEL_CASE ? o.camel : o.snake;
}

}  // namespace
}  // namespace idforge::c

using namespace idforge;

extern "C" {

idforge_status idforge_check_option(idforge_options options, idforge_option_spelling spelling,
                                    const char* call, const char* name, size_t len) {
  if (!name && len) return c::null_argument("idforge_check_option", "name");
  if (const idforge_status s = c::check_length("idforge_check_option", len)) return s;
  return c::guard([&] {
    const std::span<const c::OptionName> known = c::table(options);
    if (known.empty() || (spelling != IDFORGE_SNAKE_CASE && spelling != IDFORGE_CAMEL_CASE))
      return c::fail(IDFORGE_E_INVALID_ARGUMENT,
                     "idforge_check_option: options " + std::to_string(options) + ", spelling " +
                         std::to_string(spelling) + ": not a value of the enums in idforge.h");
    const std::string_view given(name ? name : "", len);
    const c::OptionName* meant = nullptr;
    for (const c::OptionName& o : known) {
      if (c::spelt(o, spelling) == given) return IDFORGE_OK;
      if (o.snake == given || o.camel == given) meant = &o;
    }
    std::string accepted;
    for (const c::OptionName& o : known) {
      if (!accepted.empty()) accepted += ", ";
      accepted += c::spelt(o, spelling);
    }
    std::string message = std::string(call && *call ? call : "options") + ": unknown option '" +
                          detail::shortened(detail::printable(given), 128) + "': it takes " +
                          accepted;
    if (meant) message += " (did you mean '" + std::string(c::spelt(*meant, spelling)) + "'?)";
    return c::fail(IDFORGE_E_INVALID_ARGUMENT, message);
  });
}

idforge_status idforge_quote(const char* text, size_t len, size_t max, char* out, size_t size,
                             size_t* needed) {
  if (needed) *needed = 0;
  if (!text && len) return c::null_argument("idforge_quote", "text");
  if (const idforge_status s = c::check_length("idforge_quote", len)) return s;
  if (const idforge_status s = c::check_out("idforge_quote", out, size)) return s;
  if (max < 16)
    return c::fail(IDFORGE_E_INVALID_ARGUMENT, "idforge_quote: max " + std::to_string(max) +
                                                   ": a quote keeps at least 16 bytes");
  return c::guard([&] {
    const std::string quoted =
        detail::shortened(detail::printable(std::string_view(text ? text : "", len)), max);
    return c::write_text(quoted, out, size, needed);
  });
}

}  // extern "C"
