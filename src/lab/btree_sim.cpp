#include "idforge/lab/btree_sim.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "idforge/error.hpp"

namespace idforge::lab {
namespace {

struct Entry {
  Key128 key;
  std::uint64_t created;
};

std::string fmt_key(const Key128& k) {
  return to_hex(k);
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Configuration

BTreeConfig BTreeConfig::for_page(std::uint32_t page_bytes, std::uint32_t key_bytes,
                                  std::uint32_t entry_overhead, std::uint32_t child_pointer_bytes) {
  if (key_bytes == 0)
    throw Error(errc::invalid_argument, "key size is 0 bytes: must be at least 1");
  const std::uint64_t entry = std::uint64_t{key_bytes} + entry_overhead;
  if (page_bytes / entry < 2)
    throw Error(errc::invalid_argument,
                "page of " + std::to_string(page_bytes) + " bytes holds fewer than 2 entries of " +
                    std::to_string(entry) + " bytes: a page must hold at least 2 keys");
  BTreeConfig c;
  c.page_bytes = page_bytes;
  c.leaf_capacity = static_cast<std::uint32_t>(page_bytes / entry);
  c.interior_fanout = static_cast<std::uint32_t>(
      std::max<std::uint64_t>(3, page_bytes / (std::uint64_t{key_bytes} + child_pointer_bytes)));
  return c;
}

void BTreeConfig::validate() const {
  if (leaf_capacity < 2)
    throw Error(errc::invalid_argument, "leaf capacity " + std::to_string(leaf_capacity) +
                                            " keys: a leaf must hold at least 2 keys to split");
  if (leaf_capacity > (1u << 24))
    throw Error(errc::invalid_argument, "leaf capacity " + std::to_string(leaf_capacity) +
                                            " keys: at most 16777216 keys a leaf");
  if (interior_fanout < 3)
    throw Error(errc::invalid_argument, "interior fan-out " + std::to_string(interior_fanout) +
                                            ": an interior page must hold at least 3 children");
  if (!(rightmost_fill > 0.0 && rightmost_fill <= 1.0))
    throw Error(errc::invalid_argument, "rightmost fill " + std::to_string(rightmost_fill) +
                                            ": must be above 0 and at most 1");
}

// ---------------------------------------------------------------------------------------
// Construction and page allocation

BTreeSim::BTreeSim(const BTreeConfig& config) : config_(config), pool_(config.pool_pages) {
  config_.validate();
  keep_on_right_edge_leaf_ = std::clamp<std::uint32_t>(
      static_cast<std::uint32_t>(std::floor(config_.rightmost_fill * config_.leaf_capacity)), 1,
      config_.leaf_capacity);
  keep_on_right_edge_interior_ = std::clamp<std::uint32_t>(
      static_cast<std::uint32_t>(std::floor(config_.rightmost_fill * config_.interior_fanout)), 2,
      config_.interior_fanout);
  root_ = new_leaf();
}

std::uint32_t BTreeSim::new_leaf() {
  const auto idx = static_cast<std::uint32_t>(leaves_.size());
  Leaf leaf;
  leaf.page = pages_++;
  leaves_.push_back(leaf);
  keys_.resize(keys_.size() + config_.leaf_capacity);
  if (config_.record_creation) created_.resize(keys_.size());
  pool_.add_new(leaf.page);
  return idx;
}

std::uint32_t BTreeSim::new_interior() {
  const auto idx = static_cast<std::uint32_t>(interiors_.size());
  Interior in;
  in.page = pages_++;
  in.seps.reserve(config_.interior_fanout);
  in.sep_hi.reserve(config_.interior_fanout);
  in.child.reserve(config_.interior_fanout + 1);
  interiors_.push_back(std::move(in));
  pool_.add_new(interiors_.back().page);
  return idx;
}

// ---------------------------------------------------------------------------------------
// Insert

// upper_bound of key in the separators: a branchless search over the high halves (one
// cache line holds 8 of them), then a step back over separators that share key's high half.
std::uint32_t BTreeSim::child_slot(const Interior& in, const Key128& key) noexcept {
  const std::uint64_t* a = in.sep_hi.data();
  std::size_t n = in.sep_hi.size();
  if (n == 0) return 0;
  const std::uint64_t* base = a;
  while (n > 1) {
    const std::size_t half = n / 2;
    base = base[half] <= key.hi ? base + half : base;
    n -= half;
  }
  auto u = static_cast<std::uint32_t>(base - a) + (*base <= key.hi ? 1u : 0u);
  while (u > 0 && a[u - 1] == key.hi && key < in.seps[u - 1]) --u;
  return u;
}

void BTreeSim::insert(const Key128* keys, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) insert(keys[i]);
}

void BTreeSim::insert(const Key128& key) {
  const std::uint64_t created = ++inserts_;
  page_writes_ += 1;
  PathStep path[kMaxHeight];
  int depth = 0;
  std::uint32_t node = root_;
  bool rightmost = true;
  const bool pool_on = config_.pool_pages != 0;
  for (std::uint32_t level = height_; level > 1; --level) {
    const Interior& in = interiors_[node];
    if (pool_on) pool_.access(in.page);
    const std::uint32_t slot = child_slot(in, key);
    path[depth++] = {node, slot, rightmost};
    rightmost = rightmost && slot + 1 == in.child.size();
    node = in.child[slot];
  }
  Leaf& leaf = leaves_[node];
  if (pool_on) pool_.access(leaf.page);
  if (leaf.count < config_.leaf_capacity) {
    const std::size_t at = std::size_t{node} * config_.leaf_capacity + leaf.count;
    keys_[at] = key;
    if (config_.record_creation) created_[at] = created;
    if (leaf.count == 0 || leaf.max < key) leaf.max = key;
    ++leaf.count;
    return;
  }
  split_leaf(node, key, created, rightmost && leaf.max < key, path, depth);
}

void BTreeSim::split_leaf(std::uint32_t leaf, const Key128& key, std::uint64_t created,
                          bool right_edge, const PathStep* path, int depth) {
  const std::uint32_t cap = config_.leaf_capacity;
  const std::uint32_t right = new_leaf();  // may move keys_ and leaves_: index from here on
  const bool rec = config_.record_creation;
  Key128 sep;
  if (right_edge && keep_on_right_edge_leaf_ == cap) {
    // The seed's case: the old page stays full, the new page starts with the new key.
    const std::size_t at = std::size_t{right} * cap;
    keys_[at] = key;
    if (rec) created_[at] = created;
    leaves_[right].count = 1;
    leaves_[right].max = key;
    sep = key;
  } else {
    const std::size_t base = std::size_t{leaf} * cap;
    auto& tmp = scratch_;
    tmp.resize(cap + 1);
    for (std::uint32_t i = 0; i < cap; ++i)
      tmp[i] = {keys_[base + i], rec ? created_[base + i] : 0};
    tmp[cap] = {key, created};
    // Right edge: keep the configured share; elsewhere the lower half (rounded up) stays.
    const std::uint32_t left_n = right_edge ? keep_on_right_edge_leaf_ : (cap + 2) / 2;
    auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };
    std::nth_element(tmp.begin(), tmp.begin() + left_n, tmp.end(), by_key);
    sep = tmp[left_n].first;
    Key128 left_max = tmp[0].first, right_max = tmp[left_n].first;
    for (std::uint32_t i = 0; i < left_n; ++i) {
      keys_[base + i] = tmp[i].first;
      if (rec) created_[base + i] = tmp[i].second;
      left_max = std::max(left_max, tmp[i].first);
    }
    const std::size_t rbase = std::size_t{right} * cap;
    for (std::uint32_t i = left_n; i <= cap; ++i) {
      keys_[rbase + i - left_n] = tmp[i].first;
      if (rec) created_[rbase + i - left_n] = tmp[i].second;
      right_max = std::max(right_max, tmp[i].first);
    }
    leaves_[leaf].count = left_n;
    leaves_[leaf].max = left_max;
    leaves_[right].count = cap + 1 - left_n;
    leaves_[right].max = right_max;
  }
  leaves_[right].next = leaves_[leaf].next;
  leaves_[leaf].next = right;
  ++leaf_splits_;
  page_writes_ += 2;
  insert_separator(path, depth, sep, right);
}

void BTreeSim::insert_separator(const PathStep* path, int depth, const Key128& sep,
                                std::uint32_t right) {
  if (depth == 0) {  // the page that split was the root: a new root above it
    if (height_ >= static_cast<std::uint32_t>(kMaxHeight))
      throw Error(errc::invalid_argument, "B+ tree taller than " + std::to_string(kMaxHeight) +
                                              " levels: raise the fan-out");
    const std::uint32_t old_root = root_;
    const std::uint32_t r = new_interior();
    interiors_[r].seps.push_back(sep);
    interiors_[r].sep_hi.push_back(sep.hi);
    interiors_[r].child = {old_root, right};
    root_ = r;
    ++height_;
    return;
  }
  const PathStep step = path[depth - 1];
  {
    Interior& in = interiors_[step.node];
    in.seps.insert(in.seps.begin() + step.slot, sep);
    in.sep_hi.insert(in.sep_hi.begin() + step.slot, sep.hi);
    in.child.insert(in.child.begin() + step.slot + 1, right);
    if (in.child.size() <= config_.interior_fanout) return;
  }
  const auto total = static_cast<std::uint32_t>(interiors_[step.node].child.size());
  const bool right_edge = step.rightmost && step.slot + 2 == total;
  const std::uint32_t keep = right_edge ? keep_on_right_edge_interior_ : (total + 1) / 2;
  const std::uint32_t r = new_interior();  // may move interiors_
  Interior& a = interiors_[step.node];
  Interior& b = interiors_[r];
  const Key128 up = a.seps[keep - 1];
  b.seps.assign(a.seps.begin() + keep, a.seps.end());
  b.sep_hi.assign(a.sep_hi.begin() + keep, a.sep_hi.end());
  b.child.assign(a.child.begin() + keep, a.child.end());
  a.seps.resize(keep - 1);
  a.sep_hi.resize(keep - 1);
  a.child.resize(keep);
  ++interior_splits_;
  page_writes_ += 2;
  insert_separator(path, depth - 1, up, r);
}

// ---------------------------------------------------------------------------------------
// Reading

BTreeStats BTreeSim::stats() const {
  BTreeStats s;
  s.inserts = inserts_;
  s.leaf_splits = leaf_splits_;
  s.interior_splits = interior_splits_;
  s.page_writes = page_writes_;
  s.leaves = leaves_.size();
  s.interior_pages = interiors_.size();
  s.height = height_;
  s.pool_misses = pool_.misses();
  s.leaf_fill = static_cast<double>(inserts_) /
                (static_cast<double>(s.leaves) * static_cast<double>(config_.leaf_capacity));
  s.index_bytes = (s.leaves + s.interior_pages) * std::uint64_t{config_.page_bytes};
  return s;
}

std::uint32_t BTreeSim::find_leaf(const Key128& key) const {
  std::uint32_t node = root_;
  for (std::uint32_t level = height_; level > 1; --level) {
    const Interior& in = interiors_[node];
    node = in.child[child_slot(in, key)];
  }
  return node;
}

bool BTreeSim::contains(const Key128& key) const {
  const std::uint32_t leaf = find_leaf(key);
  const Key128* s = slots(leaf);
  return std::find(s, s + leaves_[leaf].count, key) != s + leaves_[leaf].count;
}

std::vector<LeafView> BTreeSim::leaves() const {
  std::uint32_t node = root_;
  for (std::uint32_t level = height_; level > 1; --level) node = interiors_[node].child.front();
  std::vector<LeafView> out;
  out.reserve(leaves_.size());
  std::vector<Entry> tmp;
  for (std::uint32_t l = node; l != kNone; l = leaves_[l].next) {
    const std::size_t base = std::size_t{l} * config_.leaf_capacity;
    tmp.clear();
    for (std::uint32_t i = 0; i < leaves_[l].count; ++i)
      tmp.push_back({keys_[base + i], config_.record_creation ? created_[base + i] : 0});
    std::sort(tmp.begin(), tmp.end(), [](const Entry& a, const Entry& b) { return a.key < b.key; });
    LeafView v;
    v.page = leaves_[l].page;
    for (const Entry& e : tmp) {
      v.keys.push_back(e.key);
      if (config_.record_creation) v.created.push_back(e.created);
    }
    out.push_back(std::move(v));
  }
  return out;
}

void BTreeSim::check_node(std::uint32_t node, int level, const Key128* lo, const Key128* hi,
                          std::vector<std::uint32_t>& leaf_order,
                          std::vector<std::string>& problems) const {
  auto in_range = [&](const Key128& k) { return (!lo || !(k < *lo)) && (!hi || k < *hi); };
  if (level == 1) {
    const Leaf& leaf = leaves_[node];
    leaf_order.push_back(node);
    if (leaf.count > config_.leaf_capacity)
      problems.push_back("leaf " + std::to_string(node) + " holds " + std::to_string(leaf.count) +
                         " keys, over its capacity " + std::to_string(config_.leaf_capacity));
    if (leaf.count == 0 && !(height_ == 1 && inserts_ == 0))
      problems.push_back("leaf " + std::to_string(node) + " is empty");
    const Key128* s = slots(node);
    Key128 max = s[0];
    for (std::uint32_t i = 0; i < leaf.count; ++i) {
      if (!in_range(s[i]))
        problems.push_back("key " + fmt_key(s[i]) + " in leaf " + std::to_string(node) +
                           " lies outside the range its parent routes there");
      max = std::max(max, s[i]);
    }
    if (leaf.count > 0 && !(max == leaf.max))
      problems.push_back("leaf " + std::to_string(node) + " records a wrong largest key");
    return;
  }
  const Interior& in = interiors_[node];
  if (in.child.size() != in.seps.size() + 1 || in.child.size() > config_.interior_fanout ||
      in.child.empty()) {
    problems.push_back("interior page " + std::to_string(node) + " has " +
                       std::to_string(in.child.size()) + " children and " +
                       std::to_string(in.seps.size()) + " separators");
    return;
  }
  for (std::size_t i = 0; i < in.seps.size(); ++i) {
    if (!in_range(in.seps[i]))
      problems.push_back("separator " + fmt_key(in.seps[i]) + " of interior page " +
                         std::to_string(node) + " lies outside its parent's range");
    if (i > 0 && !(in.seps[i - 1] < in.seps[i]))
      problems.push_back("separators of interior page " + std::to_string(node) +
                         " are not ascending");
  }
  for (std::size_t i = 0; i < in.child.size(); ++i) {
    const Key128* clo = i == 0 ? lo : &in.seps[i - 1];
    const Key128* chi = i == in.seps.size() ? hi : &in.seps[i];
    check_node(in.child[i], level - 1, clo, chi, leaf_order, problems);
  }
}

std::vector<std::string> BTreeSim::check() const {
  std::vector<std::string> problems;
  std::vector<std::uint32_t> order;
  check_node(root_, static_cast<int>(height_), nullptr, nullptr, order, problems);
  if (order.size() != leaves_.size())
    problems.push_back("tree reaches " + std::to_string(order.size()) + " leaves of " +
                       std::to_string(leaves_.size()));
  std::uint32_t l = order.empty() ? kNone : order.front();
  for (std::size_t i = 0; i < order.size(); ++i, l = leaves_[l].next) {
    if (l != order[i]) {
      problems.push_back("leaf chain differs from the tree's left-to-right order at leaf " +
                         std::to_string(i));
      break;
    }
  }
  std::uint64_t keys = 0;
  for (const Leaf& leaf : leaves_) keys += leaf.count;
  if (keys != inserts_)
    problems.push_back("leaves hold " + std::to_string(keys) + " keys after " +
                       std::to_string(inserts_) + " inserts");
  if (leaves_.size() != 1 + leaf_splits_)
    problems.push_back(std::to_string(leaves_.size()) + " leaves after " +
                       std::to_string(leaf_splits_) + " leaf splits (expected splits + 1)");
  if (interiors_.size() != interior_splits_ + height_ - 1)
    problems.push_back(std::to_string(interiors_.size()) + " interior pages after " +
                       std::to_string(interior_splits_) + " interior splits at height " +
                       std::to_string(height_));
  if (page_writes_ != inserts_ + 2 * (leaf_splits_ + interior_splits_))
    problems.push_back("page writes " + std::to_string(page_writes_) + " != inserts + 2 * splits");
  return problems;
}

}  // namespace idforge::lab
