#include "cli/io/json.hpp"

#include "cli/io/output.hpp"

namespace nq {

using cli::json_count;

void to_json(nlohmann::json& j, const OrbitCounts& o) {
  j["total"] = json_count(o.total);
  j["unique"] = json_count(o.unique);
  j["orbits"] = {{"1", json_count(o.u1)},
                 {"2", json_count(o.u2)},
                 {"4", json_count(o.u4)},
                 {"8", json_count(o.u8)}};
}

void to_json(nlohmann::json& j, const ArenaResult& a) {
  j = {{"node", a.node},
       {"threads", a.threads},
       {"cpus", a.cpus},
       {"pinned", a.pinned},
       {"ran_on", a.ran_on},
       {"worker_cpus", a.worker_cpus},
       {"subproblems", a.subproblems},
       {"helped", a.helped},
       {"stolen", a.stolen}};
}

void to_json(nlohmann::json& j, const CountResult& r) {
  j = r.orbits;
  j["n"] = r.n;
  j["threads"] = r.threads;
  j["nodes"] = json_count(r.nodes);
  j["subproblems"] = r.subproblems;
  j["classes"] = r.classes;
  j["split_depth"] = r.split_rows;
  j["seconds"] = r.seconds;
  j["kernel"] = r.kernel;
  j["isa"] = r.isa;
  j["setup_seconds"] = r.setup_seconds;
  j["numa_nodes"] = r.numa_nodes;
  j["memory_estimate_bytes"] = r.memory_estimate;
  j["arenas"] = r.arenas;
  j["cross_checked"] = r.cross_checked;
}

void to_json(nlohmann::json& j, const DpResult& r) {
  j = {{"n", r.n},           {"total", r.total},     {"peak_states", r.peak_states},
       {"merges", r.merges}, {"threads", r.threads}, {"seconds", r.seconds}};
}

void to_json(nlohmann::json& j, const SimulatedRun& r) {
  j = {{"workers", r.workers},   {"arenas", r.arenas},
       {"work_seconds", r.work}, {"makespan_seconds", r.makespan},
       {"speedup", r.speedup},   {"efficiency", r.efficiency},
       {"steals", r.steals}};
}

void to_json(nlohmann::json& j, const SimulatedDeal& d) {
  j = {{"ranks", d.ranks},
       {"threads_per_rank", d.threads},
       {"batches", d.batches},
       {"work_seconds", d.work},
       {"makespan_seconds", d.makespan},
       {"efficiency", d.efficiency},
       {"root_busy", d.root_busy},
       {"longest_wait_seconds", d.longest_wait},
       {"first_idle_seconds", d.first_idle},
       {"tail_seconds", d.tail}};
}

void to_json(nlohmann::json& j, const Interval& i) {
  j = {{"estimate", i.value}, {"low", i.low}, {"high", i.high}};
}

void to_json(nlohmann::json& j, const EstimateResult& r) {
  const auto hours = [](const Interval& i) {
    return Interval{i.value / 3600, i.low / 3600, i.high / 3600};
  };
  j = {{"n", r.n},
       {"subproblems", r.subproblems},
       {"splits", r.splits},
       {"tasks", r.tasks},
       {"strata", r.strata},
       {"samples", r.samples},
       {"sampled_within", r.sampled_within},
       {"sample_cpu_seconds", r.sample_seconds},
       {"passes", r.passes},
       {"pass_draws", r.pass_draws},
       {"speed_blocks", r.speed_blocks},
       {"spread_seconds", r.spread_seconds},
       {"speed_spread", r.speed_spread},
       {"sampling_error", r.sampling_error},
       {"core_seconds", r.core_seconds},
       {"core_hours", hours(r.core_seconds)},
       {"sample_core_hours", hours(r.sample_core_seconds)},
       {"total", r.total},
       {"worker_bytes", r.worker_bytes},
       {"process_bytes", r.process_bytes},
       {"procs", r.procs},
       {"wall_seconds", r.wall_seconds},
       {"efficiency", r.efficiency},
       {"seconds", r.seconds}};
  if (r.cluster) {
    j["cluster"] = r.deal;
    j["cluster"]["root_seconds"] = r.root_seconds;
    j["cluster"]["busy_fraction"] = r.deal.efficiency;
    j["cluster"]["cores"] = r.cores;
    j["cluster"]["scatter"] = r.scatter;
    j["cluster"]["scattered"] = r.scattered;
    j["cluster"]["scattered"]["busy_fraction"] = r.scattered.efficiency;
  }
}

void to_json(nlohmann::json& j, const NumaNode& n) {
  j = {{"node", n.os_index}, {"package", n.package}, {"cores", n.cores}, {"pus", n.pus}};
}

void to_json(nlohmann::json& j, const Topology& t) {
  j = {{"source", t.source},     {"this_system", t.this_system},
       {"packages", t.packages}, {"numa_nodes", t.nodes.size()},
       {"cores", t.cores},       {"pus", t.pus},
       {"nodes", t.nodes}};
}

void to_json(nlohmann::json& j, const ArenaPlan& a) {
  j = {{"node", a.node},
       {"threads", a.threads},
       {"cpus", a.cpus},
       {"worker_cpus", worker_cpus(a, {})}};
}

}  // namespace nq
