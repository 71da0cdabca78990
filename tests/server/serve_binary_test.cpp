// `idforge serve` as a process: prints its URL, serves, stops cleanly on SIGTERM, and
// refuses to bind beyond loopback without a token.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <regex>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "http_client.hpp"
#include "live_server.hpp"
#include "process.hpp"
#include "raw_http.hpp"

namespace idforge::test {
namespace {

struct Child {
  std::unique_ptr<Process> process;
  pid_t pid = -1;
  int out = -1;  // read end of its stdout, owned by process
};

// env entries ("NAME=value") are set for the child, over the test's own.
Child spawn(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) {
  SpawnOptions o;
  o.extra_env = env;
  std::vector<std::string> argv{IDFORGE_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  Child c;
  c.process = std::make_unique<Process>(argv, o);
  c.pid = c.process->pid();
  c.out = c.process->out_fd();
  return c;
}

// The exit code, or -1 when it did not end within timeout_s (then it is killed).
int wait_exit(Child& c, int timeout_s) {
  if (auto code = c.process->wait(std::chrono::seconds(timeout_s))) return *code;
  c.process->stop(SIGKILL, std::chrono::seconds(10));
  return -1;
}

TEST(ServeBinary, PrintsUrlServesAndStopsOnSigterm) {
  Child c = spawn({"serve", "--port", "0", "--access-log", "off", "--node", "3"});
  std::string line;
  char ch;
  while (::read(c.out, &ch, 1) == 1 && ch != '\n') line += ch;
  std::smatch m;
  ASSERT_TRUE(std::regex_match(
      line, m, std::regex(R"(idforge serve: listening on http://127\.0\.0\.1:(\d+)/)")))
      << line;
  const int port = std::stoi(m[1]);
  HttpClient cli("127.0.0.1", port);
  auto r = cli.Get("/healthz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  auto ready = cli.Get("/readyz");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 200);
  ::kill(c.pid, SIGTERM);
  EXPECT_EQ(wait_exit(c, 10), 0);
}

#ifdef IDFORGE_SERVER_HAVE_LEASE
TEST(ServeBinary, DefaultLeasesANodeUnderTheDataFolderAndReleasesIt) {
  const std::string data = ::testing::TempDir() + "/idforge_serve_data";
  Child c = spawn({"serve", "--port", "0", "--access-log", "off", "--data", data});
  std::string line;
  char ch;
  while (::read(c.out, &ch, 1) == 1 && ch != '\n') line += ch;
  std::smatch m;
  ASSERT_TRUE(std::regex_match(
      line, m, std::regex(R"(idforge serve: listening on http://127\.0\.0\.1:(\d+)/)")))
      << line;
  HttpClient cli("127.0.0.1", std::stoi(m[1]));
  auto ready = cli.Get("/readyz");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 200);
  auto metrics = cli.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("idforge_lease_held 1\n"), std::string::npos);
  ::kill(c.pid, SIGTERM);
  EXPECT_EQ(wait_exit(c, 10), 0);
  // Released: a second server gets the same (lowest free) node ID at once.
  Child again = spawn({"serve", "--port", "0", "--access-log", "off", "--data", data});
  line.clear();
  while (::read(again.out, &ch, 1) == 1 && ch != '\n') line += ch;
  EXPECT_NE(line.find("listening on"), std::string::npos);
  ::kill(again.pid, SIGTERM);
  EXPECT_EQ(wait_exit(again, 10), 0);
}
#endif

#ifdef IDFORGE_SERVER_HAVE_LEASE
// Two servers on one data folder with one fixed node but different lease stores used to both
// start and hand out the same IDs (each registered the node only in its own store).
TEST(ServeBinary, OneDataFolderNeverHasOneNodeTwiceWhateverTheLeaseStores) {
  const std::string data = ::testing::TempDir() + "/idforge_serve_node_twice";
  const std::string elsewhere = ::testing::TempDir() + "/idforge_serve_node_twice_store";
  std::filesystem::remove_all(data);
  std::filesystem::remove_all(elsewhere);
  {
    ServeProcess first({"--node", "3", "--access-log", "off", "--data", data});
    ASSERT_GT(first.port(), 0) << first.first_line();
    const auto [code, err] =
        run_binary({"serve", "--port", "0", "--node", "3", "--lease-store", "file:" + elsewhere,
                    "--access-log", "off", "--data", data},
                   10);
    EXPECT_EQ(code, 1) << err;
    EXPECT_NE(err.find("node 3 from lease-store='file:" + elsewhere +
                       "' is held in the data folder '" + data + "' by another live process"),
              std::string::npos)
        << err;
    EXPECT_EQ(health_status(first.port()), 200);
  }
  {  // the other order: the one with its own store first, then the default
    ServeProcess first({"--node", "3", "--lease-store", "file:" + elsewhere, "--access-log", "off",
                        "--data", data});
    ASSERT_GT(first.port(), 0) << first.first_line();
    const auto [code, err] = run_binary(
        {"serve", "--port", "0", "--node", "3", "--access-log", "off", "--data", data}, 10);
    EXPECT_EQ(code, 1) << err;
    EXPECT_NE(err.find("node 3"), std::string::npos) << err;
    // A leased (not fixed) server on the same folder passes over node 3.
    ServeProcess leased({"--access-log", "off", "--data", data});
    ASSERT_GT(leased.port(), 0) << leased.first_line();
    HttpClient cli("127.0.0.1", leased.port());
    const auto metrics = cli.Get("/metrics");
    ASSERT_TRUE(metrics);
    EXPECT_NE(metrics->body.find("idforge_snowflake_node "), std::string::npos) << metrics->body;
    EXPECT_EQ(metrics->body.find("idforge_snowflake_node 3\n"), std::string::npos) << metrics->body;
  }
  std::filesystem::remove_all(data);
  std::filesystem::remove_all(elsewhere);
}
#endif

TEST(ServeBinary, ASecondServerOnABusyPortIsAStartUpErrorNamingThePort) {
  ServeProcess first({"--node", "1", "--access-log", "off"});
  ASSERT_GT(first.port(), 0) << first.first_line();
  const std::string port = std::to_string(first.port());
  // No SO_REUSEPORT: the second one must not start and split the clients with the first.
  const auto [code, err] =
      run_binary({"serve", "--port", port, "--node", "2", "--access-log", "off"}, 5);
  EXPECT_EQ(code, 1) << err;
  EXPECT_NE(err.find("127.0.0.1:" + port), std::string::npos) << err;
  EXPECT_NE(err.find("port " + port + " is in use"), std::string::npos) << err;
  EXPECT_EQ(health_status(first.port()), 200);
}

TEST(ServeBinary, AccessLogEscapesWhatTheClientSent) {
  const std::string log = ::testing::TempDir() + "/idforge_access_escape.log";
  std::filesystem::remove(log);
  {
    ServeProcess s({"--node", "1", "--access-log", log});
    ASSERT_GT(s.port(), 0) << s.first_line();
    // A quote, a byte above 0x7F and an escape sequence in the target, each of which would
    // let a client end the quoted field, break UTF-8 or drive a terminal.
    exchange(s.port(), {"GET /a\"b\xff HTTP/1.1\r\nHost: t\r\n\r\n"}, 1, true);
    exchange(s.port(), {"GET /x\x1b[31mred HTTP/1.1\r\nHost: t\r\n\r\n"}, 1, true);
    exchange(s.port(), {"GET /v1/ids/snowflake?count=\"%22 HTTP/1.1\r\nHost: t\r\n\r\n"}, 1, true);
    EXPECT_EQ(s.stop(SIGTERM), 0);
  }
  std::ifstream in(log, std::ios::binary);
  std::stringstream all;
  all << in.rdbuf();
  const std::string text = all.str();
  int lines = 0;
  std::istringstream split(text);
  for (std::string line; std::getline(split, line); ++lines) {
    EXPECT_EQ(std::count(line.begin(), line.end(), '"'), 2) << line;
    for (const char c : line) {
      const auto u = static_cast<unsigned char>(c);
      EXPECT_TRUE(u >= 0x20 && u < 0x7f) << "byte " << int(u) << " in " << line;
    }
  }
  EXPECT_EQ(lines, 3) << text;
  EXPECT_NE(text.find("/a\\x22b\\xff"), std::string::npos) << text;
  EXPECT_NE(text.find("/x\\x1b[31mred"), std::string::npos) << text;
}

TEST(ServeBinary, ALayoutThatCannotIssueIsRefusedAtStartUp) {
  const auto [code, err] = run_binary({"serve", "--port", "0", "--node", "1", "--access-log", "off",
                                       "--layout", "time=22,dc=5,worker=5,seq=31"},
                                      5);
  EXPECT_EQ(code, 1) << err;
  EXPECT_NE(err.find("time=22,dc=5,worker=5,seq=31"), std::string::npos) << err;
  EXPECT_NE(err.find("22-bit time field ran out"), std::string::npos) << err;
}

TEST(ServeBinary, AConfigThatIsAFolderIsAnError) {
  const auto [code, err] = run_binary({"serve", "--port", "0", "--node", "1", "--access-log", "off",
                                       "--config", ::testing::TempDir()},
                                      5);
  EXPECT_EQ(code, 1) << err;
  EXPECT_NE(err.find("is a folder"), std::string::npos) << err;
}

// A FIFO without a reader as the access log: opening it must fail at once with a clear
// error, not wait for a reader with SIGINT/SIGTERM blocked (only SIGKILL would end that).
TEST(ServeBinary, AnAccessLogFifoWithoutAReaderIsAStartUpError) {
  const std::string fifo = ::testing::TempDir() + "/idforge_access_fifo";
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto [code, err] =
      run_binary({"serve", "--port", "0", "--node", "1", "--access-log", fifo}, 5);
  std::filesystem::remove(fifo);
  EXPECT_EQ(code, 1) << err;
  EXPECT_NE(err.find("access-log='" + fifo + "': cannot be opened: a FIFO with no reader"),
            std::string::npos)
      << err;
}

// Only a regular file is read as settings: a FIFO (no writer) would hold open() and
// /dev/zero would never end.
TEST(ServeBinary, AConfigThatIsNotARegularFileIsAnError) {
  const std::string fifo = ::testing::TempDir() + "/idforge_config_fifo";
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& path : {fifo, std::string("/dev/zero")}) {
    const auto [code, err] = run_binary(
        {"serve", "--port", "0", "--node", "1", "--access-log", "off", "--config", path}, 5);
    EXPECT_EQ(code, 1) << path << ": " << err;
    EXPECT_NE(err.find("config file '" + path + "': is not a regular file"), std::string::npos)
        << err;
  }
  std::filesystem::remove(fifo);
}

TEST(ServeBinary, AConfigOverOneMebibyteIsAnError) {
  const std::string big = ::testing::TempDir() + "/idforge_config_big";
  {
    std::ofstream out(big);
    const std::string comment = "# " + std::string(1022, 'x') + "\n";
    for (int i = 0; i < 1025; ++i) out << comment;
  }
  const auto [code, err] = run_binary(
      {"serve", "--port", "0", "--node", "1", "--access-log", "off", "--config", big}, 5);
  std::filesystem::remove(big);
  EXPECT_EQ(code, 1) << err;
  EXPECT_NE(err.find("is 1050625 bytes; a settings file holds at most 1048576"), std::string::npos)
      << err;
}

// A token of spaces or control bytes could never match a Bearer header: refused at start.
TEST(ServeBinary, ATokenThatCannotBeSentIsAStartUpError) {
  for (const std::string token : {" ", "a b", "tab\there"}) {
    const auto [code, err] = run_binary(
        {"serve", "--port", "0", "--node", "1", "--access-log", "off", "--token", token}, 5);
    EXPECT_EQ(code, 1) << "'" << token << "': " << err;
    EXPECT_NE(err.find("a bearer token is visible ASCII only"), std::string::npos) << err;
    EXPECT_NE(err.find("setting token='<hidden>'"), std::string::npos) << err;
  }
}

// A bad value from a settings file is shown with its control bytes escaped.
TEST(ServeBinary, ConfigErrorsEscapeTheBytesTheyShow) {
  const std::string path = ::testing::TempDir() + "/idforge_escape.conf";
  std::ofstream(path) << "port=\x1b[31m9\n";
  const auto [code, err] =
      run_binary({"serve", "--node", "1", "--access-log", "off", "--config", path}, 5);
  std::filesystem::remove(path);
  EXPECT_EQ(code, 1) << err;
  EXPECT_EQ(err.find('\x1b'), std::string::npos) << err;
  EXPECT_NE(err.find("port='\\x1b[31m9'"), std::string::npos) << err;
}

// An answered Connection: close request gives its max-connections slot back at once, not
// after the linger that waits for the client to close.
TEST(ServeBinary, AnAnsweredConnectionCloseDoesNotHoldItsSlotWhileItLingers) {
  ServeProcess s({"--node", "1", "--access-log", "off", "--max-connections", "1", "--data",
                  ::testing::TempDir() + "/idforge_linger_data"});
  ASSERT_GT(s.port(), 0) << s.first_line();
  const int first = connect_local(s.port());
  ASSERT_GE(first, 0);
  ASSERT_TRUE(send_all(first, "GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"));
  char buf[4096];
  ASSERT_GT(::recv(first, buf, sizeof buf, 0), 0);  // answered; this side stays open
  // The slot is given back just after the answer is written: a few tries, 50 ms apart,
  // cover that moment; a slot held through the linger (1 s) fails all of them.
  RawExchange next;
  for (int i = 0; i < 3; ++i) {
    next = exchange(s.port(), {"GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"}, 1,
                    true);
    if (!next.responses.empty() && next.responses[0].status == 200) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ::close(first);
  ASSERT_EQ(next.responses.size(), 1u) << next.raw;
  EXPECT_EQ(next.responses[0].status, 200) << next.raw;
}

#ifdef IDFORGE_SERVER_HAVE_LEASE
// SIGTERM: the listening socket closes at once, an idle keep-alive connection closes, a
// request whose head is half read is still answered (with Connection: close), then the
// lease is released, so the next server gets the same node ID at once.
TEST(ServeBinary, SigtermFinishesTheRequestInFlightAndReleasesTheLease) {
  const std::string data = ::testing::TempDir() + "/idforge_graceful_data";
  std::filesystem::remove_all(data);
  ServeProcess s({"--access-log", "off", "--data", data, "--request-timeout-ms", "20000",
                  "--read-timeout-ms", "20000", "--keep-alive-timeout-ms", "20000"});
  ASSERT_GT(s.port(), 0) << s.first_line();
  ASSERT_NE(s.first_line().find("listening"), std::string::npos);
  const int idle = connect_local(s.port());
  ASSERT_TRUE(send_all(idle, "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"));
  char buf[4096];
  ASSERT_GT(::recv(idle, buf, sizeof buf, 0), 0);  // answered; the connection stays open
  const int busy = connect_local(s.port());
  ASSERT_TRUE(send_all(busy, "GET /v1/ids/snowflake HTTP/1.1\r\nHost: t\r\n"));
  // The half head must have reached the server before the signal; nothing to observe it by.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ::kill(s.pid(), SIGTERM);
  // Stops accepting: connects are refused within a moment.
  bool refused = false;
  for (int i = 0; i < 200 && !refused; ++i) {
    const int fd = connect_local(s.port());
    refused = fd < 0;
    if (fd >= 0)
      ::close(fd);
    else
      break;
    std::this_thread::sleep_for(
        std::chrono::milliseconds(10));  // the signal thread wakes every 200 ms
  }
  EXPECT_TRUE(refused);
  EXPECT_EQ(read_until_close(idle, 3000), "");  // closed without an answer
  ::close(idle);
  ASSERT_TRUE(send_all(busy, "\r\n"));
  const std::string answer = read_until_close(busy, 5000);
  ::close(busy);
  EXPECT_EQ(status_of(answer), 200) << answer;
  EXPECT_NE(answer.find("Connection: close"), std::string::npos) << answer;
  EXPECT_NE(answer.find("\"id_str\""), std::string::npos) << answer;
  EXPECT_EQ(s.stop(SIGTERM), 0);
  // Released with the exact last time: a new server gets node 0 again, at once.
  ServeProcess again({"--access-log", "off", "--data", data});
  ASSERT_GT(again.port(), 0) << again.first_line();
  const RawExchange m = exchange(
      again.port(), {"GET /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"}, 1, true);
  ASSERT_EQ(m.responses.size(), 1u);
  EXPECT_NE(m.responses[0].body.find("idforge_snowflake_node 0\n"), std::string::npos)
      << m.responses[0].body;
}
#endif

// Reads the "listening on" line and returns the port, or 0.
int read_port(const Child& c) {
  std::string line;
  char ch;
  while (::read(c.out, &ch, 1) == 1 && ch != '\n') line += ch;
  std::smatch m;
  if (!std::regex_match(line, m,
                        std::regex(R"(idforge serve: listening on http://127\.0\.0\.1:(\d+)/)")))
    return 0;
  return std::stoi(m[1]);
}

TEST(ServeBinary, MasksWithKeysFromAFileOrTheEnvironment) {
  const std::string key = "4:000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
  const std::string file = ::testing::TempDir() + "/idforge_serve_mask_keys";
  std::ofstream(file) << key << "\n";
  const std::vector<std::string> base = {"serve",
                                         "--port",
                                         "0",
                                         "--access-log",
                                         "off",
                                         "--node",
                                         "3",
                                         "--data",
                                         ::testing::TempDir() + "/idforge_serve_mask_data"};
  std::vector<std::string> with_file = base;
  with_file.insert(with_file.end(), {"--mask-key-file", file});
  std::string first;
  for (const auto& [args, env] :
       {std::pair{with_file, std::vector<std::string>{"IDFORGE_MASK_KEYS="}},
        std::pair{base, std::vector<std::string>{"IDFORGE_MASK_KEYS=" + key,
                                                 "IDFORGE_MASK_KEY_FILE="}}}) {
    Child c = spawn(args, env);
    const int port = read_port(c);
    ASSERT_NE(port, 0);
    idforge::test::HttpClient cli("127.0.0.1", port);
    auto r = cli.Get("/v1/mask/4001", {{"Accept", "text/plain"}});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << r->body;
    if (first.empty()) first = r->body;
    EXPECT_EQ(r->body, first) << "the file and the variable hold the same key";
    auto back =
        cli.Get("/v1/unmask/" + r->body.substr(0, r->body.size() - 1), {{"Accept", "text/plain"}});
    ASSERT_TRUE(back);
    EXPECT_EQ(back->body, "4001\n");
    ::kill(c.pid, SIGTERM);
    EXPECT_EQ(wait_exit(c, 10), 0);
  }
  std::remove(file.c_str());
}

TEST(ServeBinary, RefusesToStartWithABadMaskKeyFile) {
  Child c = spawn({"serve", "--port", "0", "--access-log", "off", "--node", "3", "--mask-key-file",
                   "/nonexistent/idforge-keys"});
  EXPECT_EQ(wait_exit(c, 10), 1);
}

TEST(ServeBinary, RefusesToBindBeyondLoopbackWithoutToken) {
  Child c = spawn({"serve", "--bind", "0.0.0.0", "--port", "0"});
  EXPECT_EQ(wait_exit(c, 10), 1);
}

}  // namespace
}  // namespace idforge::test
