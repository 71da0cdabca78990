// idforge::ticket alone: a segment sequence in a SQLite file (argv[1] is a folder).
#include <idforge/ticket/segment_client.hpp>
#include <idforge/ticket/segment_store.hpp>

#include <iostream>
#include <string>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  auto store = idforge::ticket::open_segment_store("sqlite:" + std::string(argv[1]) + "/seq.db");
  store->create("orders", 1, 100);
  idforge::ticket::SegmentClient client(*store, "orders");
  const std::int64_t first = client.next();
  client.close();
  std::cout << "ticket: first value " << first << "\n";
}
