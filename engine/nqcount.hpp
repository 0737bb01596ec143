// nqcount as a library: the one header a program includes (installed as <nqcount/nqcount.hpp>).
//
//   nq::CountConfig config;
//   config.n = 12;
//   config.threads = 2;
//   const nq::Expected<nq::CountResult> r = nq::count(config);
//   if (r) std::cout << nq::to_string(r->orbits.total) << " " << nq::to_string(r->orbits.unique);
//   else std::cerr << r.error().message;
//
// What it offers (docs/library.md): the count (count.hpp, config.hpp) with its progress and
// cancel (nq::Monitor, base/types.hpp), checkpoints and memory bounds; a count as a campaign of
// shards, merged, watched and audited (campaign.hpp); the estimate of a count too large to run
// (estimate.hpp); the known table, for checking (known.hpp); one or many solutions for large n and
// their check (solve.hpp, blnq.hpp, verify.hpp); the D4 algebra of solutions (algebra.hpp,
// orbits.hpp). The library never prints and never exits: every failure is an nq::Error with a
// message.
#pragma once

#include "base/threads.hpp"
#include "base/types.hpp"
#include "engine/algebra/algebra.hpp"
#include "engine/algebra/orbits.hpp"
#include "engine/count/campaign.hpp"
#include "engine/count/cluster.hpp"
#include "engine/count/config.hpp"
#include "engine/count/count.hpp"
#include "engine/count/estimate.hpp"
#include "engine/count/known.hpp"
#include "engine/count/memory.hpp"
#include "engine/solve/blnq.hpp"
#include "engine/solve/solve.hpp"
#include "engine/solve/verify.hpp"
#include "kernels/kernels.hpp"
