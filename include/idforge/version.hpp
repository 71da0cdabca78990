// The library's version, also reported by `idforge --version`.
#pragma once

namespace idforge {

inline constexpr int version_major = 0;
inline constexpr int version_minor = 1;
inline constexpr int version_patch = 0;
/// "major.minor.patch"
inline constexpr const char* version_string = "0.1.0";

}  // namespace idforge
