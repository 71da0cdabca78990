// The service's configuration: key=value lines (as in a config file, an IDFORGE_*
// variable or a flag) applied one by one. Every line is accepted or refused with an
// idforge::Error naming it; what is accepted validates or is refused the same way.
#include "fuzz_support.hpp"
#include "idforge/error.hpp"
#include "idforge/server/config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  idforge::server::ServerConfig config;
  std::string_view text = as_text(data, size);
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    const std::size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    try {
      idforge::server::apply_setting(config, line.substr(0, eq), line.substr(eq + 1));
    } catch (const idforge::Error& e) {
      IDFORGE_FUZZ_CHECK(std::string_view(e.what()).find("setting") != std::string_view::npos ||
                         e.code() == idforge::errc::invalid_argument ||
                         e.code() == idforge::errc::parse_error);
    }
  }
  try {
    idforge::server::validate(config);
    IDFORGE_FUZZ_CHECK(config.port >= 0 && config.port <= 65535);
    IDFORGE_FUZZ_CHECK(config.max_connections >= 1);
  } catch (const idforge::Error&) {
  }
  return 0;
}
