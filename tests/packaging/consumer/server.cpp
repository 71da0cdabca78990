// idforge::server alone: a service bound to a free loopback port, never run.
#include <idforge/server/server.hpp>

#include <iostream>

int main() {
  idforge::server::ServerConfig config;
  config.bind = "127.0.0.1";
  config.port = 0;
  config.access_log = "off";
  idforge::server::Server srv(config);
  std::cout << "server: bound " << (srv.bind() > 0 ? "a free port" : "nothing") << "\n";
}
