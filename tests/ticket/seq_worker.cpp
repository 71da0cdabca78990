// A separate process drawing from a segment, for the multi-process and kill -9 tests.
//   seq_worker draw STORE NAME THREADS PER_THREAD STEP OUTFILE
//       THREADS threads draw PER_THREAD values each; all values go to OUTFILE (int64,
//       binary); prints "lost N" after close().
//   seq_worker stream STORE NAME STEP MAX
//       one thread prints each value on its own line, flushed, up to MAX values.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "idforge/error.hpp"
#include "idforge/ticket/segment_client.hpp"
#include "idforge/ticket/segment_store.hpp"

using namespace idforge::ticket;

int main(int argc, char** argv) {
  try {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "draw" && argc == 8) {
      auto store = open_segment_store(argv[2]);
      const int threads = std::atoi(argv[4]);
      const long per = std::atol(argv[5]);
      SegmentOptions o;
      o.initial_step = std::atol(argv[6]);
      SegmentClient client(*store, argv[3], o);
      std::vector<std::vector<std::int64_t>> got(static_cast<std::size_t>(threads));
      std::vector<std::thread> ts;
      for (int t = 0; t < threads; ++t)
        ts.emplace_back([&, t] {
          auto& v = got[static_cast<std::size_t>(t)];
          v.reserve(static_cast<std::size_t>(per));
          for (long i = 0; i < per; ++i) v.push_back(client.next());
        });
      for (auto& t : ts) t.join();
      FILE* f = std::fopen(argv[7], "wb");
      if (!f) return 3;
      for (const auto& v : got) std::fwrite(v.data(), sizeof(std::int64_t), v.size(), f);
      std::fclose(f);
      std::printf("lost %lld\n", static_cast<long long>(client.close()));
      return 0;
    }
    if (mode == "stream" && argc == 6) {
      auto store = open_segment_store(argv[2]);
      SegmentOptions o;
      o.initial_step = std::atol(argv[4]);
      SegmentClient client(*store, argv[3], o);
      const long max = std::atol(argv[5]);
      for (long i = 0; i < max; ++i) {
        std::printf("%lld\n", static_cast<long long>(client.next()));
        std::fflush(stdout);
      }
      return 0;
    }
  } catch (const idforge::Error& e) {
    std::fprintf(stderr, "seq_worker: %s\n", e.what());
    return 1;
  }
  std::fprintf(stderr,
               "usage: seq_worker draw STORE NAME THREADS PER_THREAD STEP OUTFILE | stream STORE "
               "NAME STEP MAX\n");
  return 2;
}
