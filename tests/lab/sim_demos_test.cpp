// The seed's five demos as the simulation answers them: the exact numbers the page shows.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "idforge/error.hpp"
#include "idforge/lab/page_sim.hpp"

namespace idforge::lab {
namespace {

using nlohmann::json;

// 2024-05-01T00:00:00Z: any start gives the same story; a fixed one gives the same IDs.
constexpr std::int64_t kStart = 1'714'521'600'000;

json demo(int n) {
  return json::parse(sim_demo_json(n, kStart));
}

std::string field(const json& entry, const std::string& name) {
  for (const json& f : entry["fields"])
    if (f["name"] == name) return f["value"].get<std::string>();
  ADD_FAILURE() << "no field " << name;
  return {};
}

std::vector<std::vector<std::uint64_t>> leaves(const json& tree) {
  std::vector<std::vector<std::uint64_t>> out;
  for (const json& leaf : tree["leaves"]) {
    out.emplace_back();
    for (const json& k : leaf["keys"]) out.back().push_back(k["n"].get<std::uint64_t>());
  }
  return out;
}

TEST(SimDemo1, TwoMachinesDifferOnlyInTimeAndMachine) {
  const json d = demo(1);
  EXPECT_EQ(d["result"]["differing_fields"], json({"timestamp", "machine id"}));
  EXPECT_EQ(d["result"]["same_fields"], json({"sign", "sequence"}));
  const json& a = d["latest"][0];
  const json& b = d["latest"][1];
  EXPECT_EQ(a["machine"], "M1");
  EXPECT_EQ(b["machine"], "M2");
  EXPECT_EQ(field(a, "machine id"), "1");
  EXPECT_EQ(field(b, "machine id"), "2");
  EXPECT_EQ(std::stoll(field(b, "timestamp")) - std::stoll(field(a, "timestamp")), 1);
  EXPECT_EQ(a["clock_ms"], kStart);
  EXPECT_EQ(a["id_str"], std::to_string(a["id"].get<std::uint64_t>()));
}

TEST(SimDemo1, SameStartSameSnowflakeIds) {
  EXPECT_EQ(demo(1)["latest"][0]["id_str"], demo(1)["latest"][0]["id_str"]);
}

TEST(SimDemo2, The4097thRequestInOneMillisecondWaits1Ms) {
  const json d = demo(2);
  const json& r = d["result"];
  EXPECT_EQ(r["requests"], 4097);
  EXPECT_EQ(r["distinct"], 4097);
  EXPECT_EQ(r["issued_without_waiting"], 4096);
  EXPECT_EQ(r["waited_requests"], 1);
  EXPECT_EQ(r["sequence_exhausted_waits"], 1);
  EXPECT_EQ(r["last"]["n"], 4097);
  EXPECT_EQ(r["last"]["waited_ms"], 1);
  EXPECT_EQ(r["last"]["sequence"], "0");
  EXPECT_EQ(r["last"]["timestamp_after_first_ms"], 1);
  EXPECT_EQ(field(d["latest"][0], "sequence"), "4095");
  EXPECT_EQ(d["log"].size(), 6u);
  EXPECT_EQ(d["log_elided"], 4091);
  EXPECT_EQ(d["log"][5]["waited_ms"], 1);
}

TEST(SimDemo3, ClockBackFiveMsRefusedThreeBehindThenWaitsThree) {
  const json d = demo(3);
  std::vector<std::string> types;
  for (const json& e : d["log"])
    types.push_back(e["type"].get<std::string>() + ":" + e["machine"].get<std::string>());
  EXPECT_EQ(types, (std::vector<std::string>{"id:M1", "id:M2", "clock_step:M2", "id:M1",
                                             "refused:M2", "policy:M2", "id:M2"}));
  const json& r = d["result"];
  EXPECT_EQ(r["step_ms"], -5);
  EXPECT_EQ(r["refused"]["behind_ms"], 3);
  EXPECT_NE(r["refused"]["message"].get<std::string>().find("3 ms behind"), std::string::npos)
      << r["refused"]["message"];
  EXPECT_EQ(r["waited"]["waited_ms"], 3);
  EXPECT_EQ(r["refusals"], 1);
  // Requests keep coming 1 ms apart; the one that waits is asked at +4 ms.
  EXPECT_EQ(d["log"][4]["at_ms"], 3);
  EXPECT_EQ(d["log"][6]["at_ms"], 4);
  EXPECT_EQ(d["log"][6]["waited_ms"], 3);
  // M2's ID after the wait lies in the millisecond after its last one, so nothing repeats.
  const json& before = d["log"][1];
  const json& after = d["log"][6];
  EXPECT_EQ(std::stoll(field(after, "timestamp")) - std::stoll(field(before, "timestamp")), 1);
  std::set<std::string> ids;
  for (const json& e : d["log"])
    if (e["type"] == "id") EXPECT_TRUE(ids.insert(e["id_str"].get<std::string>()).second);
}

TEST(SimDemo4, V7SortsIntoCreationOrderV4DoesNot) {
  const json d = demo(4);
  const json& v7 = d["result"]["tables"][0];
  const json& v4 = d["result"]["tables"][1];
  EXPECT_EQ(v7["kind"], "uuid7");
  EXPECT_EQ(v7["pairs"], 7);
  EXPECT_EQ(v7["pairs_in_order"], 7);
  EXPECT_EQ(v4["kind"], "uuid4");
  EXPECT_EQ(v4["pairs"], 7);
  // Rows sorted by ID (lowercase hex sorts as the bytes do); the count matches the rows.
  for (const json* t : {&v7, &v4}) {
    std::size_t in_order = 0;
    for (std::size_t i = 1; i < (*t)["rows"].size(); ++i) {
      EXPECT_LT((*t)["rows"][i - 1]["id_str"].get<std::string>(),
                (*t)["rows"][i]["id_str"].get<std::string>());
      in_order += (*t)["rows"][i - 1]["n"] < (*t)["rows"][i]["n"];
    }
    EXPECT_EQ((*t)["pairs_in_order"], in_order);
  }
  for (const json& row : v4["rows"]) EXPECT_EQ(row["id_str"].get<std::string>()[14], '4');
  for (const json& row : v7["rows"]) EXPECT_EQ(row["id_str"].get<std::string>()[14], '7');
}

TEST(SimDemo5, V7FillsThreeLeavesWithTwoSplitsAndSixteenWrites) {
  const json d = demo(5);
  const json& v7 = d["trees"][0]["tree"];
  EXPECT_EQ(v7["kind"], "uuid7");
  EXPECT_EQ(leaves(v7),
            (std::vector<std::vector<std::uint64_t>>{{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}}));
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(v7["leaves"][i]["leaf_no"], i + 1);  // p1 p2 p3
  EXPECT_EQ(v7["stats"]["splits"], 2);
  EXPECT_EQ(v7["stats"]["page_writes"], 16);
  EXPECT_DOUBLE_EQ(v7["stats"]["leaf_fill"].get<double>(), 1.0);
}

TEST(SimDemo5, V4KeepsEveryKeyAndCountsWritesAsTheSeedDoes) {
  const json d = demo(5);
  const json& v4 = d["trees"][1]["tree"];
  EXPECT_EQ(v4["kind"], "uuid4");
  std::set<std::uint64_t> seen;
  for (const auto& leaf : leaves(v4)) {
    EXPECT_LE(leaf.size(), 4u);
    seen.insert(leaf.begin(), leaf.end());
  }
  EXPECT_EQ(seen.size(), 12u);
  const auto splits = v4["stats"]["splits"].get<std::uint64_t>();
  EXPECT_GE(splits, 2u);
  EXPECT_EQ(v4["stats"]["page_writes"], 12 + 2 * splits);
  EXPECT_DOUBLE_EQ(v4["stats"]["leaf_fill"].get<double>(),
                   12.0 / (4.0 * v4["stats"]["leaves"].get<double>()));
}

TEST(SimDemo5, OverAThousandRunsV4SplitsMoreThanV7) {
  const json trials = demo(5)["result"]["trials"];
  const json& v7 = trials[0];
  const json& v4 = trials[1];
  EXPECT_EQ(v7["runs"], 1000);
  EXPECT_EQ(v7["histogram"], json::parse(R"([{"splits":2,"runs":1000}])"));
  // Mean near 3.2 (4 leaves); its spread over 1,000 runs is about 0.02.
  EXPECT_GT(v4["mean_splits"].get<double>(), 2.8);
  EXPECT_LT(v4["mean_leaf_fill"].get<double>(), 0.85);
}

TEST(SimRun, MachinesTakeTurnsOneMsApartAndEveryStepHasItsTree) {
  const json r = json::parse(sim_run_json(SimKind::snowflake, 12, kStart));
  ASSERT_EQ(r["steps"].size(), 12u);
  for (std::size_t i = 0; i < 12; ++i) {
    const json& s = r["steps"][i];
    EXPECT_EQ(s["entry"]["machine"], i % 2 == 0 ? "M1" : "M2");
    EXPECT_EQ(s["entry"]["n"], i + 1);
    EXPECT_EQ(s["entry"]["at_ms"], i);
    EXPECT_EQ(s["entry"]["bits"].get<std::string>().size(), 64u);
    EXPECT_EQ(s["tree"]["stats"]["inserts"], i + 1);
  }
  EXPECT_EQ(leaves(r["steps"][11]["tree"]),
            (std::vector<std::vector<std::uint64_t>>{{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}}));
}

TEST(SimRun, UuidBitsAreTheCanonicalTextsBits) {
  const json r = json::parse(sim_run_json(SimKind::uuid7, 1, kStart));
  const json& e = r["steps"][0]["entry"];
  std::string hex = e["id_str"];
  hex.erase(std::remove(hex.begin(), hex.end(), '-'), hex.end());
  std::string bits;
  for (char c : hex) {
    const int v = std::stoi(std::string(1, c), nullptr, 16);
    for (int b = 3; b >= 0; --b) bits += ((v >> b) & 1) ? '1' : '0';
  }
  EXPECT_EQ(e["bits"], bits);
  EXPECT_EQ(field(e, "unix_ts_ms"), std::to_string(kStart));
  EXPECT_EQ(field(e, "ver"), "7");
}

TEST(SimLayouts, FieldsAddUpToTheSeedsWidths) {
  const json l = json::parse(sim_layouts_json())["layouts"];
  ASSERT_EQ(l.size(), 3u);
  auto widths = [](const json& layout) {
    std::vector<std::pair<std::string, int>> out;
    for (const json& f : layout["fields"]) out.emplace_back(f["name"], f["width"]);
    return out;
  };
  using W = std::vector<std::pair<std::string, int>>;
  EXPECT_EQ(widths(l[0]),
            (W{{"sign", 1}, {"timestamp", 41}, {"machine id", 10}, {"sequence", 12}}));
  EXPECT_EQ(widths(l[1]),
            (W{{"unix_ts_ms", 48}, {"ver", 4}, {"rand_a", 12}, {"var", 2}, {"rand_b", 62}}));
  EXPECT_EQ(widths(l[2]),
            (W{{"random_a", 48}, {"ver", 4}, {"random_b", 12}, {"var", 2}, {"random_c", 62}}));
}

// Table-driven: each bad input names its value and the rule.
TEST(SimErrors, BadInputsNameTheValueAndTheRule) {
  struct Case {
    std::function<void()> call;
    std::string needle;
  };
  const std::vector<Case> cases{
      {[] { parse_sim_kind("uuid1"); },
       "kind='uuid1' is not simulated; kinds: snowflake, uuid7, uuid4"},
      {[] { sim_run_json(SimKind::uuid4, 0, kStart); }, "count=0 must be from 1 to 64"},
      {[] { sim_run_json(SimKind::uuid4, 65, kStart); }, "count=65 must be from 1 to 64"},
      {[] { sim_run_json(SimKind::uuid4, 1, 5); }, "start_ms=5 must be from"},
      {[] { sim_demo_json(6, kStart); }, "demo 6 does not exist; demos are 1 to 5"},
  };
  for (const Case& c : cases) {
    try {
      c.call();
      ADD_FAILURE() << "no error for: " << c.needle;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), errc::invalid_argument);
      EXPECT_NE(std::string(e.what()).find(c.needle), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace idforge::lab
