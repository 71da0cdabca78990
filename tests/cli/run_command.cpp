#include "run_command.hpp"

namespace idforge::test {

CommandResult run_idforge(const std::vector<std::string>& args,
                          const std::vector<std::string>& extra_env, StdoutTo to,
                          std::chrono::seconds limit) {
  SpawnOptions o;
  o.err = Sink::pipe;
  o.extra_env = extra_env;
  switch (to) {
    case StdoutTo::pipe:
      o.out = Sink::pipe;
      break;
    case StdoutTo::dev_full:
      o.out = Sink::dev_full;
      break;
    case StdoutTo::closed_pipe:
      // The test runner may itself run with SIGPIPE ignored; a shell pipeline's child has
      // the default disposition.
      o.out = Sink::closed_pipe;
      o.sigpipe = Sigpipe::default_action;
      break;
    case StdoutTo::closed_pipe_sigpipe_ignored:
      o.out = Sink::closed_pipe;
      o.sigpipe = Sigpipe::ignored;
      break;
  }
  std::vector<std::string> argv{IDFORGE_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv, o, limit);
}

}  // namespace idforge::test
