#include "engine/algebra/orbits.hpp"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "base/threads.hpp"
#include "kernels/enumerate.hpp"

namespace nq {
namespace {

Expected<int> check_n(int n, int max_n, const char* what) {
  if (n < 1 || n > max_n)
    return Error{std::string(what) + " runs for n = 1.." + std::to_string(max_n) + ", not " +
                 std::to_string(n)};
  return n;
}

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  // splitmix64's finalizer over a running combination: cheap and well spread.
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  return h;
}

struct PermHash {
  std::size_t operator()(const Perm& p) const {
    std::uint64_t h = p.size();
    for (int v : p) h = mix(h, static_cast<std::uint64_t>(v));
    return static_cast<std::size_t>(h);
  }
};

std::vector<Orbit> sorted_orbits(const std::unordered_set<Perm, PermHash>& canon) {
  std::vector<Orbit> out;
  out.reserve(canon.size());
  for (const Perm& p : canon) out.push_back({p, orbit_of(p).size});
  std::sort(out.begin(), out.end(),
            [](const Orbit& a, const Orbit& b) { return a.canonical < b.canonical; });
  return out;
}

// Is q (n queens in q[0..n-1], a permutation) free of diagonal conflicts? n <= 32.
bool conflict_free(const int* q, int n) {
  std::uint64_t sum = 0, diff = 0;
  for (int i = 0; i < n; ++i) {
    const std::uint64_t s = std::uint64_t{1} << (q[i] + i);
    const std::uint64_t d = std::uint64_t{1} << (q[i] - i + 31);
    if ((sum & s) | (diff & d)) return false;
    sum |= s;
    diff |= d;
  }
  return true;
}

// Inc into a buffer: the n-1 queens of `base` and a new one at (row_gap, col_gap).
void insert_into(const int* base, int base_n, int row_gap, int col_gap, int* out) {
  for (int i = 0, j = 0; i <= base_n; ++i) {
    if (i == col_gap) out[j++] = row_gap;
    if (i < base_n) out[j++] = base[i] + (base[i] >= row_gap ? 1 : 0);
  }
}

}  // namespace

namespace {

Expected<std::vector<Orbit>> enumerate_in_arena(int n) {
  if (auto ok = check_n(n, kMaxOrbitsN, "orbit enumeration"); !ok) return ok.error();
  // A canonical solution is no greater than its complement (po4), so its first queen stands in
  // the lower half: p[0] <= n-1-p[0]. Each allowed first row is one task; the tasks' lists are
  // concatenated in row order, which keeps the whole list lexicographic.
  const int first_rows = (n + 1) / 2;
  std::vector<std::vector<Orbit>> by_first_row(static_cast<std::size_t>(first_rows));
  tbb::parallel_for(0, first_rows, [&](int row) {
    std::vector<Orbit>& out = by_first_row[static_cast<std::size_t>(row)];
    for_each_solution(
        n,
        [&](const int* rows) {
          if (is_canonical(rows, n)) {
            Perm p(rows, rows + n);
            const int size = orbit_of(p).size;
            out.push_back({std::move(p), size});
          }
          return true;
        },
        Mask{1} << row);
  });
  std::vector<Orbit> all;
  for (std::vector<Orbit>& part : by_first_row)
    all.insert(all.end(), std::make_move_iterator(part.begin()),
               std::make_move_iterator(part.end()));
  return all;
}

// Every solution one Mov away from p (n queens): Mov(queen, gaps) = Inc of the gaps, shifted
// into the frame without the queen, after Del of the queen. In that frame two neighbouring gaps
// of the old frame coincide, so a queen's distinct moves are the n x n gaps there: n^2 rather
// than the (n + 1)^2 positions the paper's coordinates can name.
template <class Offer>
std::uint64_t single_moves(const Perm& p, Offer&& offer) {
  const int n = static_cast<int>(p.size());
  int without[kMaxN], q[kMaxN];
  std::uint64_t steps = 0;
  for (int col = 0; col < n; ++col) {
    const int row = p[col];
    for (int i = 0, j = 0; i < n; ++i)
      if (i != col) without[j++] = p[i] - (p[i] > row ? 1 : 0);
    for (int rg = 0; rg < n; ++rg)
      for (int cg = 0; cg < n; ++cg) {
        insert_into(without, n - 1, rg, cg, q);
        ++steps;
        if (conflict_free(q, n)) offer(q);
      }
  }
  return steps;
}

// Every solution two moves away from p: two queens deleted, and two new ones placed anywhere.
// Written directly as its result: the kept n - 2 queens go to the columns other than the new
// ones' (ca < cb) and the rows other than theirs (ra < rb), in order; the new queens take
// (ca, ra), (cb, rb) or (ca, rb), (cb, ra). The kept queens are checked once for both.
template <class Offer>
std::uint64_t double_moves(const Perm& p, Offer&& offer) {
  const int n = static_cast<int>(p.size());
  int kept[kMaxN], q[kMaxN];
  std::uint64_t steps = 0;
  for (int d1 = 0; d1 < n; ++d1)
    for (int d2 = d1 + 1; d2 < n; ++d2) {
      const int r1 = p[d1], r2 = p[d2];
      for (int i = 0, j = 0; i < n; ++i)
        if (i != d1 && i != d2) kept[j++] = p[i] - (p[i] > r1 ? 1 : 0) - (p[i] > r2 ? 1 : 0);
      for (int ca = 0; ca < n; ++ca)
        for (int cb = ca + 1; cb < n; ++cb)
          for (int ra = 0; ra < n; ++ra)
            for (int rb = ra + 1; rb < n; ++rb) {
              steps += 2;
              std::uint64_t sum = 0, diff = 0;
              bool ok = true;
              for (int k = 0; k < n - 2 && ok; ++k) {
                int c = k, r = kept[k];
                c += c >= ca ? 1 : 0;
                c += c >= cb ? 1 : 0;
                r += r >= ra ? 1 : 0;
                r += r >= rb ? 1 : 0;
                const std::uint64_t s = std::uint64_t{1} << (r + c);
                const std::uint64_t d = std::uint64_t{1} << (r - c + 31);
                ok = !((sum & s) | (diff & d));
                sum |= s;
                diff |= d;
                q[c] = r;
              }
              if (!ok) continue;
              auto free_at = [&](int r, int c) {
                return !((sum >> (r + c)) & 1u) && !((diff >> (r - c + 31)) & 1u);
              };
              // The new queens never share a row or column; a diagonal when |ra - rb| = cb - ca.
              if (rb - ra != cb - ca && free_at(ra, ca) && free_at(rb, cb)) {
                q[ca] = ra;
                q[cb] = rb;
                offer(q);
              }
              if (rb - ra != cb - ca && free_at(rb, ca) && free_at(ra, cb)) {
                q[ca] = rb;
                q[cb] = ra;
                offer(q);
              }
            }
    }
  return steps;
}

Expected<AlgebraicOrbits> algebraic_in_arena(int n, std::vector<GrowthEdge>* growth) {
  if (auto ok = check_n(n, kMaxAlgebraicN, "the algebraic orbit search"); !ok) return ok.error();
  AlgebraicOrbits result;
  constexpr int kBase = 4;
  if (n <= kBase) {
    auto base = enumerate_in_arena(n);
    if (!base) return base.error();
    result.orbits = std::move(base.value());
    result.base = result.orbits;
    AlgebraicLevel level;
    level.n = n;
    level.orbits = level.from_inc = level.from_mov = result.orbits.size();
    level.by_enumeration = true;
    result.levels.push_back(level);
    return result;
  }
  auto below = algebraic_in_arena(n - 1, growth);
  if (!below) return below.error();
  result.levels = std::move(below.value().levels);
  result.base = std::move(below.value().base);
  AlgebraicLevel level;
  level.n = n;
  level.seeds = below->orbits.size();

  std::unordered_set<Perm, PermHash> found;
  std::vector<Perm> need_mov, need_double;  // orbits not yet transmuted that way
  // The step that is producing solutions now, for the growth edges.
  GrowthEdge current;
  auto offer = [&](const int* sol) {
    Perm c = canonical_form(Perm(sol, sol + n));
    if (found.insert(c).second) {
      if (growth) {
        current.to = c;
        growth->push_back(current);
      }
      need_mov.push_back(c);
      need_double.push_back(std::move(c));
    }
  };

  // Inc at every position of one member per orbit: Inc commutes with D4 (an image of an Inc is
  // an Inc of the image, at the image's position), so the other members add nothing new. The
  // same holds for Mov and the double moves below.
  int q[kMaxN];
  for (const Orbit& seed : below->orbits)
    for (int rg = 0; rg < n; ++rg)
      for (int cg = 0; cg < n; ++cg) {
        if (growth) current = {GrowthStep::kInc, seed.canonical, {}, rg, cg};
        insert_into(seed.canonical.data(), n - 1, rg, cg, q);
        ++level.inc_steps;
        if (conflict_free(q, n)) offer(q);
      }
  level.from_inc = found.size();

  for (bool first = true;; first = false) {
    while (!need_mov.empty()) {  // the paper's Mov closure, generation by generation
      std::vector<Perm> generation;
      generation.swap(need_mov);
      ++level.mov_rounds;
      for (const Perm& p : generation) {
        if (growth) current = {GrowthStep::kMov, p, {}, -1, -1};
        level.mov_steps += single_moves(p, offer);
      }
    }
    if (first) level.from_mov = found.size();
    if (need_double.empty()) break;
    // Double moves: n^6 / 4 candidates per orbit, so the orbits go to TBB tasks, each thread
    // collecting the canonical forms it finds; they are merged after the pass.
    std::vector<Perm> batch;
    batch.swap(need_double);
    ++level.double_mov_rounds;
    struct Local {
      std::unordered_map<Perm, std::size_t, PermHash> seen;  // canonical form -> its batch index
      std::uint64_t steps = 0;
    };
    tbb::enumerable_thread_specific<Local> locals;
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, batch.size(), 1),
                      [&](const tbb::blocked_range<std::size_t>& range) {
                        Local& local = locals.local();
                        for (std::size_t i = range.begin(); i != range.end(); ++i)
                          local.steps += double_moves(batch[i], [&](const int* sol) {
                            auto [at, added] =
                                local.seen.emplace(canonical_form(Perm(sol, sol + n)), i);
                            if (!added) at->second = std::min(at->second, i);
                          });
                      });
    // Merged in batch order of the source orbit, so that the growth edges do not depend on
    // which thread found what first.
    std::vector<std::pair<std::size_t, Perm>> merged;
    for (Local& local : locals) {
      level.double_mov_steps += local.steps;
      for (auto& [c, from] : local.seen) merged.emplace_back(from, c);
    }
    std::sort(merged.begin(), merged.end());
    for (const auto& [from, c] : merged) {
      if (growth) current = {GrowthStep::kDoubleMov, batch[from], {}, -1, -1};
      offer(c.data());
    }
  }
  result.orbits = sorted_orbits(found);
  level.orbits = result.orbits.size();
  result.levels.push_back(level);
  return result;
}

// f() on `threads` threads (0: every hardware thread), in an arena of its own, and an Error for
// anything it threw (memory or a thread the system refused).
template <class F>
auto on_threads(const char* what, int threads, F&& f) -> decltype(f()) {
  if (threads < 0 || threads > kMaxThreads)
    return Error{std::string(what) + ": threads must be between 1 and " +
                 std::to_string(kMaxThreads) + " (or 0: every hardware thread), not " +
                 std::to_string(threads)};
  return errors_as_values([&]() -> decltype(f()) {
    CallArena arena(threads);  // within the host's TBB cap (base/threads.hpp)
    return arena.execute(f);
  });
}

}  // namespace

Expected<std::vector<Orbit>> enumerate_orbits(int n, int threads) {
  return on_threads("orbits", threads, [&] { return enumerate_in_arena(n); });
}

Expected<AlgebraicOrbits> algebraic_orbits(int n, std::vector<GrowthEdge>* growth, int threads) {
  return on_threads("orbits", threads, [&] { return algebraic_in_arena(n, growth); });
}

SignatureCheck check_signatures(const std::vector<Orbit>& orbits) {
  SignatureCheck check;
  // Keys can be long (6(n-2) numbers), so only a 64-bit hash of each is kept and sorted; equal
  // hashes are then compared exactly, which tells a true collision from a hash clash.
  std::vector<std::pair<std::uint64_t, std::size_t>> hashed(orbits.size());
  std::vector<char> invariant(orbits.size(), 1);
  // Nine keys an orbit (its canonical form and the eight images), each made in place in a
  // buffer of the task's own (1.8 million orbits at n = 16).
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, orbits.size()), [&](const auto& range) {
    std::vector<std::int64_t> key, image_key;
    for (std::size_t k = range.begin(); k != range.end(); ++k) {
      const Perm& p = orbits[k].canonical;
      const int n = static_cast<int>(p.size());
      key.resize(signature_key_size(n));
      image_key.resize(key.size());
      signature_key_into(p.data(), n, key.data());
      for (PermOp op : kAllPermOps) {
        const Perm image = apply_op(op, p);
        signature_key_into(image.data(), n, image_key.data());
        if (image_key != key) invariant[k] = 0;
      }
      std::uint64_t h = key.size();
      for (std::int64_t v : key) h = mix(h, static_cast<std::uint64_t>(v));
      hashed[k] = {h, k};
    }
  });
  for (std::size_t k = 0; k < orbits.size(); ++k)
    if (!invariant[k]) check.not_invariant.push_back(k);
  std::sort(hashed.begin(), hashed.end());
  for (std::size_t a = 0; a < hashed.size();) {
    std::size_t b = a + 1;
    while (b < hashed.size() && hashed[b].first == hashed[a].first) ++b;
    if (b == a + 1) {  // a hash of its own: a signature of its own
      ++check.distinct;
      a = b;
      continue;
    }
    // Within a run of equal hashes: group by exact key.
    std::vector<std::pair<SignatureKey, std::size_t>> run;
    for (std::size_t i = a; i < b; ++i)
      run.push_back(
          {signature_key(signature(orbits[hashed[i].second].canonical)), hashed[i].second});
    std::sort(run.begin(), run.end());
    for (std::size_t i = 0; i < run.size(); ++i) {
      if (i > 0 && run[i].first == run[i - 1].first)
        check.collisions.push_back({run[i - 1].second, run[i].second});
      else
        ++check.distinct;
    }
    a = b;
  }
  return check;
}

}  // namespace nq
