// Public IDs: the short, URL-safe text of a masked value (idforge/mask.hpp) that carries
// its key ID, a keyed tag ("ours or not") and a check character ("mistyped or not").
//
//   [ body: the masked value, fixed width, most significant digit first ][ tag: 3 ][ key ][ check ]
//
//   mode      masked bits   body   length  (base58 and base62 alike)
//   u63       63            11     16
//   u128      128           22     27
//   v7_as_v4  122           21     26      (the v4's bits that are not version or variant)
//
//   tag    = MaskKey::tag(mode, masked) mod A^3, as 3 digits (A = 58 or 62)
//   key    = (key ID + tag) mod A: the key ID, but no character is the same in every ID
//   check  = Verhoeff check over D_29 (base58) or D_31 (base62), detail/dihedral_check.hpp
//
// The length tells the mode. Reading checks, in order: length, alphabet, check character
// (every single wrong character and every swap of two neighbours is caught: "mistyped"),
// the key ID against the keyring ("unknown key": a retired or foreign key), the keyed tag
// ("not ours": made with another secret under the same ID, or forged; a random string
// passes with probability 1/A^3, about 1 in 195,000 for base58), then unmasks.
//
// Alphabets: base58 (Bitcoin's: no 0, O, I, l, so nothing reads as something else) and
// base62 (0-9A-Za-z as int_codec's base62). The reader must be told which one.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "idforge/mask.hpp"
#include "idforge/mask_keyring.hpp"

namespace idforge {

/// The alphabet of a public ID. Stable numbering.
enum class PublicAlphabet : std::uint8_t { base58 = 0, base62 = 1 };

/// "base58", "base62".
const char* to_string(PublicAlphabet alphabet) noexcept;
/// Parses "base58" or "base62". Throws ParseError.
PublicAlphabet parse_public_alphabet(std::string_view name);

/// Length of a public ID of mode: 16 (u63), 27 (u128), 26 (v7_as_v4), in either alphabet.
constexpr std::size_t public_id_size(MaskMode mode) noexcept {
  return mode == MaskMode::u63 ? 16 : mode == MaskMode::u128 ? 27 : 26;
}
/// The longest public ID.
inline constexpr std::size_t kMaxPublicIdSize = 27;

/// Masks value under key and writes its public ID, public_id_size(mode) characters, at out
/// (no terminator). Faults as MaskKey::mask(); out is untouched on a fault.
MaskFault write_public_id(const MaskKey& key, MaskMode mode, MaskValue value,
                          PublicAlphabet alphabet, char* out) noexcept;
/// The public ID of value; throws Error (invalid_argument) naming the value on a fault.
std::string to_public_id(const MaskKey& key, MaskMode mode, MaskValue value,
                         PublicAlphabet alphabet = PublicAlphabet::base58);

/// What a public ID holds.
struct PublicIdInfo {
  MaskMode mode = MaskMode::u63;
  unsigned key_id = 0;
  MaskValue masked;  ///< the masked value it encodes
  MaskValue value;   ///< the internal value it stands for (unmasked)
};

/// The outcome of reading: a fault and the 0-based position of the character concerned.
struct PublicIdStatus {
  MaskFault fault = MaskFault::ok;
  std::size_t position = 0;
  constexpr bool ok() const noexcept { return fault == MaskFault::ok; }
};

/// Reads a public ID with the keyring's keys into out. Never throws; out is filled only
/// when the status is ok (mode, key ID and masked value also after unknown_key/not_ours).
PublicIdStatus read_public_id(const MaskKeyring& keys, std::string_view text,
                              PublicAlphabet alphabet, PublicIdInfo& out) noexcept;
/// One line about a failed read, naming the text, the position and the rule:
/// "public ID '...' at position 15: check character does not match: mistyped ...".
std::string public_id_message(const PublicIdStatus& status, std::string_view text,
                              PublicAlphabet alphabet, const MaskKeyring& keys,
                              const PublicIdInfo& info);
/// read_public_id(), throwing ParseError (length, alphabet, mistyped) or Error(key_error,
/// not_ours) with public_id_message().
PublicIdInfo parse_public_id(const MaskKeyring& keys, std::string_view text,
                             PublicAlphabet alphabet = PublicAlphabet::base58);

}  // namespace idforge
