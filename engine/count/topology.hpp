// The machine as hwloc sees it, and the NUMA plan: one arena per NUMA node, its threads pinned
// to that node's CPUs.
//
// The plan is a pure function of a plain description of the machine (`Topology`), so the plan
// for a 4-socket server is computed and tested on a laptop. hwloc is only needed to fill the
// description, either from the real machine or from a synthetic description such as
// "pack:2 numa:2 core:16 pu:1" (hwloc_topology_set_synthetic, or HWLOC_SYNTHETIC in the
// environment; with HWLOC_THISSYSTEM=1 hwloc binds as if the fake machine were real).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "base/types.hpp"

namespace nq {

// One NUMA node: its memory and the CPUs closest to it.
struct NumaNode {
  int os_index = 0;      // hwloc's P# (what numactl calls the node)
  int package = 0;       // os index of the package it belongs to (0 if none)
  int cores = 0;         // cores whose PUs lie in the node's cpuset
  std::vector<int> pus;  // os indices of the node's PUs (logical CPUs), ascending
};

struct Topology {
  std::string source;        // "this machine" or "synthetic: <description>"
  bool this_system = false;  // binding threads to these CPUs is possible
  int packages = 0;
  int cores = 0;
  int pus = 0;
  std::vector<NumaNode> nodes;  // NUMA nodes in os order; nodes without CPUs are left out
};

// The machine (or what HWLOC_SYNTHETIC says it is), read once per process.
Expected<Topology> read_topology();

// True when this machine certainly has one NUMA node (the kernel lists node 0 only, and no
// HWLOC_SYNTHETIC or HWLOC_XMLFILE asks for another machine): a count then has nothing to
// place and skips hwloc's topology load (tens of milliseconds of serial setup).
bool single_numa_node_here();
// A synthetic machine from an hwloc synthetic description; never this system.
Expected<Topology> synthetic_topology(const std::string& description);

// One arena of the plan: `threads` workers pinned to `cpus` (empty: not pinned).
struct ArenaPlan {
  int node = -1;  // os index of its NUMA node; -1 for the single unpinned arena of --numa off
  int threads = 0;
  std::vector<int> cpus;
};

struct NumaPlan {
  int threads = 0;  // the total over the arenas
  std::vector<ArenaPlan> arenas;
};

// The threads spread over the nodes in proportion to their cores (largest remainder, ties to
// the lower node), every arena at least one thread; nodes that get no thread get no arena.
// `numa` false, or a machine with no CPU in any node: one arena with every thread, unpinned.
NumaPlan plan_arenas(const Topology& topology, int threads, bool numa);

// The live hwloc handle a run needs to pin its threads and place its memory. Every call fails
// softly (returns false / falls back) where binding is impossible: a synthetic machine, or CPUs
// and nodes that this machine does not have.
class Binder {
 public:
  Binder();  // the process's topology, loaded once (HWLOC_SYNTHETIC is honoured)
  ~Binder();
  Binder(const Binder&) = delete;
  Binder& operator=(const Binder&) = delete;

  // Binds the calling thread to `cpus`; false if that is impossible here.
  bool bind_thread(const std::vector<int>& cpus);
  // Gives the calling thread back the process's CPUs (as it was before bind_thread).
  void unbind_thread();
  // `bytes` of memory bound to NUMA node `node` (os index), or plain memory where binding
  // fails. Free with free_memory.
  void* alloc_on_node(std::size_t bytes, int node);
  void free_memory(void* p, std::size_t bytes);

 private:
  struct Impl;
  Impl* impl_;
};

// The CPU the calling thread runs on right now, or -1 if unknown.
int current_cpu();

// The CPUs the calling thread may run on (its affinity mask), ascending; empty if unknown.
std::vector<int> allowed_cpus();
// Sets the calling thread's affinity mask to `cpus` (allowed_cpus's form); false where the
// system refuses (a CPU this process may not use).
bool set_thread_affinity(const std::vector<int>& cpus);

// One CPU a worker: where an arena has exactly as many threads as CPUs (its node's, or, for an
// arena without a node, `allowed`), worker i of the arena gets the i-th of them; otherwise none
// (empty), and its threads move freely over the arena's CPUs. Left free, two busy workers could
// share one CPU while the other idled: the operating system has been seen to keep both workers
// of a 2-CPU count on one CPU for most of the count, in a third of the runs or more.
std::vector<int> worker_cpus(const ArenaPlan& arena, const std::vector<int>& allowed);

// Binds the calling thread to one CPU while it lives and gives it back its affinity mask after
// (a TBB worker serves later arenas too). Fails softly: a CPU below 0, or one the thread may
// not use (a synthetic node's), leaves the thread where it was.
class CpuPin {
 public:
  explicit CpuPin(int cpu);
  ~CpuPin();
  CpuPin(const CpuPin&) = delete;
  CpuPin& operator=(const CpuPin&) = delete;
  bool pinned() const { return pinned_; }

 private:
  std::vector<int> saved_;  // the mask to restore
  bool pinned_ = false;
};

// "0-3,8,10-11": the compact list form lscpu and numactl use.
std::string cpu_list(const std::vector<int>& cpus);

}  // namespace nq
