// Where the command line's text goes, and what happens when it cannot get there.
//
// Standard output carries the results (IDs, tables, JSON). A failed write is an error: the
// write helpers throw OutputError, main reports it once ("cannot write to standard output:
// No space left on device") and exits 1, so `idforge gen uuid7 -n 100000 > /dev/full` never
// ends 0 with IDs lost. A closed pipe (`| head -1`) keeps coreutils' behaviour: SIGPIPE's
// default action ends the process quietly (a shell shows 141); only when the parent ignored
// SIGPIPE does the write fail with EPIPE, which is then reported like any other failed write.
//
// Standard error carries diagnostics; they are written best-effort and never throw, so a
// full or closed stderr cannot turn a failure report into an abort.
#pragma once

#include <fmt/core.h>

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace idforge::cli {

/// Thrown when standard output refuses a write; errno_value says why (0 if unknown).
struct OutputError {
  int errno_value = 0;
};

/// Writes text to standard output; throws OutputError when the stream reports a failure.
void write_out(std::string_view text);

/// fmt::print to standard output through write_out.
template <typename... T>
void print_out(fmt::format_string<T...> format, T&&... args) {
  write_out(fmt::format(format, std::forward<T>(args)...));
}

/// Pushes buffered output to the descriptor (before a line on stderr, so the two stay in
/// order); throws OutputError on failure.
void flush_out();

/// The JSON text of j (compact when indent < 0). Bytes that are not UTF-8 become U+FFFD
/// instead of an exception: a value from the command line or a store may carry any bytes.
std::string json_text(const nlohmann::json& j, int indent = -1);
std::string json_text(const nlohmann::ordered_json& j, int indent = -1);

/// Writes one line to standard error as it is (progress, notes); never throws.
void note(std::string_view line) noexcept;

/// Writes "idforge: <message>" to standard error, control characters and bytes that are not
/// UTF-8 escaped (see printable()); never throws. Flushes stdout first, best-effort.
void report_error(std::string_view message) noexcept;

/// Reports a failed write to stdout once: "idforge: cannot write to standard output: <reason>".
void report_output_error(const OutputError& e) noexcept;

/// Flushes and closes standard output at exit, as coreutils' close_stdout does: a failure
/// that no OutputError reported yet is reported now. Returns the exit code to use: code,
/// or 1 when code was 0 and the output failed.
int finish_stdout(int code) noexcept;

}  // namespace idforge::cli
