// idforge: generate, inspect and explain unique IDs.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "cli_support.hpp"
#include "commands.hpp"
#include "idforge/error.hpp"
#include "idforge/version.hpp"

int main(int argc, char** argv) {
  CLI::App app{"idforge: unique IDs for distributed systems (Snowflake, UUIDv7/v4, ULID)", "idforge"};
  app.set_version_flag("--version", std::string("idforge ") + idforge::version_string);
  app.require_subcommand(1);
  CLI::App* gen = idforge::cli::add_gen_command(app);
  idforge::cli::add_gen_snowflake(*gen);
  idforge::cli::add_gen_uuid(*gen);
  idforge::cli::add_gen_relatives(*gen);
  idforge::cli::add_inspect_command(app);
  idforge::cli::add_convert_command(app);
  idforge::cli::add_layout_command(app);
  idforge::cli::add_mask_commands(app);
#ifdef IDFORGE_HAVE_SERVER
  idforge::cli::add_serve_command(app);
#endif
#ifdef IDFORGE_HAVE_LAB
  idforge::cli::add_lab_command(app);
#endif
#ifdef IDFORGE_HAVE_TICKET
  idforge::cli::add_seq_command(app);
  idforge::cli::add_ticket_command(app);
#endif
#ifdef IDFORGE_HAVE_COORD
  idforge::cli::add_lease_command(app);
#endif
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  } catch (const idforge::cli::CommandFailure& e) {
    std::fflush(stdout);
    fmt::print(stderr, "idforge: {}\n", e.message);
    return e.code;
  } catch (const idforge::Error& e) {
    std::fflush(stdout);
    fmt::print(stderr, "idforge: {}\n", e.what());
    return idforge::cli::kExitFailure;
  }
  return 0;
}
