// A private temporary folder for one CLI test, removed with everything in it at the end.
#pragma once

#include <filesystem>
#include <string>

namespace idforge::test {

class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  /// path / name, as text.
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  /// Writes content to path / name and returns that path.
  std::string write(const std::string& name, const std::string& content) const;

 private:
  std::filesystem::path path_;
};

}  // namespace idforge::test
