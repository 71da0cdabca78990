// The idforge command-line tool: each command lives in its own file and registers itself
// on the app here. Commands parse and print; the work happens in the libraries.
#pragma once

#include <CLI/CLI.hpp>

namespace idforge::cli {

/// `idforge gen`: the parent of `gen snowflake`, `gen uuid7`, ...
CLI::App* add_gen_command(CLI::App& app);
/// `idforge gen snowflake`
void add_gen_snowflake(CLI::App& gen);
/// `idforge gen uuid7`, `gen uuid4`, `gen ulid`
void add_gen_uuid(CLI::App& gen);
/// `idforge gen typeid`, `gen ksuid`
void add_gen_relatives(CLI::App& gen);
/// `idforge gen token`: random tokens for secrets
void add_gen_token(CLI::App& gen);
/// `idforge inspect ID...`
void add_inspect_command(CLI::App& app);
/// `idforge convert ID... --to FORM`
void add_convert_command(CLI::App& app);
/// `idforge layout PRESET|SPEC`
void add_layout_command(CLI::App& app);
/// `idforge mask VALUE...` and `idforge unmask ID...` (keyed public IDs)
void add_mask_commands(CLI::App& app);
#ifdef IDFORGE_HAVE_TICKET
/// `idforge seq next|create|stats` (segment sequences)
void add_seq_command(CLI::App& app);
/// `idforge ticket init|next|resize` (ticket servers)
void add_ticket_command(CLI::App& app);
#endif
#ifdef IDFORGE_HAVE_COORD
/// `idforge lease acquire|list` (built with idforge::coord)
void add_lease_command(CLI::App& app);
#endif
/// `idforge serve` (only when built with the server)
void add_serve_command(CLI::App& app);

/// `idforge lab`: registers `lab btree`, `lab db` and `lab cost` (built with IDFORGE_BUILD_LAB)
CLI::App* add_lab_command(CLI::App& app);
/// `idforge lab btree`
void add_lab_btree(CLI::App& lab);
/// `idforge lab db`
void add_lab_db(CLI::App& lab);
/// `idforge lab cost`
void add_lab_cost(CLI::App& lab);
/// `idforge advise`: which ID scheme for a situation (built with IDFORGE_BUILD_LAB)
void add_advise_command(CLI::App& app);

}  // namespace idforge::cli
