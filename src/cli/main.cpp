// idforge: generate, inspect and explain unique IDs.
//
// Every way out of a command passes through main: an error of any type becomes one line
// on stderr ("idforge: ...", control characters escaped) and exit 1, a usage error exit 2,
// and standard output is checked when it closes (see output.hpp), so nothing aborts and no
// output is lost without a message.
#include <CLI/CLI.hpp>
#include <exception>
#include <new>
#include <sstream>

#include "cli_support.hpp"
#include "commands.hpp"
#include "idforge/error.hpp"
#include "idforge/version.hpp"
#include "output.hpp"
#include "standard_fds.hpp"
#include "usage_error.hpp"

namespace {

// --help and --version: CLI11 prints them to std::cout, which would hide a failed write
// inside iostreams; they go through write_out like every other result instead.
int print_help_or_version(CLI::App& app, const CLI::ParseError& e) {
  std::ostringstream text;
  const int code = app.exit(e, text, text);
  try {
    idforge::cli::write_out(text.str());
  } catch (const idforge::cli::OutputError& failed) {
    idforge::cli::report_output_error(failed);
    return idforge::cli::kExitFailure;
  }
  return code;
}

int run(CLI::App& app, int argc, char** argv) {
  try {
    idforge::cli::parse_with_ids_after_marker(app, argc, argv);
    return 0;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success))
      return print_help_or_version(app, e);
    idforge::cli::report_error(idforge::cli::usage_message(app, e));
    return idforge::cli::kExitUsage;
  } catch (const idforge::cli::OutputError& e) {
    idforge::cli::report_output_error(e);
  } catch (const idforge::cli::CommandFailure& e) {
    idforge::cli::report_error(e.message);
    return e.code;
  } catch (const idforge::Error& e) {
    idforge::cli::report_error(e.what());
  } catch (const std::bad_alloc&) {
    idforge::cli::report_error("out of memory");
  } catch (const std::exception& e) {
    // Library and standard exceptions (a file system error names its path) end the same way.
    idforge::cli::report_error(e.what());
  } catch (...) {
    idforge::cli::report_error("stopped by an unexpected error of unknown type");
  }
  return idforge::cli::kExitFailure;
}

}  // namespace

int main(int argc, char** argv) {
  // Before anything opens a file or a socket (see standard_fds.hpp).
  if (!idforge::cli::guard_standard_fds()) return idforge::cli::kExitFailure;
  int code = idforge::cli::kExitFailure;
  try {
    CLI::App app{"idforge: unique IDs for distributed systems (Snowflake, UUIDv7/v4, ULID)",
                 "idforge"};
    app.set_version_flag("--version", std::string("idforge ") + idforge::version_string);
    app.require_subcommand(1);
    CLI::App* gen = idforge::cli::add_gen_command(app);
    idforge::cli::add_gen_snowflake(*gen);
    idforge::cli::add_gen_uuid(*gen);
    idforge::cli::add_gen_relatives(*gen);
    idforge::cli::add_gen_token(*gen);
    idforge::cli::add_inspect_command(app);
    idforge::cli::add_convert_command(app);
    idforge::cli::add_layout_command(app);
    idforge::cli::add_mask_commands(app);
#ifdef IDFORGE_HAVE_SERVER
    idforge::cli::add_serve_command(app);
#endif
#ifdef IDFORGE_HAVE_LAB
    idforge::cli::add_lab_command(app);
    idforge::cli::add_advise_command(app);
#endif
#ifdef IDFORGE_HAVE_TICKET
    idforge::cli::add_seq_command(app);
    idforge::cli::add_ticket_command(app);
#endif
#ifdef IDFORGE_HAVE_COORD
    idforge::cli::add_lease_command(app);
#endif
    code = run(app, argc, argv);
  } catch (const std::exception& e) {
    // Building the command table failed (out of memory): still one line, still exit 1.
    idforge::cli::report_error(e.what());
  } catch (...) {
    idforge::cli::report_error("stopped by an unexpected error of unknown type");
  }
  return idforge::cli::finish_stdout(code);
}
