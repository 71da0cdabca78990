// Text from outside (arguments, files, store records) made safe to show on a terminal: core's
// escaping (idforge/detail/printable.hpp), which its error messages use too.
#pragma once

#include "idforge/detail/printable.hpp"

namespace idforge::cli {

using idforge::detail::printable;

}  // namespace idforge::cli
