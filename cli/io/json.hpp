// The JSON of the engine's results: one to_json per result type, found by nlohmann::json's
// argument-dependent lookup (`nlohmann::json j = result;`), so that every command and both
// programs write a result with the same fields. A command adds what only it knows (its options,
// the known table's verdict). Counts past 64 bits are decimal strings (json_count).
#pragma once

#include <nlohmann/json.hpp>

#include "engine/algebra/dp.hpp"
#include "engine/count/count.hpp"
#include "engine/count/estimate.hpp"
#include "engine/count/simulate.hpp"
#include "engine/count/topology.hpp"

namespace nq {

void to_json(nlohmann::json& j, const OrbitCounts& o);  // total, unique, orbits {1, 2, 4, 8}
void to_json(nlohmann::json& j, const ArenaResult& a);
// n, threads, the orbit counts, nodes, subproblems, classes, split_depth, seconds, kernel, isa,
// setup_seconds, numa_nodes, memory_estimate_bytes, arenas, cross_checked.
void to_json(nlohmann::json& j, const CountResult& r);
void to_json(nlohmann::json& j, const DpResult& r);
void to_json(nlohmann::json& j, const SimulatedRun& r);
void to_json(nlohmann::json& j, const SimulatedDeal& d);
void to_json(nlohmann::json& j, const Interval& i);  // estimate, low, high
// Every field but the cross-check's (a command adds those when it asked for one).
void to_json(nlohmann::json& j, const EstimateResult& r);
void to_json(nlohmann::json& j, const NumaNode& n);
void to_json(nlohmann::json& j, const Topology& t);
void to_json(nlohmann::json& j, const ArenaPlan& a);  // with the CPU each worker is bound to

}  // namespace nq
