#include "idforge/lab/cost_model.hpp"

#include "idforge/error.hpp"

namespace idforge::lab {

std::vector<CostInput> seed_cost_inputs() {
  const std::string src = "seed's assumption";
  return {{KeyKind::snowflake, 0.95, src},
          {KeyKind::uuid7, 0.95, src},
          {KeyKind::uuid4, 0.70, src},
          {KeyKind::uuid4_text, 0.70, src}};
}

std::vector<CostRow> cost_table(const std::vector<CostInput>& inputs, const CostOptions& o) {
  if (!(o.rows >= 1))
    throw Error(errc::invalid_argument, "rows " + std::to_string(o.rows) + ": must be at least 1");
  if (o.copies == 0)
    throw Error(errc::invalid_argument, "copies 0: the primary key itself is one copy");
  std::vector<CostRow> rows;
  for (const CostInput& in : inputs) {
    if (!(in.fill > 0 && in.fill <= 1))
      throw Error(errc::invalid_argument, "fill " + std::to_string(in.fill) + " for " +
                                              std::string(info(in.kind).name) +
                                              ": must be above 0 and at most 1");
    CostRow r;
    r.input = in;
    r.raw_bytes = static_cast<double>(info(in.kind).key_bytes) * o.copies * o.rows;
    r.index_bytes = r.raw_bytes / in.fill;
    const double gb = r.index_bytes / 1e9;
    for (double tier : o.ram_tiers_gb)
      if (tier >= gb) {
        r.server_gb = tier;
        break;
      }
    r.tight = r.server_gb > 0 && gb > o.tight_share * r.server_gb;
    r.usd_per_month = r.server_gb * o.usd_per_gb_month;
    rows.push_back(r);
  }
  return rows;
}

}  // namespace idforge::lab
