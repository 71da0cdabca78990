#include "cli_support.hpp"

namespace idforge::cli {

Layout layout_from_option(const std::string& spec) { return parse_layout(spec); }

}  // namespace idforge::cli
