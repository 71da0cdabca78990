// inspect: the JSON `idforge inspect --json` prints, from the same function.
#include <string_view>

#include "c_support.hpp"
#include "idforge/clock.hpp"
#include "idforge/inspect.hpp"
#include "idforge/inspect_json.hpp"

using namespace idforge;
using idforge::c::guard;
using idforge::c::null_argument;

extern "C" {

idforge_status idforge_inspect_json(const char* text, size_t len, const char* layout, char* out,
                                    size_t size, size_t* needed) {
  if (needed) *needed = 0;
  if (!text && len) return null_argument("idforge_inspect_json", "text");
  if (const idforge_status s = c::check_length("idforge_inspect_json", len)) return s;
  if (const idforge_status s = c::check_out("idforge_inspect_json", out, size)) return s;
  return guard([&] {
    InspectOptions options;
    options.layout = c::layout_or_default(layout);
    // The present, for the note on a time far ahead, as `idforge inspect` reads it.
    options.now_unix_ms = realtime_ms();
    // The input may be any bytes: text that is not UTF-8 is written with U+FFFD, as the CLI does.
    const Inspection in = inspect(std::string_view(text ? text : "", len), options);
    return c::write_text(inspection_to_json_with_warning(in).dump(
                             -1, ' ', false, nlohmann::ordered_json::error_handler_t::replace),
                         out, size, needed);
  });
}

}  // extern "C"
