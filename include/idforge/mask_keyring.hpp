// MaskKeyring: the masking keys a program holds, so keys can rotate and old public IDs
// still resolve. The first key masks (the primary); every key unmasks the public IDs that
// name its ID. Keys come from a file or an environment variable, never from a command
// line (where `ps` and shell history would show them).
//
// Text form (a file, or the IDFORGE_MASK_KEYS variable):
//   # comments run to the end of a line
//   2:6f1c...64 hex digits...   <- first entry: the primary, masks new public IDs
//   1:93ab...64 hex digits...   <- older keys: unmask only
// Entries are separated by newlines, commas or blanks. An ID is 0..57; a secret is 32
// bytes as 64 hex digits (make one with new_mask_key_line()). Errors name the source and
// the entry, never the secret.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "idforge/mask.hpp"

namespace idforge {

/// The variable that holds keyring entries themselves (read when no file is named).
inline constexpr const char* kMaskKeysEnv = "IDFORGE_MASK_KEYS";
/// The variable that names a keyring file; a file wins over IDFORGE_MASK_KEYS.
inline constexpr const char* kMaskKeyFileEnv = "IDFORGE_MASK_KEY_FILE";

/// The masking keys a program holds: the primary masks, every key unmasks (file comment).
class MaskKeyring {
 public:
  /// Parses entries (format above). source names where the text came from ("file
  /// keys.txt", "IDFORGE_MASK_KEYS") for messages. Throws Error(errc::key_error) for an
  /// empty keyring, a malformed entry, an ID above 57 or given twice, a zero secret.
  static MaskKeyring parse(std::string_view text, std::string_view source);
  /// Reads and parses a keyring file. Throws Error(errc::key_error) when it cannot be read.
  static MaskKeyring load_file(const std::string& path);
  /// From the file IDFORGE_MASK_KEY_FILE names, else from IDFORGE_MASK_KEYS; lookup reads a
  /// variable (the process environment by default). Throws Error(errc::key_error) saying
  /// how to give a key when neither is set.
  static MaskKeyring from_environment(
      const std::function<std::optional<std::string>(const char*)>& lookup = {});

  /// The key that masks: the first entry.
  const MaskKey& primary() const noexcept { return keys_.front(); }
  /// The key with this ID, or nullptr.
  const MaskKey* find(unsigned id) const noexcept;
  /// The key with this ID; throws Error(errc::key_error) naming the ID and the keyring's IDs.
  const MaskKey& at(unsigned id) const;
  /// Key IDs in keyring order (primary first).
  std::vector<unsigned> ids() const;
  /// "2, 1": the IDs for messages.
  std::string ids_text() const;
  /// Where the keys came from, as given to parse().
  const std::string& source() const noexcept { return source_; }

 private:
  MaskKeyring() = default;
  std::vector<MaskKey> keys_;
  std::string source_;
};

/// A fresh keyring entry "ID:64 hex digits" from the OS CSPRNG (libsodium randombytes_buf).
/// Throws Error(errc::key_error) for an ID above 57. The line is a secret.
std::string new_mask_key_line(unsigned id);

}  // namespace idforge
