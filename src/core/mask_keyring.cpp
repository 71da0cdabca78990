#include "idforge/mask_keyring.hpp"

#include <sodium.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <new>
#include <string_view>

namespace idforge {
namespace {

// A keyring of 58 keys is under 4 KiB; a larger file is not one (and /dev/zero ends here).
constexpr std::size_t kMaxKeyringBytes = 64 * 1024;

int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The key ID of an entry as a message may show it: a key ID is at most two characters, and
// anything longer is not one and may be the secret itself (an entry written SECRET:ID), so
// only its length is said. Bytes outside printable ASCII are not shown either.
std::string shown_key_id(std::string_view id_text) {
  bool printable = true;
  for (char c : id_text) printable = printable && c > 0x20 && c < 0x7f;
  if (id_text.size() <= 2 && printable) return " (key ID '" + std::string(id_text) + "')";
  return " (a key ID of " + std::to_string(id_text.size()) +
         " bytes, not shown: it may be a secret; an entry is ID:SECRET)";
}

[[noreturn]] void bad_entry(std::string_view source, std::size_t n, std::string_view id_text,
                            std::string_view rule) {
  std::string m = "mask keys from ";
  m += source;
  m += ": entry ";
  m += std::to_string(n);
  if (!id_text.empty()) m += shown_key_id(id_text);
  m += ": ";
  m += rule;
  throw Error(errc::key_error, m);
}

// A key file's path as a message may show it, unless it looks like a key entry given where
// a path belongs (ID:SECRET, 64 hex digits after a colon): then it is not shown.
std::string shown_path(const std::string& path) {
  const auto colon = path.find(':');
  if (colon != std::string::npos) {
    std::size_t run = 0, best = 0;
    for (std::size_t i = colon + 1; i < path.size(); ++i) {
      run = hex_value(path[i]) >= 0 ? run + 1 : 0;
      best = std::max(best, run);
    }
    if (best >= 32) return "(a path that looks like ID:SECRET, not shown: give a file's path)";
  }
  return "'" + path + "'";
}

// Overwrites a string that held secrets before its memory goes back to the allocator.
struct Wipe {
  std::string& s;
  ~Wipe() { sodium_memzero(s.data(), s.size()); }
};

// Bytes of a key file, held where no freed copy of them can stay behind: memory from
// sodium_malloc (guard pages, locked where the limit allows, zeroed by sodium_free). It
// never grows in place: a larger buffer is a new one, the old one is wiped as it is freed.
// A std::string that grew by append() left each outgrown block (4,097 bytes and up) in the
// heap with the hex of the secrets in it.
class SecretBuffer {
 public:
  explicit SecretBuffer(std::size_t capacity) { reallocate(capacity); }
  ~SecretBuffer() { sodium_free(data_); }
  SecretBuffer(const SecretBuffer&) = delete;
  SecretBuffer& operator=(const SecretBuffer&) = delete;

  char* end() noexcept { return data_ + size_; }
  std::size_t room() const noexcept { return capacity_ - size_; }
  void grew(std::size_t n) noexcept { size_ += n; }
  std::size_t size() const noexcept { return size_; }
  std::string_view view() const noexcept { return {data_, size_}; }
  /// Moves the bytes into a new buffer of capacity bytes; the old one is wiped and freed.
  void reallocate(std::size_t capacity) {
    auto* fresh = static_cast<char*>(sodium_malloc(capacity));
    if (fresh == nullptr) throw std::bad_alloc();
    if (size_ > 0) std::memcpy(fresh, data_, size_);
    sodium_free(data_);  // sodium_free(nullptr) does nothing
    data_ = fresh;
    capacity_ = capacity;
  }

 private:
  char* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace

MaskKeyring MaskKeyring::parse(std::string_view text, std::string_view source) {
  MaskKeyring ring;
  ring.source_ = source;
  // Room for every key ID at once: a vector that grew would copy each key's derived
  // networks and free the old block (~MaskKey wipes what it holds, the reserve saves the copy).
  ring.keys_.reserve(MaskKey::kMaxId + 1);
  std::size_t n = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',') {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && text[end] != ' ' && text[end] != '\t' && text[end] != '\r' &&
           text[end] != '\n' && text[end] != ',' && text[end] != '#')
      ++end;
    const std::string_view entry = text.substr(i, end - i);
    i = end;
    ++n;
    const auto colon = entry.find(':');
    if (colon == std::string_view::npos)
      bad_entry(source, n, {}, "expected ID:SECRET (a key ID 0..57, a colon, 64 hex digits)");
    const std::string_view id_text = entry.substr(0, colon), hex = entry.substr(colon + 1);
    unsigned id = 0;
    if (id_text.empty() || id_text.size() > 2)
      bad_entry(source, n, id_text, "the key ID must be a number from 0 to 57");
    for (char d : id_text) {
      if (d < '0' || d > '9')
        bad_entry(source, n, id_text, "the key ID must be a number from 0 to 57");
      id = id * 10 + static_cast<unsigned>(d - '0');
    }
    if (id > MaskKey::kMaxId)
      bad_entry(source, n, id_text, "the key ID must be a number from 0 to 57");
    if (ring.find(id)) bad_entry(source, n, id_text, "this key ID is given twice");
    if (hex.size() != 2 * MaskKey::kSecretBytes)
      bad_entry(
          source, n, id_text,
          "the secret has " + std::to_string(hex.size()) + " characters; it must be 64 hex digits");
    unsigned char secret[MaskKey::kSecretBytes];
    for (std::size_t k = 0; k < MaskKey::kSecretBytes; ++k) {
      const int hi = hex_value(hex[2 * k]), lo = hex_value(hex[2 * k + 1]);
      if (hi < 0 || lo < 0) {
        sodium_memzero(secret, sizeof secret);
        bad_entry(source, n, id_text,
                  "the secret has a character that is not a hex digit at position " +
                      std::to_string(hi < 0 ? 2 * k : 2 * k + 1));
      }
      secret[k] = static_cast<unsigned char>(hi << 4 | lo);
    }
    try {
      ring.keys_.emplace_back(id, secret);
    } catch (const Error& e) {
      sodium_memzero(secret, sizeof secret);
      bad_entry(source, n, id_text, e.what());
    }
    sodium_memzero(secret, sizeof secret);
  }
  if (ring.keys_.empty())
    throw Error(errc::key_error, "mask keys from " + std::string(source) +
                                     ": no key in it (one ID:SECRET entry at least; make one with "
                                     "`idforge mask --new-key ID`)");
  return ring;
}

MaskKeyring MaskKeyring::load_file(const std::string& path) {
  const std::string name = "mask key file " + shown_path(path);
  // Opened without blocking and checked to be a regular file before a byte is read: a FIFO
  // without a writer would otherwise hang the caller (a server starting up, with its lease
  // held and its signals not yet handled), and a device is no keyring.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) throw Error(errc::key_error, name + " cannot be read: " + std::strerror(errno));
  struct Close {
    int fd;
    ~Close() { ::close(fd); }
  } close_fd{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    throw Error(errc::key_error, name + " cannot be read: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    throw Error(errc::key_error, name + " is not a regular file (" +
                                     (S_ISDIR(st.st_mode)    ? "a directory"
                                      : S_ISFIFO(st.st_mode) ? "a FIFO"
                                      : S_ISSOCK(st.st_mode) ? "a socket"
                                                             : "a device") +
                                     "): a keyring is a file of ID:SECRET entries");
  if (st.st_size > static_cast<off_t>(kMaxKeyringBytes))
    throw Error(errc::key_error, name + " is larger than 64 KiB: not a keyring");
  if (sodium_init() < 0) throw Error(errc::key_error, "libsodium failed to initialise");
  // Sized once from fstat, one byte over to see the end of the file without a second
  // buffer. It grows only for a file that grew meanwhile or reports no size (procfs).
  SecretBuffer text(static_cast<std::size_t>(st.st_size) + 1);
  for (;;) {
    if (text.room() == 0) {
      if (text.size() > kMaxKeyringBytes)
        throw Error(errc::key_error, name + " is larger than 64 KiB: not a keyring");
      text.reallocate(std::min(2 * text.size() + 1, kMaxKeyringBytes + 1));
    }
    const ssize_t got = ::read(fd, text.end(), text.room());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw Error(errc::key_error, name + " cannot be read: " + std::strerror(errno));
    if (got == 0) break;
    text.grew(static_cast<std::size_t>(got));
  }
  if (text.size() > kMaxKeyringBytes)
    throw Error(errc::key_error, name + " is larger than 64 KiB: not a keyring");
  return parse(text.view(), "file " + shown_path(path));
}

MaskKeyring MaskKeyring::from_environment(
    const std::function<std::optional<std::string>(const char*)>& lookup) {
  const auto get = [&lookup](const char* name) -> std::optional<std::string> {
    if (lookup) return lookup(name);
    const char* v = std::getenv(name);
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
  // A file wins, as the service's mask-key-file setting (also IDFORGE_MASK_KEY_FILE) does.
  if (auto file = get(kMaskKeyFileEnv); file && !file->empty()) return load_file(*file);
  if (!lookup) {
    // Parsed where it lies: the environment holds the text anyway, and a copy would be one
    // more place for it.
    const char* keys = std::getenv(kMaskKeysEnv);
    if (keys != nullptr && *keys != '\0') return parse(keys, kMaskKeysEnv);
  } else if (auto keys = lookup(kMaskKeysEnv); keys && !keys->empty()) {
    Wipe wipe{*keys};  // the hook's copy, made once at its size: wiped before it is freed
    return parse(*keys, kMaskKeysEnv);
  }
  throw Error(errc::key_error,
              std::string("no mask key: set ") + kMaskKeysEnv + " to ID:SECRET entries or " +
                  kMaskKeyFileEnv +
                  " to a file of them (make one with `idforge mask --new-key ID`)");
}

const MaskKey* MaskKeyring::find(unsigned id) const noexcept {
  for (const auto& k : keys_)
    if (k.id() == id) return &k;
  return nullptr;
}

const MaskKey& MaskKeyring::at(unsigned id) const {
  if (const MaskKey* k = find(id)) return *k;
  throw Error(errc::key_error, "mask key " + std::to_string(id) + " is not in the keyring from " +
                                   source_ + " (it holds " + ids_text() + ")");
}

std::vector<unsigned> MaskKeyring::ids() const {
  std::vector<unsigned> out;
  for (const auto& k : keys_) out.push_back(k.id());
  return out;
}

std::string MaskKeyring::ids_text() const {
  std::string out;
  for (const auto& k : keys_) (out += out.empty() ? "" : ", ") += std::to_string(k.id());
  return out;
}

std::string new_mask_key_line(unsigned id) {
  if (id > MaskKey::kMaxId)
    throw Error(errc::key_error, "mask key ID " + std::to_string(id) + " is above the largest, " +
                                     std::to_string(MaskKey::kMaxId));
  if (sodium_init() < 0) throw Error(errc::key_error, "libsodium failed to initialise");
  unsigned char secret[MaskKey::kSecretBytes];
  randombytes_buf(secret, sizeof secret);
  char hex[2 * MaskKey::kSecretBytes + 1];
  sodium_bin2hex(hex, sizeof hex, secret, sizeof secret);
  std::string line = std::to_string(id) + ":" + hex;
  sodium_memzero(secret, sizeof secret);
  sodium_memzero(hex, sizeof hex);
  return line;
}

}  // namespace idforge
