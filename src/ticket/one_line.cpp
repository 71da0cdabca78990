#include "one_line.hpp"

namespace idforge::ticket::detail {

std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool pending_break = false;
  for (const char c : text) {
    if (c == '\n' || c == '\r') {
      pending_break = true;
      continue;
    }
    if (pending_break && (c == ' ' || c == '\t')) continue;
    if (pending_break && !out.empty()) out += "; ";
    pending_break = false;
    out += c == '\t' ? ' ' : c;
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == ';')) out.pop_back();
  std::size_t lead = 0;
  while (lead < out.size() && out[lead] == ' ') ++lead;
  return out.substr(lead);
}

}  // namespace idforge::ticket::detail
