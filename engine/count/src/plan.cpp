#include "engine/count/plan.hpp"

#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <bit>
#include <limits>

#include "base/prefault.hpp"
#include "base/splitmix.hpp"
#include "engine/count/dealer.hpp"
#include "engine/count/src/splits.hpp"

namespace nq {

using namespace detail;  // this file defines them
namespace {

Mask full_mask(int n) {
  return n >= 32 ? ~Mask{0} : ((Mask{1} << n) - 1);
}
Mask bit_at(int col) {
  return Mask{1} << col;
}

// The four sides, as the squares at position p along each.
enum Side { kTop, kBottom, kLeft, kRight };
Square side_square(Side side, int p, int n) {
  switch (side) {
    case kTop:
      return {0, p};
    case kBottom:
      return {n - 1, p};
    case kLeft:
      return {p, 0};
    case kRight:
      return {p, n - 1};
  }
  return {0, 0};
}

// Rules out every square of `side` within corner distance `m` (corners included).
void forbid_near_corners(Side side, int m, int n, Mask* forbidden) {
  for (int p = 0; p < n; ++p)
    if (std::min(p, n - 1 - p) <= m) {
      const Square s = side_square(side, p, n);
      forbidden[s.row] |= bit_at(s.col);
    }
}

std::uint8_t stabilizer_of(const Placement& p, bool* canonical) {
  std::uint8_t stab = sym_bit(Sym::kIdentity);
  *canonical = true;
  for (int g = 1; g < kD4Order; ++g) {
    const Placement img = p.image(static_cast<Sym>(g));
    if (img < p) *canonical = false;
    if (img == p) stab |= sym_bit(static_cast<Sym>(g));
  }
  return stab;
}

void corner_classes(int n, const std::function<void(const ClassPrefix&)>& visit) {
  for (int c1 = 2; c1 < n; ++c1) {
    ClassPrefix c{ClassKind::kCorner, Placement(n), {}, sym_bit(Sym::kIdentity)};
    c.fixed.place(0, 0);
    c.fixed.place(1, c1);
    for (int r = 2; r <= c1; ++r) c.forbidden[r] |= bit_at(1);  // column 1's queen below row c1
    visit(c);
  }
}

void single_classes(int n, const std::function<void(const ClassPrefix&)>& visit) {
  for (int m = 1; m < n - 1 - m; ++m) {
    ClassPrefix c{ClassKind::kSingle, Placement(n), {}, sym_bit(Sym::kIdentity)};
    c.fixed.place(0, m);
    for (Side s : {kBottom, kLeft, kRight}) forbid_near_corners(s, m, n, c.forbidden);
    visit(c);
  }
}

void tie_classes(int n, const std::function<void(const ClassPrefix&)>& visit) {
  for (int m = 1; m < n - 1 - m; ++m) {
    // The eight border squares at corner distance m; at most one queen per side.
    Square squares[8];
    Side sides[8];
    int count = 0;
    for (Side s : {kTop, kBottom, kLeft, kRight})
      for (int p : {m, n - 1 - m}) {
        squares[count] = side_square(s, p, n);
        sides[count++] = s;
      }
    for (unsigned subset = 1; subset < (1u << count); ++subset) {
      if (std::popcount(subset) < 2) continue;
      Placement p(n);
      unsigned side_used = 0;
      bool ok = true;
      for (int i = 0; i < count && ok; ++i) {
        if (!((subset >> i) & 1u)) continue;
        if ((side_used >> sides[i]) & 1u)
          ok = false;
        else if (!p.can_place(squares[i].row, squares[i].col))
          ok = false;
        else {
          side_used |= 1u << sides[i];
          p.place(squares[i].row, squares[i].col);
        }
      }
      if (!ok) continue;
      bool canonical = false;
      const std::uint8_t stab = stabilizer_of(p, &canonical);
      if (!canonical) continue;
      ClassPrefix c{ClassKind::kTie, p, {}, stab};
      for (Side s : {kTop, kBottom, kLeft, kRight})
        if (!((side_used >> s) & 1u)) forbid_near_corners(s, m, n, c.forbidden);
      visit(c);
    }
  }
}

std::uint64_t fixed_rec(Placement& p, const Mask* forbidden, Sym g,
                        const std::atomic<bool>* cancel) {
  if (cancel && cancel->load(std::memory_order_relaxed)) return 0;
  const int n = p.n();
  int row = 0;
  while (row < n && p.row_used(row)) ++row;
  if (row == n) return 1;
  std::uint64_t count = 0;
  for (int col = 0; col < n; ++col) {
    // Place the queen and its whole orbit under <g>; the orbit closes when it returns.
    Square placed[4];
    int m = 0;
    bool ok = true;
    Square s{row, col};
    do {
      if (!p.can_place(s.row, s.col) || (forbidden && ((forbidden[s.row] >> s.col) & 1u))) {
        ok = false;
        break;
      }
      p.place(s.row, s.col);
      placed[m++] = s;
      s = apply(g, s, n);
    } while (!(s == Square{row, col}));
    if (ok) count += fixed_rec(p, forbidden, g, cancel);
    while (m > 0) p.remove(placed[--m].row);
  }
  return count;
}

// Whether two class subproblems (no queen placed yet: their fixed queens are forced rows) have
// the same search tree: the same board, or one the left-right mirror of the other.
bool same_tree(const Subproblem& a, const Subproblem& b) {
  if (a.full != b.full || a.rows != b.rows || (a.cols | a.ld | a.rd | b.cols | b.ld | b.rd) != 0)
    return false;
  const int n = std::popcount(a.full);
  auto mirror = [n](Mask m) {
    Mask r = 0;
    for (int col = 0; col < n; ++col)
      if ((m >> col) & 1u) r |= bit_at(n - 1 - col);
    return r;
  };
  bool same = true, mirrored = true;
  for (int r = 0; r < a.rows; ++r) {
    same = same && a.blocked[r] == b.blocked[r];
    mirrored = mirrored && a.blocked[r] == mirror(b.blocked[r]);
  }
  return same || mirrored;
}

}  // namespace

double detail::estimate_nodes(const Subproblem& s, int probes, std::uint64_t seed) {
  std::uint64_t x = seed | 1;
  auto next_random = [&x] {  // xorshift64*
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    return x * 2685821657736338717ULL;
  };
  double sum = 0;
  for (int p = 0; p < probes; ++p) {
    Mask c = s.cols, l = s.ld, r = s.rd;
    double width = 1, nodes = 0;
    for (int d = 0; d < s.rows; ++d) {
      const Mask avail = ~(c | l | r | s.blocked[d]) & s.full;
      const int k = std::popcount(avail);
      if (k == 0) break;
      width *= k;
      nodes += width;
      Mask pick = avail;  // the (random)-th set bit
      for (int skip = static_cast<int>(next_random() % static_cast<std::uint64_t>(k)); skip > 0;
           --skip)
        pick &= pick - 1;
      const Mask bit = pick & (0u - pick);
      c |= bit;
      l = (l | bit) << 1;
      r = (r | bit) >> 1;
    }
    sum += nodes;
  }
  return probes > 0 ? sum / probes : 0;
}

detail::ClassPrefix detail::oriented(const ClassPrefix& c, Sym g) {
  const int n = c.fixed.n();
  ClassPrefix o = c;
  o.fixed = c.fixed.image(g);
  std::fill(std::begin(o.forbidden), std::end(o.forbidden), Mask{0});
  for (int r = 0; r < n; ++r)
    for (int col = 0; col < n; ++col)
      if ((c.forbidden[r] >> col) & 1u) {
        const Square s = apply(g, {r, col}, n);
        o.forbidden[s.row] |= bit_at(s.col);
      }
  return o;
}

int detail::ClassPrefix::weight() const {
  return kD4Order / std::popcount(static_cast<unsigned>(stabilizer));
}

void detail::for_each_class(int n, const std::function<void(const ClassPrefix&)>& visit) {
  corner_classes(n, visit);
  single_classes(n, visit);
  tie_classes(n, visit);
}

Subproblem detail::class_subproblem(const ClassPrefix& c) {
  const int n = c.fixed.n();
  Subproblem s;
  s.full = full_mask(n);
  s.rows = n;
  for (int r = 0; r < n; ++r) {
    if (c.fixed.col_of_row(r) >= 0) {  // forced: the class's own queen
      s.blocked[r] = s.full & ~bit_at(c.fixed.col_of_row(r));
      continue;
    }
    Mask b = c.forbidden[r];
    for (int qr = 0; qr < n; ++qr) {
      const int qc = c.fixed.col_of_row(qr);
      if (qc < 0) continue;
      const int d = r - qr;
      b |= bit_at(qc);
      if (qc + d >= 0 && qc + d < n) b |= bit_at(qc + d);
      if (qc - d >= 0 && qc - d < n) b |= bit_at(qc - d);
    }
    s.blocked[r] = b & s.full;
  }
  return s;
}

std::uint64_t detail::count_fixed_completions(const Placement& fixed, const Mask* forbidden,
                                              Sym rotation, const std::atomic<bool>* cancel) {
  Placement p = fixed;
  return fixed_rec(p, forbidden, rotation, cancel);
}

namespace {

// The children split_subproblem makes, in its order, each passed to `emit`.
template <class Emit>
void for_each_child(const Subproblem& s, int rows, Emit& emit) {
  if (rows <= 0 || s.rows <= 2) {
    emit(s);
    return;
  }
  Mask avail = ~(s.cols | s.ld | s.rd | s.blocked[0]) & s.full;
  while (avail) {
    const Mask bit = avail & (0u - avail);
    avail ^= bit;
    Subproblem c;
    c.full = s.full;
    c.cols = s.cols | bit;
    c.ld = (s.ld | bit) << 1;
    c.rd = (s.rd | bit) >> 1;
    c.rows = s.rows - 1;
    std::copy(s.blocked + 1, s.blocked + s.rows, c.blocked);
    for_each_child(c, rows - 1, emit);
  }
}

}  // namespace

void detail::split_subproblem(const Subproblem& s, int rows, std::vector<Subproblem>& out) {
  auto push = [&out](const Subproblem& c) { out.push_back(c); };
  for_each_child(s, rows, push);
}

// Random probes per orientation: enough to split orientations whose trees differ by 20%
// (measured: 500 probes give the same n = 16, 17 node totals as 4000, within 0.1%).
constexpr int kOrientationProbes = 500;

// Split 3 below n = 18, 4 from there. With the classes searched in their cheapest orientation,
// split 3 already gives 8973 subproblems at n = 16 (hundreds per thread at 64 threads), and
// split 4 (52875) would triple the serial setup (planning and cost estimates) of a count that
// the lane kernels finish in under a second. Replayed by nqcount simulate, the n = 16 profile
// runs at 0.99 efficiency on 64 workers with split 3, and n = 18 at 0.99 on 256 workers with
// split 4 (docs/scheduling.md, "Task stats and the simulator").
int default_split_rows(int n) {
  return n >= 18 ? 4 : n >= 12 ? 3 : 1;
}

Plan plan_canonical(int n, int split_rows, const PlanControl& control) {
  Plan plan;
  plan.n = n;
  plan.split_rows = split_rows;
  std::vector<ClassPrefix> classes;
  for_each_class(n, [&](const ClassPrefix& c) { classes.push_back(c); });
  plan.classes = classes.size();

  // Each class is planned on its own, in parallel, in two passes: first its fixed counts, its
  // orientation and how many subproblems its split makes; then, once the plan is allocated,
  // its subproblems are written straight to their place, in class order (so the plan does not
  // depend on the threads). The plan is allocated once and faulted in at once (prefault.hpp):
  // per-class vectors copied into a growing plan were most of the serial part of an n = 16
  // setup.
  struct Planned {
    Subproblem root;  // the class in its chosen orientation
    std::size_t first = 0, count = 0;
    u128 sym4 = 0, sym2 = 0;
  };
  std::vector<Planned> planned(classes.size());
  tbb::parallel_for(std::size_t{0}, classes.size(), [&](std::size_t i) {
    if (control.cancelled()) return;
    const ClassPrefix& c = classes[i];
    Planned& out = planned[i];
    // Search the class in the orientation with the smallest estimated tree. Mirror images
    // (left-right) have the same tree, so the identity and the three rotations are enough;
    // a rotation that gives the same board as one already probed (the class is symmetric under
    // it, or under it and a left-right mirror) has the same tree and is not probed again.
    Subproblem seen[4];
    int probed = 0;
    Subproblem best = class_subproblem(c);
    double best_cost = estimate_nodes(best, kOrientationProbes, i + 1);
    seen[probed++] = best;
    for (Sym g : {Sym::kRot90, Sym::kRot180, Sym::kRot270}) {
      const Subproblem s = class_subproblem(oriented(c, g));
      if (std::any_of(seen, seen + probed, [&](const Subproblem& t) { return same_tree(s, t); }))
        continue;
      seen[probed++] = s;
      const double cost = estimate_nodes(s, kOrientationProbes, i + 1);
      if (cost < best_cost) {
        best = s;
        best_cost = cost;
      }
    }
    out.root = best;
    auto tally = [&out](const Subproblem&) { ++out.count; };
    for_each_child(best, split_rows, tally);
  });
  std::size_t total = 0;
  for (Planned& p : planned) {
    p.first = total;
    total += p.count;
  }
  if (control.cancelled() || (control.admit && !control.admit(PlanKind::kCanonical, total))) {
    plan.stopped = true;
    return plan;
  }
  plan.subproblems.reserve(total);
  // Faulted in and zeroed a block at a time, so that a cancel is seen between blocks: a large
  // plan's pages take a second or more to map and clear.
  constexpr std::size_t kBlock = std::size_t{1} << 18;
  for (std::size_t size = 0; size < total;) {
    if (control.cancelled()) {
      plan.stopped = true;
      return plan;
    }
    const std::size_t next = std::min(total, size + kBlock);
    prefault_for_writing(plan.subproblems.data() + size, (next - size) * sizeof(Subproblem));
    plan.subproblems.resize(next);
    size = next;
  }
  plan.weights.resize(total);
  tbb::parallel_for(std::size_t{0}, classes.size(), [&](std::size_t i) {
    Subproblem* to = plan.subproblems.data() + planned[i].first;
    auto place = [&to](const Subproblem& c) { *to++ = c; };
    for_each_child(planned[i].root, split_rows, place);
    std::fill_n(plan.weights.begin() + static_cast<std::ptrdiff_t>(planned[i].first),
                planned[i].count, static_cast<std::uint8_t>(classes[i].weight()));
    // Burnside's terms of a class that a half turn fixes: a search of the whole board.
    const ClassPrefix& c = classes[i];
    if (c.stabilizer & sym_bit(Sym::kRot180)) {
      const int w = c.weight();
      const std::uint64_t c180 =
          count_fixed_completions(c.fixed, c.forbidden, Sym::kRot180, control.cancel);
      const std::uint64_t c90 =
          (c.stabilizer & sym_bit(Sym::kRot90))
              ? count_fixed_completions(c.fixed, c.forbidden, Sym::kRot90, control.cancel)
              : 0;
      planned[i].sym4 = static_cast<u128>(w) * (c180 - c90);
      planned[i].sym2 = static_cast<u128>(w) * c90;
    }
  });
  for (const Planned& p : planned) {
    plan.sym4 += p.sym4;
    plan.sym2 += p.sym2;
  }
  plan.stopped = control.cancelled();
  return plan;
}

Plan plan_classic(int n, int split_rows, const PlanControl& control) {
  Plan plan;
  plan.n = n;
  plan.kind = PlanKind::kClassic;
  plan.split_rows = split_rows;
  const Mask full = full_mask(n);
  const int half = n / 2;
  auto add = [&](Mask cols, Mask ld, Mask rd, int rows) {
    Subproblem s;
    s.full = full;
    s.cols = cols;
    s.ld = ld;
    s.rd = rd;
    s.rows = rows;
    split_subproblem(s, split_rows, plan.subproblems);
  };
  // First row in the left half: the mirror image covers the right half.
  for (int c = 0; c < half; ++c) add(bit_at(c), bit_at(c) << 1, bit_at(c) >> 1, n - 1);
  if (n % 2 == 1) {  // first row in the middle: mirror on the second row instead
    const Mask mid = bit_at(half);
    for (int c = 0; c + 1 < half; ++c) {  // column half-1 is attacked by the middle queen
      const Mask bit = bit_at(c);
      add(mid | bit, ((mid << 1) | bit) << 1, ((mid >> 1) | bit) >> 1, n - 2);
    }
  }
  if (control.cancelled() ||
      (control.admit && !control.admit(PlanKind::kClassic, plan.subproblems.size()))) {
    plan.stopped = true;
    return plan;
  }
  plan.weights.assign(plan.subproblems.size(), 2);
  // Unique by Burnside: whole-board counts fixed by the rotations.
  const SymmetricCounts sym = whole_board_symmetric(n, control.cancel);
  plan.sym4 = sym.sym4;
  plan.sym2 = sym.sym2;
  plan.stopped = !sym.complete;
  return plan;
}

namespace {

// The rows of `set` (bits 0..n-1) upside down.
std::uint32_t flip_rows(std::uint32_t set, int n) {
  std::uint32_t flipped = 0;
  for (; set; set &= set - 1) flipped |= 1u << (n - 1 - std::countr_zero(set));
  return flipped;
}

// Binomial coefficients up to 32 choose 16 (fits 64 bits).
struct Binomials {
  std::uint64_t c[kMaxN + 1][kMaxN + 1] = {};
  constexpr Binomials() {
    for (int a = 0; a <= kMaxN; ++a) {
      c[a][0] = 1;
      for (int b = 1; b <= a; ++b) c[a][b] = c[a - 1][b - 1] + (b < a ? c[a - 1][b] : 0);
    }
  }
};
constexpr Binomials kBinomials;

// The k-element subset of the rows in `avail` (ascending, m of them) of the given colex split: the
// largest c with C(c, k) <= split is the k-th element; c only decreases.
std::uint32_t unrank_rows(const int* avail, int m, int k, std::uint64_t rank) {
  std::uint32_t set = 0;
  int c = m - 1;
  for (; k >= 1; --k) {
    while (kBinomials.c[c][k] > rank) --c;
    rank -= kBinomials.c[c][k];
    set |= 1u << avail[c];
    --c;
  }
  return set;
}

// Odd n: the middle-queen rows r that the west row set W keeps (the triple (r, E, W) is the least
// of its orbit under the key (west rows, r)), by the size of their orbit: kept[4] and kept[2].
std::array<std::uint32_t, 5> odd_kept_rows(int n, std::uint32_t west_rows) {
  const auto all = static_cast<std::uint32_t>(full_mask(n));
  const std::uint32_t rest = all & ~west_rows, flipped_west = flip_rows(west_rows, n);
  const std::uint32_t flipped_rest = flip_rows(rest, n);  // every split calls this: flip once
  std::array<std::uint32_t, 5> kept{};
  for (std::uint32_t left = rest; left; left &= left - 1) {
    const int r = std::countr_zero(left), fr = n - 1 - r;
    const std::uint32_t east_rows = rest & ~(1u << r), flipped_east = flipped_rest & ~(1u << fr);
    auto at_most = [&](std::uint32_t rows, int row) {
      return west_rows < rows || (west_rows == rows && r <= row);
    };
    if (!at_most(east_rows, r) || !at_most(flipped_west, fr) || !at_most(flipped_east, fr))
      continue;
    const bool halved = r == fr && (flipped_east == east_rows || flipped_west == east_rows);
    kept[halved ? 2 : 4] |= 1u << r;
  }
  return kept;
}

}  // namespace

std::uint64_t detail::row_splits(int n, OddSplit shape) {
  const int h = n / 2;
  if (n % 2 == 0) return kBinomials.c[n - 1][h];
  if (shape == OddSplit::kByWestRows) return 2 * kBinomials.c[n][h];
  return kBinomials.c[n - 2][h] * static_cast<std::uint64_t>(h + 1);
}

detail::RowSplitKey detail::rowsplit_key(int n, std::uint64_t split, OddSplit shape) {
  const int h = n / 2;
  const bool odd = n % 2 == 1;
  const auto all = static_cast<std::uint32_t>(full_mask(n));
  RowSplitKey key;
  int avail[kMaxN];
  if (odd && shape == OddSplit::kByWestRows) {
    for (int i = 0; i < n; ++i) avail[i] = i;
    const std::uint32_t west_rows = unrank_rows(avail, n, h, split / 2);
    const int weight = split % 2 ? 2 : 4;
    key.east = all & ~west_rows;
    key.middle_rows = odd_kept_rows(n, west_rows)[weight];
    key.weight = key.middle_rows ? weight : 0;
    return key;
  }
  // E among the rows besides r (odd n) and n-1.
  const std::uint64_t per_row = kBinomials.c[odd ? n - 2 : n - 1][h];
  const int r = odd ? static_cast<int>(split / per_row) : -1;
  int m = 0;
  for (int i = 0; i + 1 < n; ++i)
    if (i != r) avail[m++] = i;
  const std::uint32_t east = unrank_rows(avail, m, h, split % per_row);
  key.middle_rows = odd ? 1u << r : 0u;
  key.east = east | key.middle_rows;
  if (odd && r < h) {
    key.weight = 4;  // (r, E), its mirror, and the flip's two images at row n-1-r
    return key;
  }
  const std::uint32_t rows = all & ~key.middle_rows;
  const std::uint32_t mirrored = rows & ~east, flipped = flip_rows(east, n), both = rows & ~flipped;
  if (east > flipped || east > both) return key;  // weight 0: another split stands for it
  // E differs from its mirror (they are disjoint), so the orbit has 2 or 4 members.
  key.weight = flipped == east || flipped == mirrored ? 2 : 4;
  return key;
}

Subproblem detail::rowsplit_subproblem(int n, const RowSplitKey& key) {
  const Mask full = full_mask(n);
  const int half = n / 2;
  const Mask middle = n % 2 ? bit_at(half) : 0;
  const Mask west = full_mask(half), east = full & ~west & ~middle;
  // A single middle row must take the middle square: every column holds a queen.
  const Mask middle_row = std::has_single_bit(key.middle_rows) ? full & ~middle : west;
  Subproblem s;
  s.full = full;
  s.rows = n;
  for (int i = 0; i < n; ++i)
    s.blocked[i] = !(key.east >> i & 1u)         ? east | middle
                   : (key.middle_rows >> i & 1u) ? middle_row
                                                 : west | middle;
  return s;
}

Subproblem detail::fix_first_rows(const Subproblem& s, int rows, std::uint64_t seed) {
  Subproblem part = s;
  SplitMix64 next{seed};          // the same squares on every platform
  Mask cols = 0, ld = 0, rd = 0;  // the fixed queens' attacks on the row below them
  for (int i = 0; i < std::min(rows, s.rows); ++i) {
    const Mask free = open_row_squares(s, i) & ~(cols | ld | rd);
    Mask queen = 0;
    if (free != 0) {
      int k = static_cast<int>(next() % static_cast<std::uint64_t>(std::popcount(free)));
      Mask left = free;
      for (; k > 0; --k) left &= left - 1;
      queen = left & (0u - left);
    }
    part.blocked[i] = s.full & ~queen;
    cols |= queen;
    ld = ((ld | queen) << 1) & s.full;
    rd = (rd | queen) >> 1;
  }
  return part;
}

void detail::rowsplit_all(int n, std::vector<Subproblem>& subproblems,
                          std::vector<std::uint8_t>& weights, OddSplit shape) {
  subproblems.clear();
  weights.clear();
  const std::uint64_t splits = row_splits(n, shape);
  for (std::uint64_t r = 0; r < splits; ++r) {
    const RowSplitKey key = rowsplit_key(n, r, shape);
    if (key.weight == 0) continue;
    subproblems.push_back(rowsplit_subproblem(n, key));
    weights.push_back(static_cast<std::uint8_t>(key.weight));
  }
}

std::uint64_t rowsplit_block(std::uint64_t splits, std::uint64_t min_tasks) {
  const std::uint64_t tasks = std::max(kMaxRowSplitTasks, min_tasks);
  return std::max<std::uint64_t>(1, splits / tasks + (splits % tasks != 0));
}

std::uint64_t rowsplit_pieces(int n, std::uint64_t splits, std::uint64_t min_tasks) {
  if (splits == 0 || min_tasks / 2 < splits) return 1;
  const std::uint64_t most = std::min<std::uint64_t>(
      static_cast<std::uint64_t>(n / 2), std::numeric_limits<std::uint32_t>::max() / splits);
  return std::clamp<std::uint64_t>(min_tasks / splits, 1, std::max<std::uint64_t>(1, most));
}

std::uint64_t cluster_plan_tasks(int n, std::uint64_t all_threads) {
  const std::uint64_t wanted = dealer_plan_tasks(all_threads);
  return n >= kRowSplitPiecesFromN ? wanted : std::min(wanted, row_splits(n));
}

Subproblem detail::rowsplit_piece(const Subproblem& s, std::uint64_t part, std::uint64_t parts) {
  if (parts <= 1 || s.rows == 0) return s;
  Subproblem piece = s;
  Mask keep = 0, left = open_row_squares(s, 0);
  for (std::uint64_t k = 0; left != 0; ++k, left &= left - 1)
    if (k % parts == part) keep |= left & (0u - left);
  piece.blocked[0] |= s.full & ~keep;
  return piece;
}

Subproblem detail::rowsplit_task_subproblem(const Plan& plan, std::size_t task,
                                            const RowSplitKey& key) {
  return rowsplit_piece(rowsplit_subproblem(plan.n, key), plan.piece(task), plan.pieces);
}

SplitSubproblem split_subproblem(const Plan& plan, std::uint64_t split) {
  const RowSplitKey key = rowsplit_key(plan.n, split);
  return {rowsplit_subproblem(plan.n, key), key.weight};
}

SplitSubproblem rowsplit_task(const Plan& plan, std::size_t task) {
  const RowSplitKey key = rowsplit_key(plan.n, plan.first_split(task));
  return {rowsplit_task_subproblem(plan, task, key), key.weight};
}

Plan plan_rowsplit(int n, bool fixed_counts, const PlanControl& control, std::uint64_t min_tasks) {
  Plan plan;
  plan.n = n;
  plan.kind = PlanKind::kRowSplit;
  plan.splits = row_splits(n);
  plan.block = rowsplit_block(plan.splits, min_tasks);
  if (plan.block == 1) plan.pieces = rowsplit_pieces(n, plan.splits, min_tasks);
  if (control.cancelled() || (control.admit && !control.admit(PlanKind::kRowSplit, plan.size()))) {
    plan.stopped = true;
    return plan;
  }
  if (fixed_counts) {
    const SymmetricCounts sym = whole_board_symmetric(n, control.cancel);
    plan.sym4 = sym.sym4;
    plan.sym2 = sym.sym2;
    plan.stopped = !sym.complete;
  }
  return plan;
}

std::uint64_t rowsplit_tasks(int n, std::uint64_t min_tasks) {
  Plan plan;
  plan.n = n;
  plan.kind = PlanKind::kRowSplit;
  plan.splits = row_splits(n);
  plan.block = rowsplit_block(plan.splits, min_tasks);
  if (plan.block == 1) plan.pieces = rowsplit_pieces(n, plan.splits, min_tasks);
  return plan.size();
}

std::uint64_t rowsplit_subproblems(int n) {
  const int h = n / 2;
  // Burnside: row sets fixed by the flip (unions of flip pairs) and by flip-then-mirror (one row
  // of each pair); the mirror alone fixes none. Odd n by middle row: per row r, the flip pairs r
  // with n-1-r, so only r = h (the centre) has fixed sets; the other rows pair up.
  const std::uint64_t by_flip = h % 2 == 0 ? kBinomials.c[h][h / 2] : 0;
  const std::uint64_t by_both = std::uint64_t{1} << h;
  if (n % 2 == 0) return (kBinomials.c[n][h] + by_flip + by_both) / 4;
  if (odd_split(n) == OddSplit::kByMiddleRow)
    return (static_cast<std::uint64_t>(n) * kBinomials.c[n - 1][h] + by_flip + by_both) / 4;
  // By west rows: the splits of non-zero weight, which have no closed form; counted once for
  // every odd n up to kOddByWestRowsMaxN, checked by plan_test.
  constexpr std::uint64_t kByWestRows[] = {0,   0,    6,    18,    57,    172,
                                           585, 2009, 7269, 26624, 99557, 375221};
  static_assert(std::size(kByWestRows) == (kOddByWestRowsMaxN + 1) / 2);
  return kByWestRows[(n - 1) / 2];
}

namespace {

// The search behind whole_board_symmetric: a solution fixed by the half turn is settled by its
// top n/2 rows, row r's queen at c standing with its image (n-1-r, n-1-c), and an odd board's
// middle queen on the centre square. The rows are filled top down, a pair of queens per row,
// on bitboards of the columns and of the two diagonal families indexed over the whole board
// (d1 = r + c, d2 = r - c + n - 1, bit i of a 64-bit word each). Every placed pair keeps these
// sets symmetric (column c with n-1-c, d1 with 2n-2-d1, d2 with 2n-2-d2), so a new queen at
// (r, c) is free of the others exactly when (r, c) itself is, and it attacks its own image only
// on the two long diagonals (c = n-1-r, c = r). Row r's free columns are therefore
//     ~cols & ~(d1 >> r) & ~(d2 >> (n-1-r)) & ~bit(r) & ~bit(n-1-r),
// the d2 term read through the symmetry (bit c-r+n-1 stands for its mirror r-c+n-1).
// A leaf is also fixed by the quarter turn when p(p(r)) = n-1-r for every row.
struct HalfTurnSearch {
  int n = 0;
  Mask full = 0;
  int col_of[kMaxN] = {};
  std::uint64_t fixed180 = 0, fixed90 = 0;
  const std::atomic<bool>* cancel = nullptr;  // looked at once per top-two-rows branch
  const std::atomic<bool>* stop = nullptr;    // likewise
  bool stopped = false;

  void leaf() {
    for (int r = 0; r < n; ++r)
      if (col_of[col_of[r]] != n - 1 - r) return;
    ++fixed90;
  }

  void rows_from(int r, Mask cols, std::uint64_t d1, std::uint64_t d2) {
    if (r == n / 2) {
      ++fixed180;
      leaf();
      return;
    }
    Mask free = full & ~cols & ~static_cast<Mask>(d1 >> r) & ~static_cast<Mask>(d2 >> (n - 1 - r)) &
                ~bit_at(r) & ~bit_at(n - 1 - r);
    while (free) {
      if (r < 2 && ((cancel && cancel->load(std::memory_order_relaxed)) ||
                    (stop && stop->load(std::memory_order_relaxed)))) {
        stopped = true;
        return;
      }
      const int c = std::countr_zero(free);
      free &= free - 1;
      const int mc = n - 1 - c;
      col_of[r] = c;
      col_of[n - 1 - r] = mc;
      rows_from(r + 1, cols | bit_at(c) | bit_at(mc),
                d1 | std::uint64_t{1} << (r + c) | std::uint64_t{1} << (2 * n - 2 - r - c),
                d2 | std::uint64_t{1} << (r - c + n - 1) | std::uint64_t{1} << (c - r + n - 1));
    }
  }
};

}  // namespace

detail::SymmetricCounts detail::whole_board_symmetric(int n, const std::atomic<bool>* cancel,
                                                      const std::atomic<bool>* stop) {
  HalfTurnSearch search;
  search.n = n;
  search.full = full_mask(n);
  search.cancel = cancel;
  search.stop = stop;
  Mask cols = 0;
  std::uint64_t d1 = 0, d2 = 0;
  if (n % 2 == 1) {  // the middle queen stands on the centre square
    const int h = n / 2;
    search.col_of[h] = h;
    cols = bit_at(h);
    d1 = d2 = std::uint64_t{1} << (n - 1);
  }
  search.rows_from(0, cols, d1, d2);
  return {static_cast<u128>(search.fixed180 - search.fixed90), static_cast<u128>(search.fixed90),
          !search.stopped};
}

}  // namespace nq
