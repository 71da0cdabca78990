// lease_holder: a process that holds a node-ID lease and issues Snowflake IDs, for the
// multi-process tests (kill -9, SIGSTOP, etcd leader loss, 16 holders on one host).
//
//   lease_holder STORE_URL LAYOUT ISSUE_MS OUT_FILE [wait-stdin]
//
// Prints "node N mark M since S wait W" once the lease is held, then issues one ID about
// every 200 us for ISSUE_MS ms (or, with wait-stdin, holds until stdin closes), appending
// each ID in decimal to OUT_FILE (flushed every 16 IDs, so a kill -9 loses at most a few
// lines, never a written one). On a lease error it prints "error CODE REASON MESSAGE" and
// exits 3; at the end "done ISSUED RENEWALS FAILURES" and exit 0.
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "idforge/coord/leased_generator.hpp"

using namespace idforge;

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: lease_holder STORE_URL LAYOUT ISSUE_MS OUT_FILE [wait-stdin]\n");
    return 2;
  }
  const std::string url = argv[1];
  const Layout layout = parse_layout(argv[2]);
  const long issue_ms = std::stol(argv[3]);
  const bool wait_stdin = argc > 5 && std::string(argv[5]) == "wait-stdin";
  const int out = open(argv[4], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  std::string buf;
  std::uint64_t issued = 0;
  try {
    coord::SharedLeasedSnowflakeGenerator gen(coord::open_lease_store(url), layout);
    const coord::Lease& l = gen.keeper().acquired();
    std::printf(
        "node %llu mark %lld since %lld wait %lld\n", static_cast<unsigned long long>(l.node),
        static_cast<long long>(l.high_water_unix_ms), static_cast<long long>(l.since_unix_ms),
        static_cast<long long>(gen.start_wait_ms()));
    std::fflush(stdout);
    if (wait_stdin) {
      char c;
      while (read(0, &c, 1) > 0) {
      }
    } else {
      const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(issue_ms);
      try {
        while (std::chrono::steady_clock::now() < end) {
          buf += std::to_string(gen.next().value()) + "\n";
          if (++issued % 16 == 0) {
            if (write(out, buf.data(), buf.size()) < 0) return 4;
            buf.clear();
          }
          std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
      } catch (const Error& e) {
        if (write(out, buf.data(), buf.size()) < 0) return 4;
        const auto* le = dynamic_cast<const coord::LeaseError*>(&e);
        std::printf("error %d %s %s\n", e.code().value(), le ? coord::to_string(le->reason()) : "-",
                    e.what());
        std::fflush(stdout);
        return 3;
      }
    }
    if (write(out, buf.data(), buf.size()) < 0) return 4;
    const auto st = gen.keeper().status();
    std::printf("done %llu %llu %llu\n", static_cast<unsigned long long>(issued),
                static_cast<unsigned long long>(st.renewals),
                static_cast<unsigned long long>(st.failures));
  } catch (const Error& e) {
    std::printf("error %d - %s\n", e.code().value(), e.what());
    return 3;
  }
  return 0;
}
