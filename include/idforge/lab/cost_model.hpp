// The cost model of seed 000 ("How much does your ID choice cost in RAM and dollars?"):
// raw ID bytes = key bytes x copies (primary key + secondary indexes that repeat it, as in
// InnoDB) x rows; real index size = raw / leaf fill; the server is the smallest RAM size that
// holds the index; its monthly price scales with RAM. The seed assumes the fill (95% sorted,
// 70% random); here the fill is an input that says where it came from.
#pragma once

#include <string>
#include <vector>

#include "idforge/lab/key_kind.hpp"

namespace idforge::lab {

/// One ID format with the leaf fill to assume for it and where that fill came from.
struct CostInput {
  KeyKind kind{};
  double fill = 0;  ///< leaf fill, (0, 1]
  std::string
      fill_source;  ///< e.g. "seed's assumption", "simulator, 2000000 keys", "measured: sqlite"
};

/// Sizes and prices. Defaults reproduce the seed: 1e9 rows, 5 copies, power-of-two servers,
/// $650 a month per 64 GB (rough on-demand RDS memory-optimised prices), GB = 1e9 bytes.
struct CostOptions {
  double rows = 1e9;
  unsigned copies = 5;
  double usd_per_gb_month = 650.0 / 64.0;
  double tight_share = 0.8;  ///< an index above this share of the server's RAM is "tight"
  std::vector<double> ram_tiers_gb{8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384};
};

/// One row of the seed's tables.
struct CostRow {
  CostInput input;
  double raw_bytes = 0;      ///< key bytes x copies x rows
  double index_bytes = 0;    ///< raw_bytes / fill
  double server_gb = 0;      ///< smallest tier >= index size; 0 if beyond the largest tier
  bool tight = false;        ///< index above tight_share of server_gb
  double usd_per_month = 0;  ///< server_gb x usd_per_gb_month
};

/// The seed's own inputs: Snowflake, UUIDv7, UUIDv4 binary at 95% / 95% / 70%, UUIDv4 text at 70%.
std::vector<CostInput> seed_cost_inputs();

/// The table for inputs. Throws Error(errc::invalid_argument) for rows < 1, copies 0, or a
/// fill outside (0, 1], naming the value.
std::vector<CostRow> cost_table(const std::vector<CostInput>& inputs,
                                const CostOptions& options = {});

}  // namespace idforge::lab
