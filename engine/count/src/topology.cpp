#include "engine/count/topology.hpp"

#include <hwloc.h>
#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <numeric>

namespace nq {
namespace {

// Owns a loaded hwloc topology.
struct HwlocTopology {
  hwloc_topology_t t = nullptr;
  ~HwlocTopology() {
    if (t) hwloc_topology_destroy(t);
  }
};

std::vector<int> bits_of(hwloc_const_bitmap_t set) {
  std::vector<int> out;
  if (!set) return out;
  for (int i = hwloc_bitmap_first(set); i >= 0; i = hwloc_bitmap_next(set, i)) out.push_back(i);
  return out;
}

Topology describe(hwloc_topology_t t, std::string source) {
  Topology topo;
  topo.source = std::move(source);
  topo.this_system = hwloc_topology_is_thissystem(t) != 0;
  topo.packages = std::max(0, hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE));
  topo.cores = std::max(0, hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE));
  topo.pus = std::max(0, hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU));
  if (topo.cores == 0) topo.cores = topo.pus;  // some virtual machines report no cores
  const int count = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
  for (int i = 0; i < count; ++i) {
    hwloc_obj_t obj = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
    if (!obj || !obj->cpuset || hwloc_bitmap_iszero(obj->cpuset)) continue;  // memory only
    NumaNode node;
    node.os_index = static_cast<int>(obj->os_index);
    if (hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_PACKAGE, obj))
      node.package = static_cast<int>(pkg->os_index);
    node.pus = bits_of(obj->cpuset);
    node.cores = hwloc_get_nbobjs_inside_cpuset_by_type(t, obj->cpuset, HWLOC_OBJ_CORE);
    if (node.cores <= 0) node.cores = static_cast<int>(node.pus.size());
    topo.nodes.push_back(std::move(node));
  }
  std::sort(topo.nodes.begin(), topo.nodes.end(),
            [](const NumaNode& a, const NumaNode& b) { return a.os_index < b.os_index; });
  return topo;
}

Expected<Topology> load(const char* synthetic, std::string source) {
  HwlocTopology h;
  if (hwloc_topology_init(&h.t) != 0) return Error{"hwloc could not initialise a topology"};
  if (synthetic && hwloc_topology_set_synthetic(h.t, synthetic) != 0)
    return Error{"hwloc rejected the synthetic topology '" + std::string(synthetic) +
                 "' (expected e.g. 'pack:2 numa:2 core:16 pu:1')"};
  if (hwloc_topology_load(h.t) != 0) return Error{"hwloc could not read the machine's topology"};
  return describe(h.t, std::move(source));
}

}  // namespace

// The machine this process runs on, loaded once: an hwloc load costs tens of milliseconds
// (it opens its plugins and reads /sys), too much to pay per count, and the machine does not
// change while the process runs. Never freed, so that no thread can outlive it. In `detail`,
// not this file's anonymous namespace, because Binder::Impl holds it.
namespace detail {

struct ThisMachine {
  hwloc_topology_t t = nullptr;
  bool loaded = false;                   // hwloc_alloc/hwloc_free need a loaded topology
  bool usable = false;                   // binding works here
  hwloc_bitmap_t process_set = nullptr;  // the CPUs the process may run on, at load
  Expected<Topology> description = Error{"hwloc could not initialise a topology"};
};

const ThisMachine& this_machine() {
  static const ThisMachine* machine = [] {
    auto* m = new ThisMachine;
    if (hwloc_topology_init(&m->t) != 0) return m;
    if (hwloc_topology_load(m->t) != 0) {
      m->description = Error{"hwloc could not read the machine's topology"};
      return m;
    }
    m->loaded = true;
    m->usable = hwloc_topology_is_thissystem(m->t) != 0;
    m->process_set = hwloc_bitmap_alloc();
    if (m->process_set && hwloc_get_cpubind(m->t, m->process_set, HWLOC_CPUBIND_PROCESS) != 0)
      hwloc_bitmap_fill(m->process_set);
    // hwloc falls back to the real machine when HWLOC_SYNTHETIC does not parse: say so rather
    // than show this machine under the synthetic name.
    const char* env = std::getenv("HWLOC_SYNTHETIC");
    const bool fake = env && *env;
    const char* backend = hwloc_obj_get_info_by_name(hwloc_get_root_obj(m->t), "Backend");
    if (fake && !(backend && std::string(backend) == "Synthetic"))
      m->description = Error{"hwloc did not understand HWLOC_SYNTHETIC='" + std::string(env) +
                             "' (expected e.g. 'pack:2 numa:2 core:16 pu:1')"};
    else
      m->description = describe(m->t, fake ? "synthetic: " + std::string(env) : "this machine");
    return m;
  }();
  return *machine;
}

}  // namespace detail

using detail::this_machine;
using detail::ThisMachine;

bool single_numa_node_here() {
  for (const char* var : {"HWLOC_SYNTHETIC", "HWLOC_XMLFILE", "HWLOC_FSROOT"})
    if (std::getenv(var)) return false;
  std::ifstream online("/sys/devices/system/node/online");
  std::string nodes;
  return (online >> nodes) && nodes == "0";
}

Expected<Topology> read_topology() {
  return this_machine().description;
}

Expected<Topology> synthetic_topology(const std::string& description) {
  return load(description.c_str(), "synthetic: " + description);
}

NumaPlan plan_arenas(const Topology& topology, int threads, bool numa) {
  NumaPlan plan;
  plan.threads = std::max(threads, 1);
  int total_cores = 0;
  for (const NumaNode& n : topology.nodes) total_cores += n.cores;
  if (!numa || total_cores == 0) {
    plan.arenas.push_back({-1, plan.threads, {}});
    return plan;
  }
  // Largest remainder: every node first gets the whole part of its share T * cores / total,
  // then the leftover threads go to the largest fractional parts (ties to the lower node).
  const std::size_t k = topology.nodes.size();
  std::vector<long long> share(k), remainder(k);
  long long given = 0;
  for (std::size_t i = 0; i < k; ++i) {
    const long long exact = static_cast<long long>(plan.threads) * topology.nodes[i].cores;
    share[i] = exact / total_cores;
    remainder[i] = exact % total_cores;
    given += share[i];
  }
  std::vector<std::size_t> order(k);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return remainder[a] > remainder[b]; });
  for (std::size_t j = 0; given < plan.threads; j = (j + 1) % k, ++given) ++share[order[j]];
  for (std::size_t i = 0; i < k; ++i)
    if (share[i] > 0)
      plan.arenas.push_back(
          {topology.nodes[i].os_index, static_cast<int>(share[i]), topology.nodes[i].pus});
  return plan;
}

std::string cpu_list(const std::vector<int>& cpus) {
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) {
      out += '-';  // appended apart: GCC 12 warns falsely on "-" + std::to_string
      out += std::to_string(cpus[j]);
    }
    i = j + 1;
  }
  return out;
}

struct Binder::Impl {
  const ThisMachine& m = this_machine();
};

Binder::Binder() : impl_(new Impl) {}

Binder::~Binder() {
  delete impl_;
}

bool Binder::bind_thread(const std::vector<int>& cpus) {
  const ThisMachine& m = impl_->m;
  if (!m.usable || !m.process_set || cpus.empty()) return false;
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  if (!set) return false;
  for (int c : cpus) hwloc_bitmap_set(set, static_cast<unsigned>(c));
  // Binding to CPUs the process may not use (a fake node of a synthetic machine) fails in the
  // kernel; the thread then keeps running where it was.
  const bool ok = hwloc_bitmap_isincluded(set, m.process_set) &&
                  hwloc_set_cpubind(m.t, set, HWLOC_CPUBIND_THREAD) == 0;
  hwloc_bitmap_free(set);
  return ok;
}

void Binder::unbind_thread() {
  const ThisMachine& m = impl_->m;
  if (m.usable && m.process_set) hwloc_set_cpubind(m.t, m.process_set, HWLOC_CPUBIND_THREAD);
}

void* Binder::alloc_on_node(std::size_t bytes, int node) {
  const ThisMachine& m = impl_->m;
  if (bytes == 0) bytes = 1;
  if (m.usable && node >= 0) {
    hwloc_bitmap_t nodeset = hwloc_bitmap_alloc();
    if (nodeset) {
      hwloc_bitmap_set(nodeset, static_cast<unsigned>(node));
      void* p =
          hwloc_alloc_membind(m.t, bytes, nodeset, HWLOC_MEMBIND_BIND, HWLOC_MEMBIND_BYNODESET);
      hwloc_bitmap_free(nodeset);
      if (p) return p;
    }
  }
  // Binding impossible (synthetic machine, no such node, no mbind): ordinary pages, placed on
  // first touch, which the pinned threads of the node do.
  return m.loaded ? hwloc_alloc(m.t, bytes) : std::malloc(bytes);
}

void Binder::free_memory(void* p, std::size_t bytes) {
  const ThisMachine& m = impl_->m;
  if (!p) return;
  if (m.loaded)
    hwloc_free(m.t, p, bytes == 0 ? 1 : bytes);
  else
    std::free(p);
}

int current_cpu() {
  return sched_getcpu();
}

bool set_thread_affinity(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus)
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &set);
  return CPU_COUNT(&set) > 0 && sched_setaffinity(0, sizeof(set), &set) == 0;
}

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> out;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return out;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) out.push_back(c);
  return out;
}

std::vector<int> worker_cpus(const ArenaPlan& arena, const std::vector<int>& allowed) {
  const std::vector<int>& cpus = arena.cpus.empty() ? allowed : arena.cpus;
  if (arena.threads <= 0 || cpus.size() != static_cast<std::size_t>(arena.threads)) return {};
  return cpus;
}

CpuPin::CpuPin(int cpu) {
  if (cpu < 0) return;
  saved_ = allowed_cpus();
  if (!saved_.empty() && std::find(saved_.begin(), saved_.end(), cpu) != saved_.end())
    pinned_ = set_thread_affinity({cpu});
}

CpuPin::~CpuPin() {
  if (pinned_) set_thread_affinity(saved_);
}

}  // namespace nq
