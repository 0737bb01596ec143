// The TBB runner: a parallel reduction over the plan's subproblems, inside an arena capped at
// the requested number of threads.
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/info.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <oneapi/tbb/partitioner.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <chrono>

#include "engine.hpp"
#include "frontend.hpp"
#include "kernels.hpp"
#include "placement.hpp"

namespace nq {
namespace {

// A range of subproblem indices. The grain bounds how many subproblems one leaf task counts:
// subproblem costs vary by two orders of magnitude, so leaves are kept small (a few per
// thread per percent of the work) and stealing evens out the rest.
class SubproblemRange {
 public:
  SubproblemRange(std::size_t b, std::size_t e, std::size_t grain) : b_(b), e_(e), grain_(grain) {}
  SubproblemRange(SubproblemRange& r, tbb::split)
      : b_(r.b_ + (r.e_ - r.b_) / 2), e_(r.e_), grain_(r.grain_) {
    r.e_ = b_;
  }
  bool empty() const { return b_ >= e_; }
  bool is_divisible() const { return e_ - b_ > grain_; }
  std::size_t begin() const { return b_; }
  std::size_t end() const { return e_; }

 private:
  std::size_t b_, e_, grain_;
};

class CountBody {
 public:
  CountBody(const Plan& plan, const Kernel* kernel, Monitor* monitor)
      : plan_(plan), kernel_(kernel), monitor_(monitor) {}
  CountBody(CountBody& o, tbb::split) : plan_(o.plan_), kernel_(o.kernel_), monitor_(o.monitor_) {}

  void operator()(const SubproblemRange& r) {
    constexpr std::size_t kBatch = 64;
    std::array<Tally, kBatch> tallies;
    for (std::size_t b = r.begin(); b < r.end(); b += kBatch) {
      if (monitor_ && monitor_->cancel.load(std::memory_order_relaxed)) return;
      const std::size_t m = std::min(kBatch, r.end() - b);
      const std::span<const Subproblem> in(plan_.subproblems.data() + b, m);
      if (kernel_) {
        kernel_->count(in, std::span<Tally>(tallies.data(), m));
      } else {
        for (std::size_t i = 0; i < m; ++i)
          tallies[i] = count_classic(plan_.n, in[i].cols, in[i].ld, in[i].rd, in[i].rows);
      }
      std::uint64_t nodes = 0;
      for (std::size_t i = 0; i < m; ++i) {
        part_.weighted += static_cast<u128>(plan_.weights[b + i]) * tallies[i].solutions;
        nodes += tallies[i].nodes;
      }
      part_.nodes += nodes;
      part_.subproblems += m;
      if (monitor_) {
        monitor_->subproblems_done.fetch_add(m, std::memory_order_relaxed);
        monitor_->nodes_done.fetch_add(nodes, std::memory_order_relaxed);
      }
    }
  }
  void join(const CountBody& o) { part_.join(o.part_); }
  const Partial& partial() const { return part_; }

 private:
  const Plan& plan_;
  const Kernel* kernel_;  // nullptr: the classic kernel
  Monitor* monitor_;
  Partial part_;
};

}  // namespace

int hardware_threads() { return tbb::info::default_concurrency(); }

OrbitCounts classify_by_enumeration(int n) {
  OrbitCounts o;
  u128 by_size[9] = {};
  Placement p(n);
  auto rec = [&](auto&& self, int row) -> void {
    if (row == n) {
      int stab = 0;
      for (Sym g : kAllSyms) stab += p.image(g) == p;
      by_size[kD4Order / stab] += 1;
      return;
    }
    for (int c = 0; c < n; ++c)
      if (p.can_place(row, c)) {
        p.place(row, c);
        self(self, row + 1);
        p.remove(row);
      }
  };
  rec(rec, 0);
  o.u1 = by_size[1];
  o.u2 = by_size[2] / 2;
  o.u4 = by_size[4] / 4;
  o.u8 = by_size[8] / 8;
  o.total = by_size[1] + by_size[2] + by_size[4] + by_size[8];
  o.unique = o.u1 + o.u2 + o.u4 + o.u8;
  return o;
}

Expected<CountResult> count(const CountConfig& config, Monitor* monitor) {
  const int n = config.n;
  if (n < 1 || n > kMaxCountN)
    return Error{"n must be between 1 and " + std::to_string(kMaxCountN) + ", got " +
                 std::to_string(n)};
  if (config.threads < 0)
    return Error{"threads must be at least 1, got " + std::to_string(config.threads)};
  const Kernel* kernel = nullptr;
  const bool classic = config.kernel == "reference";
  if (!classic) {
    kernel = find_kernel(config.kernel);
    if (!kernel) {
      std::string names = "auto, reference";
      for (const Kernel& k : all_kernels()) names += ", " + std::string(k.name);
      return Error{"unknown kernel '" + config.kernel + "' (expected one of: " + names + ")"};
    }
    if (!kernel->supported())
      return Error{"kernel '" + config.kernel + "' cannot run on this CPU (it needs " +
                   std::string(kernel->needs) + ")"};
  }

  const auto start = std::chrono::steady_clock::now();
  CountResult result;
  result.n = n;
  result.threads = config.threads > 0 ? config.threads : hardware_threads();
  result.kernel = classic ? "reference" : std::string(kernel->name);

  if (n < 4) {  // too small for a frame; a solution may be fixed by a reflection (n = 1)
    result.orbits = classify_by_enumeration(n);
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }

  const int split = config.split_rows >= 0 ? config.split_rows : default_split_rows(n);
  const Plan plan = classic ? plan_classic(n, split) : plan_canonical(n, split);
  result.classes = plan.classes;
  result.split_rows = plan.split_rows;
  result.subproblems_total = plan.subproblems.size();
  if (monitor) monitor->subproblems_total.store(plan.subproblems.size());

  const std::size_t total = plan.subproblems.size();
  const std::size_t per_thread = total / (static_cast<std::size_t>(result.threads) * 256);
  const std::size_t grain = std::clamp<std::size_t>(per_thread, 1, 32);

  tbb::global_control cap(tbb::global_control::max_allowed_parallelism,
                          static_cast<std::size_t>(result.threads));
  tbb::task_arena arena(result.threads);
  CountBody body(plan, kernel, monitor);
  arena.execute([&] {
    tbb::parallel_reduce(SubproblemRange(0, total, grain), body, tbb::simple_partitioner());
  });

  const Partial& part = body.partial();
  result.nodes = part.nodes;
  result.subproblems = part.subproblems;
  result.cancelled = part.subproblems < total;
  auto orbits = finish_orbits(part.weighted, plan.sym4, plan.sym2);
  if (!orbits.ok()) {
    if (!result.cancelled) return orbits.error();
    orbits = OrbitCounts{part.weighted};  // partial counts: orbits are not meaningful yet
  }
  result.orbits = *orbits;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace nq
