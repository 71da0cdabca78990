#include "output.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "printable.hpp"

namespace idforge::cli {
namespace {

// Set once a failed write to stdout has been reported, so finish_stdout() does not repeat it.
bool g_output_failure_reported = false;

void write_err(std::string_view s) noexcept {
  // stderr is unbuffered: one fwrite is one write(2); its result is ignored on purpose.
  (void)std::fwrite(s.data(), 1, s.size(), stderr);
}

}  // namespace

void write_out(std::string_view text) {
  if (text.empty()) return;
  errno = 0;
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::ferror(stdout))
    throw OutputError{errno};
}

void flush_out() {
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) throw OutputError{errno};
}

std::string json_text(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string json_text(const nlohmann::ordered_json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

void note(std::string_view line) noexcept {
  try {
    std::string s(line);
    s += '\n';
    write_err(s);
  } catch (...) {
    // Out of memory for a progress line: drop the line, keep the command running.
  }
}

namespace {

void emit_error(std::string_view message) noexcept {
  try {
    write_err("idforge: " + printable(message) + "\n");
  } catch (...) {
    write_err("idforge: (error message lost: out of memory)\n");
  }
}

void emit_output_error(int errno_value) noexcept {
  if (g_output_failure_reported) return;
  g_output_failure_reported = true;
  try {
    std::string s = "cannot write to standard output";
    if (errno_value != 0) s += std::string(": ") + std::strerror(errno_value);
    emit_error(s);
  } catch (...) {
    write_err("idforge: cannot write to standard output\n");
  }
}

}  // namespace

void report_error(std::string_view message) noexcept {
  (void)std::fflush(stdout);  // what was printed before the error comes first
  emit_error(message);
}

void report_output_error(const OutputError& e) noexcept {
  emit_output_error(e.errno_value);
}

int finish_stdout(int code) noexcept {
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    emit_output_error(errno);
    return code == 0 ? 1 : code;
  }
  // Closing reports what only the close can see (a deferred write error on some file
  // systems); a descriptor that was never open (EBADF) with nothing left to write is fine.
  errno = 0;
  if (std::fclose(stdout) != 0 && errno != EBADF) {
    emit_output_error(errno);
    return code == 0 ? 1 : code;
  }
  return code;
}

}  // namespace idforge::cli
