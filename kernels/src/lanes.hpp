// The lane-parallel search, written once. Each ISA's source file (avx2.cpp, avx512.cpp) defines
// its vector types and then includes this file inside its own namespace and target region
// (the simdjson pattern), so no -m flag ever reaches the rest of the program.
//
// A vector type V supplies: element type T, kLanes, kBits, register type Reg, lane-mask type
// Mask, and the lane-wise operations used below (see avx512.cpp for the reference set).
//
// Why lanes win: the scalar search (search.hpp) is bound by branch mispredictions - whether a
// row has a free square, whether to descend or backtrack, is close to a coin toss at every
// node. Here every lane takes its own decision as a lane mask; one step of the loop advances
// all lanes by one move (place the lowest free queen, or backtrack one row) without a branch.
//
// Each lane keeps its state in registers: the column and two diagonal words of its current row
// and the squares still to try there. Its stack holds only the candidate set of each row above
// it (`avail` before the row's queen was taken, whose lowest bit is that queen). Backtracking
// undoes the queen with plain bit operations instead of reloading three words:
//   cols ^= q;  ld = (ld >> 1) & ~q;  rd = (rd << 1) & ~q
// which is exact only if no diagonal bit ever falls off the word. So the words are wide enough
// for 2n bits: `ld` keeps bits up to 2n-1 (a queen's diagonal moves one column per row, at
// most n rows), and `rd` is stored shifted up by kBits/2 so that its bits never fall off the
// low end. 32-bit lanes serve n <= 16, 64-bit lanes n <= 32.
//
// Memory per lane group (L lanes) interleaves, per row r, the row's blocked squares and the
// stack slot of that row, lane by lane: blocked[r] at (2r)L + lane, slot[r] at (2r+1)L + lane
// (plus a guard of L words in front). A lane's position `pos` = guard + 2dL + lane is then the
// gather/scatter index of its depth d, and one add moves it a row up or down.
//
// A lane that finishes flushes its counters and refills from the batch queue; when the queue
// is empty, an idle lane steals the untried siblings at the shallowest row of a busy lane
// (those subtrees are the largest), so even a batch of one subproblem keeps the lanes busy.
// No #pragma once: included once per ISA namespace.

namespace nq::NQ_KERNEL_NAMESPACE {

template <class V, int G>
class LaneSearch {
  using T = typename V::T;
  using Reg = typename V::Reg;
  using LaneMask = typename V::Mask;
  static constexpr int L = V::kLanes;
  static constexpr int kAll = G * L;         // lanes in all groups
  static constexpr int kOff = V::kBits / 2;  // rd is stored shifted up by this much
  static constexpr int kMemWords = (2 * kMaxN + 4) * L;
  static constexpr int kCheckEvery = 8;        // steps between looks at finished lanes
  static constexpr int kFlushEvery = 1 << 18;  // checks between counter flushes (32-bit lanes)
  static constexpr int kMinStealRows = 6;      // do not steal subtrees shallower than this

 public:
  // Raw pointers, not spans: no std template is instantiated inside the target region.
  LaneSearch(const Subproblem* in, Tally* out, std::size_t size)
      : in_(in), out_(out), size_(size) {}

  void run() {
    for (std::size_t i = 0; i < size_; ++i) out_[i] = Tally{};
    for (int j = 0; j < kAll; ++j) make_idle(j);
    if (!refill_and_steal()) return;  // nothing for the lanes (empty, or all trivial)
    load_registers();
    int checks_to_flush = kFlushEvery;
    for (;;) {
      for (int k = 0; k < kCheckEvery; ++k) {
#pragma GCC unroll 4
        for (int g = 0; g < G; ++g) step(g);
      }
      bool finished = false;
      for (int g = 0; g < G; ++g) finished |= V::any(finished_lanes(g));
      if (--checks_to_flush == 0 || finished || (starving_ && --steal_countdown_ <= 0)) {
        checks_to_flush = kFlushEvery;
        store_registers();
        flush_counters();
        if (!refill_and_steal()) return;
        load_registers();
      }
    }
  }

 private:
  // One move for every lane of group g: place the lowest free queen of the current row (and
  // descend if the child row has a free square and is not the last row), or backtrack one row.
  // The branch-free form of the scalar loop body in search.hpp.
  void step(int g) {
    T* const m = mem_[g];
    const Reg a = avail_[g], pos = pos_[g];
    const LaneMask has = V::nonzero(a);
    const Reg bit = V::lowest(a);
    const Reg nc = V::or_(cols_[g], bit);
    const Reg nl = V::shl1(V::or_(ld_[g], bit));
    const Reg nr = V::shr1(V::or_(rd_[g], V::template shl<kOff>(bit)));
    // One gather serves both kinds of lane: a lane that places a queen reads blocked[d + 1],
    // a lane that backtracks reads its stack slot[d - 1]; no lane needs both.
    const Reg word =
        V::gather(m, V::select(has, V::add(pos, V::set1(T{2 * L})), V::sub(pos, V::set1(T{L}))));
    const Reg below = word, top = word;
    const Reg next =
        V::andnot(V::or_(V::or_(nc, nl), V::or_(V::template shr<kOff>(nr), below)), full_[g]);
    const LaneMask at_last = V::eq(pos, last_[g]);
    const Reg c = V::popcount(next);
    const LaneMask solved = V::mand(has, at_last);
    sol_[g] = V::mask_add(sol_[g], solved, c);
    nodes_[g] = V::mask_add(V::mask_add(nodes_[g], has, V::set1(T{1})), solved, c);
    const LaneMask descend = V::mand(V::mandnot(at_last, has), V::nonzero(next));
    // Push: slot[d] = avail. A scatter may also write lanes outside `descend` (the AVX2 one
    // does): slot[d] of a lane at depth d is dead until the lane descends from d.
    V::scatter(m, V::add(pos, V::set1(T{L})), a, descend);
    const LaneMask pop = V::mandnot(has, V::ne(pos, base_[g]));
    const Reg q = V::lowest(top);  // the queen of row d - 1, undone by a pop
    cols_[g] = V::select(descend, nc, V::select(pop, V::xor_(cols_[g], q), cols_[g]));
    ld_[g] = V::select(descend, nl, V::select(pop, V::andnot(q, V::shr1(ld_[g])), ld_[g]));
    rd_[g] = V::select(
        descend, nr, V::select(pop, V::andnot(V::template shl<kOff>(q), V::shl1(rd_[g])), rd_[g]));
    avail_[g] = V::select(descend, next, V::select(pop, V::xor_(top, q), V::xor_(a, bit)));
    pos_[g] = V::select(descend, V::add(pos, V::set1(T{2 * L})),
                        V::select(pop, V::sub(pos, V::set1(T{2 * L})), pos));
  }

  LaneMask finished_lanes(int g) const {
    return V::mand(V::nonzero(active_[g]),
                   V::mandnot(V::nonzero(avail_[g]), V::eq(pos_[g], base_[g])));
  }

  // ---- the rare path: scalar code on the lanes' state, stored to arrays -------------------

  static constexpr T position(int lane, int depth) {
    return static_cast<T>(L + 2 * depth * L + lane % L);
  }
  int depth_of(int j) const {
    return static_cast<int>((s_pos_[j] - position(j, 0)) / (2 * L));
  }
  T* lane_mem(int j) {
    return mem_[j / L];
  }
  T& blocked_word(int j, int row) {
    return lane_mem(j)[position(j, row)];
  }
  T& slot_word(int j, int depth) {
    return lane_mem(j)[position(j, depth) + L];
  }

  void make_idle(int j) {
    sub_[j] = -1;
    s_active_[j] = 0;
    s_cols_[j] = s_ld_[j] = s_rd_[j] = s_avail_[j] = s_full_[j] = 0;
    s_pos_[j] = s_base_[j] = s_last_[j] = position(j, 0);
    s_sol_[j] = s_nodes_[j] = 0;
  }

  void flush_counters() {
    for (int j = 0; j < kAll; ++j) {
      if (sub_[j] >= 0) {
        out_[sub_[j]].solutions += s_sol_[j];
        out_[sub_[j]].nodes += s_nodes_[j];
      }
      s_sol_[j] = s_nodes_[j] = 0;
    }
  }

  // Starts subproblem i in lane j. Subproblems with fewer than two open rows never reach a
  // lane: they are counted here, as the scalar kernel counts them.
  bool start(int j, std::size_t i) {
    const Subproblem& s = in_[i];
    const T full = s.full;
    if (s.rows <= 0) {
      out_[i] = {1, 0};
      return false;
    }
    const T first = ~(T{s.cols} | T{s.ld} | T{s.rd} | T{s.blocked[0]}) & full;
    if (s.rows == 1) {
      const auto c = static_cast<std::uint64_t>(__builtin_popcountll(first));
      out_[i] = {c, c};
      return false;
    }
    sub_[j] = static_cast<int>(i);
    s_active_[j] = ~T{0};
    s_full_[j] = full;
    s_cols_[j] = T{s.cols} & full;
    s_ld_[j] = T{s.ld} & full;
    s_rd_[j] = static_cast<T>((T{s.rd} & full) << kOff);
    s_avail_[j] = first;
    s_pos_[j] = s_base_[j] = position(j, 0);
    s_last_[j] = position(j, s.rows - 2);  // the row whose children are the last row
    for (int r = 0; r < s.rows; ++r) blocked_word(j, r) = s.blocked[r];
    return true;
  }

  // The shallowest row of busy lane j that still has untried squares and enough rows below
  // it to be worth a steal; -1 if none.
  int split_row(int j) {
    if (sub_[j] < 0) return -1;
    const int base = static_cast<int>((s_base_[j] - position(j, 0)) / (2 * L));
    const int d = depth_of(j), last = static_cast<int>((s_last_[j] - position(j, 0)) / (2 * L));
    for (int k = base; k <= d && k + kMinStealRows <= last + 1; ++k) {
      const T untried = k < d ? slot_word(j, k) & (slot_word(j, k) - 1) : s_avail_[j];
      if (untried != 0) return k;
    }
    return -1;
  }

  // Lane `thief` takes the untried squares of lane `donor` at row k (see split_row): the donor
  // keeps only the subtree it is in, the thief gets the rest of that row.
  void steal(int thief, int donor, int k) {
    // The donor's state at row k: undo its queens from row d - 1 up to row k (exact, see top).
    const int d = depth_of(donor);
    T cols = s_cols_[donor], ld = s_ld_[donor], rd = s_rd_[donor];
    for (int r = d - 1; r >= k; --r) {
      const T q = slot_word(donor, r) & (0 - slot_word(donor, r));
      cols ^= q;
      ld = (ld >> 1) & ~q;
      rd = (rd << 1) & ~(q << kOff);
    }
    T untried;
    if (k < d) {
      const T before = slot_word(donor, k), q = before & (0 - before);
      untried = before ^ q;
      slot_word(donor, k) = q;  // the donor keeps only the subtree it is in
    } else {
      untried = s_avail_[donor];
      s_avail_[donor] = 0;
    }
    const int last = static_cast<int>((s_last_[donor] - position(donor, 0)) / (2 * L));
    for (int r = k; r <= last + 1; ++r) blocked_word(thief, r) = blocked_word(donor, r);
    sub_[thief] = sub_[donor];
    s_active_[thief] = ~T{0};
    s_full_[thief] = s_full_[donor];
    s_cols_[thief] = cols;
    s_ld_[thief] = ld;
    s_rd_[thief] = rd;
    s_avail_[thief] = untried;
    s_pos_[thief] = s_base_[thief] = position(thief, k);
    s_last_[thief] = position(thief, last);
    s_sol_[thief] = s_nodes_[thief] = 0;
  }

  // Retires finished lanes, refills them from the queue, and once the queue is dry lets idle
  // lanes steal. Returns false when every lane is idle and the queue is empty: all counted.
  bool refill_and_steal() {
    int busy = 0;
    for (int j = 0; j < kAll; ++j) {
      if (sub_[j] >= 0 && s_avail_[j] == 0 && s_pos_[j] == s_base_[j]) make_idle(j);
      while (sub_[j] < 0 && next_ < size_) start(j, next_++);
      busy += sub_[j] >= 0;
    }
    if (busy == 0) return false;
    bool stuck = false;
    if (busy < kAll) {
      // Each idle lane robs the lane with the shallowest split row; rows are found once per
      // lane and updated only for the two lanes a steal changes.
      int split[kAll];
      for (int j = 0; j < kAll; ++j) split[j] = split_row(j);
      for (int thief = 0; thief < kAll && !stuck; ++thief) {
        if (sub_[thief] >= 0) continue;
        int donor = -1;
        for (int j = 0; j < kAll; ++j)
          if (split[j] >= 0 && (donor < 0 || split[j] < split[donor])) donor = j;
        stuck = donor < 0;
        if (stuck) break;
        steal(thief, donor, split[donor]);
        ++busy;
        split[donor] = split_row(donor);
        split[thief] = split_row(thief);
      }
    }
    starving_ = busy < kAll;
    // While nothing is worth stealing, look again less and less often.
    steal_wait_ = stuck ? (steal_wait_ < 1024 ? 2 * steal_wait_ : steal_wait_) : 2;
    steal_countdown_ = steal_wait_;
    return true;
  }

  void load_registers() {
    for (int g = 0; g < G; ++g) {
      const int o = g * L;
      cols_[g] = V::load(s_cols_ + o);
      ld_[g] = V::load(s_ld_ + o);
      rd_[g] = V::load(s_rd_ + o);
      avail_[g] = V::load(s_avail_ + o);
      pos_[g] = V::load(s_pos_ + o);
      base_[g] = V::load(s_base_ + o);
      last_[g] = V::load(s_last_ + o);
      full_[g] = V::load(s_full_ + o);
      active_[g] = V::load(s_active_ + o);
      sol_[g] = V::load(s_sol_ + o);
      nodes_[g] = V::load(s_nodes_ + o);
    }
  }

  void store_registers() {
    for (int g = 0; g < G; ++g) {
      const int o = g * L;
      V::store(s_cols_ + o, cols_[g]);
      V::store(s_ld_ + o, ld_[g]);
      V::store(s_rd_ + o, rd_[g]);
      V::store(s_avail_ + o, avail_[g]);
      V::store(s_pos_ + o, pos_[g]);
      V::store(s_sol_ + o, sol_[g]);
      V::store(s_nodes_ + o, nodes_[g]);
    }
  }

  const Subproblem* in_;
  Tally* out_;
  std::size_t size_;
  std::size_t next_ = 0;
  bool starving_ = false;
  int steal_countdown_ = 0;
  int steal_wait_ = 2;
  int sub_[kAll];

  Reg cols_[G], ld_[G], rd_[G], avail_[G], pos_[G], base_[G], last_[G], full_[G], active_[G];
  Reg sol_[G], nodes_[G];

  alignas(64) T mem_[G][kMemWords] = {};
  alignas(64) T s_cols_[kAll], s_ld_[kAll], s_rd_[kAll], s_avail_[kAll], s_pos_[kAll];
  alignas(64) T s_base_[kAll], s_last_[kAll], s_full_[kAll], s_active_[kAll];
  alignas(64) T s_sol_[kAll], s_nodes_[kAll];
};

// The batch entry point: 32-bit lanes when every board is at most 16 wide, else 64-bit lanes.
template <class V32, class V64, int G>
void count_batch(const Subproblem* in, Tally* out, std::size_t size) {
  bool narrow = true;
  for (std::size_t i = 0; i < size; ++i) narrow &= (in[i].full >> 16) == 0;
  if (narrow) {
    LaneSearch<V32, G>(in, out, size).run();
  } else {
    LaneSearch<V64, G>(in, out, size).run();
  }
}

}  // namespace nq::NQ_KERNEL_NAMESPACE
