// scripts/slurm/nqcount-array.sbatch under a real slurmctld and slurmd on this machine
// (tests/scripts/slurm_campaign.sh says how): a campaign of 8 shards of n = 17, one of them
// stopped by SIGTERM and requeued, one shard of a larger board stopped by its time limit and
// requeued, merged to the table's counts and audited. Skipped, saying why, where Slurm and munge
// are not installed or the test does not run as root.
#include <gtest/gtest.h>

#include "tests/cli_runner.hpp"

namespace {

TEST(SlowSlurm, ArrayCampaignSurvivesATermAndATimeLimitThenMergesAndAudits) {
  const nq::test::Outcome r = nq::test::shell(
      NQ_SOURCE_DIR "/tests/scripts/slurm_campaign.sh " NQCOUNT_BIN " " NQ_SOURCE_DIR
                    "/scripts/slurm/nqcount-array.sbatch " NQ_SOURCE_DIR
                    "/engine/count/queens.csv");
  if (r.status == 77) GTEST_SKIP() << r.out;
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("slurm_campaign: passed"), std::string::npos) << r.out;
}

}  // namespace
