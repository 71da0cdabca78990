#include "scratch_dir.hpp"

#include <stdlib.h>

#include <fstream>
#include <stdexcept>

namespace idforge::test {

ScratchDir::ScratchDir() {
  std::string templ = (std::filesystem::temp_directory_path() / "idforge-cli-XXXXXX").string();
  if (mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = templ;
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string ScratchDir::write(const std::string& name, const std::string& content) const {
  const std::string p = *this / name;
  std::ofstream(p, std::ios::binary) << content;
  return p;
}

}  // namespace idforge::test
