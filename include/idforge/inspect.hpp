// inspect: tell what an ID string is and decode what it carries (time, node, sequence,
// version...). Detection goes by shape; a caller that knows better passes the kind.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "idforge/int_codec.hpp"
#include "idforge/snowflake_layout.hpp"

namespace idforge {

/// One decoded field. numeric is set when the field is a number, boolean when text is
/// "true" or "false": JSON prints each as a JSON number or boolean, text output the text.
struct InspectField {
  std::string name;
  std::string text;
  std::optional<std::uint64_t> numeric;
  bool boolean = false;
};

/// What inspect() found.
struct Inspection {
  std::string kind;                     ///< "snowflake", "uuid", "ulid", ...
  std::string input;                    ///< the text as given
  std::string canonical;                ///< the ID in its canonical text form
  std::optional<std::int64_t> unix_ms;  ///< embedded creation time, if the kind has one
  /// unix_ms lies more than kFutureSlackMs after InspectOptions::now_unix_ms: the text may be
  /// no ID of this kind at all (a random token of the same shape decodes the same way), so a
  /// "note" field says so and secret_warning() stays silent.
  bool time_in_future = false;
  std::vector<InspectField> fields;  ///< decoded fields, most significant first
  /// The field named name, or nullptr.
  const InspectField* field(std::string_view name) const noexcept;
};

/// How to read a Snowflake: under which layout, in which encoding (auto-detected if unset:
/// all digits = decimal, 0x prefix = hex).
struct InspectOptions {
  Layout layout = presets::twitter();
  std::optional<IntEncoding> encoding;
  /// The present, in Unix ms, for judging a decoded time; unset: no time is judged.
  /// inspect() reads no clock itself: callers (the CLI, the service) pass the system time
  /// once, tests a fixed one.
  std::optional<std::int64_t> now_unix_ms;
};

/// How far after now a decoded time may lie before inspect() calls it implausible: a day
/// covers clock skew between machines and a clock that runs ahead; an ID dated later than
/// that is more likely random text of the same shape than an ID.
inline constexpr std::int64_t kFutureSlackMs = 24 * 60 * 60 * 1000;

/// Decodes a Snowflake ID under options.layout. Throws ParseError / Error naming the rule.
Inspection inspect_snowflake(std::string_view text, const InspectOptions& options = {});

/// Decodes a UUID in any text form (canonical, 32 hex, {braced}, urn:uuid:) and any
/// version: version, variant, embedded time (v1, v2, v6, v7) and the remaining fields.
/// Throws ParseError naming the position and rule.
Inspection inspect_uuid(std::string_view text);

/// Decodes a ULID (26 Crockford base32 characters): time and random part.
/// Throws ParseError naming the position and rule.
Inspection inspect_ulid(std::string_view text);

/// Decodes a TypeID ("prefix_" + 26 base32 characters): its type, its UUID and, through
/// that, version and embedded time. Throws ParseError naming the position and rule.
Inspection inspect_typeid(std::string_view text);

/// Decodes a KSUID (27 base62 characters): time (to the second) and payload.
/// Throws ParseError naming the position and rule.
Inspection inspect_ksuid(std::string_view text);

/// Detects the kind of text by its shape and decodes it: a UUID (36, 32, 38 or 45
/// characters in its text forms), a ULID (26 base32 characters), a TypeID (a prefix, '_'
/// and 26 base32 characters), a KSUID (27 base62 characters), else a Snowflake (digits
/// or 0x hex; options.encoding forces a Snowflake). With options.now_unix_ms set, a decoded
/// time more than kFutureSlackMs after it sets time_in_future and adds a "note" field.
/// Throws ParseError listing the shapes it knows when none matches.
Inspection inspect(std::string_view text, const InspectOptions& options = {});

}  // namespace idforge
