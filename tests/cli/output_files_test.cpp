// Every output path obeys one rule (base/file_io.hpp): a regular file or a new path is
// replaced atomically; a character device, FIFO or standard stream is written straight through
// and never replaced; a symbolic link leads to its target and stays a link; a write error is one
// `nqcount: error:` line and exit 2. The device files are our own, made with mknod in a temp
// folder (the machine's /dev/null and /dev/full are never touched).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/cli_runner.hpp"

namespace {

namespace fs = std::filesystem;
using namespace nq::test;  // nqcount, shell, Outcome, read_file, temp_path, ...

// Our own copy of a character device (1,3 is null, 1,7 is full); false when mknod is not
// allowed here (not root, or a container without the capability).
bool make_device(const std::string& path, unsigned minor) {
  return ::mknod(path.c_str(), S_IFCHR | 0666, makedev(1, minor)) == 0;
}

bool is_char_device(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
}

void expect_one_error_line(const Outcome& r, const std::string& must_contain) {
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err.rfind("nqcount: error: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(must_contain), std::string::npos) << r.err;
}

TEST(OutputFiles, NullDeviceStaysADevice) {
  const std::string dir = temp_dir("null");
  const std::string null = dir + "/null";
  if (!make_device(null, 3)) GTEST_SKIP() << "mknod is not allowed here";
  EXPECT_EQ(nqcount("--n 8 --threads 2 --task-stats " + null).status, 0);
  EXPECT_TRUE(is_char_device(null));
  EXPECT_EQ(nqcount("solve --n 50 --seed 1 --output " + null).status, 0);
  EXPECT_TRUE(is_char_device(null));
  // A checkpoint is read back: a device is refused, and left as it is.
  expect_one_error_line(nqcount("--n 8 --checkpoint " + null), "not a regular file");
  EXPECT_TRUE(is_char_device(null));
  // Nothing was created beside it (no temporary file left behind).
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
}

TEST(OutputFiles, FullDeviceIsAWriteErrorNotSuccess) {
  const std::string dir = temp_dir("full");
  const std::string full = dir + "/full";
  if (!make_device(full, 7)) GTEST_SKIP() << "mknod is not allowed here";
  // Task stats; solutions small and large (each writer: stdio, the formatted writer, the
  // parallel one); a Q-matrix and an LDPC matrix (MatrixMarket); the orbit growth graph.
  for (const char* command :
       {"--n 8 --threads 2 --task-stats", "solve --n 50 --seed 1 --output",
        "solve --n 20000 --seed 1 --output", "solve --n 2000000 --seed 1 --output",
        "solve --n 13 --seed 1 --format matrix --output",
        "solve --n 13 --modular --ldpc 3,4 --output", "orbits --n 8 --method algebraic --graph"}) {
    expect_one_error_line(nqcount(std::string(command) + " " + full), "No space left on device");
    EXPECT_TRUE(is_char_device(full)) << command;
  }
}

// Standard output is an output too: a command whose printed result cannot be written (a full
// device) says so and exits 2, whatever the command.
TEST(OutputFiles, AFullStandardOutputIsAWriteError) {
  const std::string dir = temp_dir("stdout-full");
  const std::string full = dir + "/full";
  if (!make_device(full, 7)) GTEST_SKIP() << "mknod is not allowed here";
  for (const char* command :
       {"--n 8", "--n 8 --json", "table", "group", "orbit --perm 2,4,1,3", "topology",
        "solve --n 8 --seed 1", "solve --method blnq --n 8 --runs 2 --seed 1", "list --n 6",
        "orbits --n 6", "estimate --n 10 --samples 2"})
    expect_one_error_line(nqcount(std::string(command) + " > " + full),
                          "cannot write to standard output: No space left on device");
  EXPECT_TRUE(is_char_device(full));
  // A reader that goes away is no error (the output just ends), whatever the writer: the stream
  // of list, the result of count, a large solution on standard output (pipefail: nqcount's own
  // status, not head's).
  for (const char* command :
       {"list --n 10", "--n 8", "solve --n 200000 --seed 1 --output -", "solve --n 50 --seed 1"}) {
    const Outcome r = nq::test::shell(std::string("bash -o pipefail -c '") + NQCOUNT_BIN + " " +
                                      command + " | head -c 10 >/dev/null'");
    EXPECT_EQ(r.status, 0) << command << ": " << r.err;
    EXPECT_EQ(r.err, "") << command;
  }
}

// A FIFO that no process reads would block forever: refused at once instead.
TEST(OutputFiles, AFifoWithoutAReaderIsRefusedNotAHang) {
  const std::string dir = temp_dir("fifo-alone");
  const std::string fifo = dir + "/pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  expect_one_error_line(nqcount("solve --n 8 --output " + fifo), "no process is reading");
  expect_one_error_line(nqcount("--n 8 --task-stats " + fifo), "no process is reading");
}

TEST(OutputFiles, FifoIsWrittenThroughAndStaysAFifo) {
  const std::string dir = temp_dir("fifo");
  const std::string fifo = dir + "/pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  // The reading end is open before nqcount starts: it opens a FIFO without waiting, and refuses
  // one that nobody reads (a reader on a thread of its own lost that race now and then). The
  // output is far below a pipe's buffer, so it waits there and is read once nqcount is done.
  const int rd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(rd, 0);
  const Outcome r = nqcount("solve --n 8 --seed 3 --format perm --output " + fifo);
  ::fcntl(rd, F_SETFL, 0);
  std::string got;
  char buffer[4096];
  for (ssize_t k; (k = ::read(rd, buffer, sizeof buffer)) > 0;)
    got.append(buffer, static_cast<std::size_t>(k));
  ::close(rd);
  EXPECT_EQ(r.status, 0) << r.err;
  const Outcome direct = nqcount("solve --n 8 --seed 3 --format perm");
  EXPECT_EQ(got, direct.out);
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST(OutputFiles, SymlinkLeadsToItsTargetAndStaysALink) {
  const std::string dir = temp_dir("link");
  const std::string target = dir + "/stats.csv", link = dir + "/link.csv";
  { std::ofstream(target) << "old\n"; }
  fs::create_symlink(target, link);
  EXPECT_EQ(nqcount("--n 8 --task-stats " + link).status, 0);
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(read_file(target).rfind("id,nodes,", 0), 0u) << read_file(target);
  // A link to nothing is refused, and nothing is created.
  const std::string dangling = dir + "/dangling.csv";
  fs::create_symlink(dir + "/missing/x.csv", dangling);
  expect_one_error_line(nqcount("--n 8 --task-stats " + dangling), "symbolic link");
  EXPECT_TRUE(fs::is_symlink(dangling));
  // A directory is refused.
  expect_one_error_line(nqcount("solve --n 8 --output " + dir), "is a directory");
}

TEST(OutputFiles, RegularFileIsReplacedWholeKeepingItsMode) {
  const std::string dir = temp_dir("regular");
  const std::string out = dir + "/sol.txt";
  { std::ofstream(out) << "something long that must not survive as a tail\n"; }
  ::chmod(out.c_str(), 0600);
  ASSERT_EQ(nqcount("solve --n 8 --seed 3 --format perm --output " + out).status, 0);
  EXPECT_EQ(read_file(out), nqcount("solve --n 8 --seed 3 --format perm").out);
  struct stat st {};
  ASSERT_EQ(::stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
}

// The number of entries in a folder (a temporary file left behind would show).
long entries(const std::string& dir) {
  return std::distance(fs::directory_iterator(dir), fs::directory_iterator());
}

// nqcount run in `dir` as its working folder, so that a relative name lands there.
Outcome nqcount_in(const std::string& dir, const std::string& args) {
  return nq::test::shell("cd " + dir + " && exec " + NQCOUNT_BIN + " " + args);
}

// Two outputs of one run that lead to one file, by any path, are refused before anything is
// written: the journal of an earlier run survives, and resumes.
TEST(OutputFiles, OutputsNamingTheSameFileAreRefused) {
  const std::string dir = temp_dir("same-file");
  const std::string journal = dir + "/j.ckpt";
  ASSERT_EQ(nqcount("--n 10 --checkpoint " + journal).status, 0);
  const std::string before = read_file(journal);
  ASSERT_FALSE(before.empty());
  fs::create_symlink(journal, dir + "/link.ckpt");
  fs::create_hard_link(journal, dir + "/hard.ckpt");
  fs::create_directories(dir + "/sub");
  for (const std::string& other : {journal, dir + "/link.ckpt", dir + "/hard.ckpt",
                                   dir + "/sub/../j.ckpt", dir + "/./sub/../link.ckpt"}) {
    expect_one_error_line(nqcount("--n 10 --checkpoint " + journal + " --task-stats " + other),
                          "lead to the same file");
    expect_one_error_line(nqcount("--n 10 --checkpoint " + other + " --task-stats " + journal),
                          "lead to the same file");
  }
  EXPECT_EQ(read_file(journal), before);
  EXPECT_EQ(entries(dir), 4);  // j.ckpt, link.ckpt, hard.ckpt, sub: nothing new
  // The journal still resumes (every subproblem from it).
  const Outcome resumed = nqcount("--n 10 --checkpoint " + journal);
  EXPECT_EQ(resumed.status, 0) << resumed.err;
  // A new file, named two ways (a relative path, `..`): refused, and not created.
  expect_one_error_line(nqcount_in(dir, "--n 8 --checkpoint new.ckpt --task-stats sub/../new.ckpt"),
                        "lead to the same file");
  EXPECT_FALSE(fs::exists(dir + "/new.ckpt"));
  EXPECT_EQ(entries(dir), 4);
  // Two names of standard output are one output too.
  expect_one_error_line(nqcount("--n 8 --checkpoint /dev/fd/1 --task-stats -"),
                        "lead to the same stream");
  // Distinct files are fine.
  const Outcome apart =
      nqcount("--n 8 --checkpoint " + dir + "/a.ckpt --task-stats " + dir + "/a.csv");
  EXPECT_EQ(apart.status, 0) << apart.err;
  EXPECT_EQ(read_file(dir + "/a.csv").rfind("id,nodes,", 0), 0u);
}

// --help, a command's --help, --version and orbits --json are standard output like any other:
// a full device is one error line and exit 2, as for every command (and 0 when it is written).
TEST(OutputFiles, HelpAndVersionToAFullDeviceExit2) {
  const std::string dir = temp_dir("help-full");
  const std::string full = dir + "/full";
  if (!make_device(full, 7)) GTEST_SKIP() << "mknod is not allowed here";
  for (const char* command : {"--help", "count --help", "solve --help", "--version",
                              "orbits --n 6 --json", "orbits --n 6 --method algebraic --json"}) {
    expect_one_error_line(nqcount(std::string(command) + " > " + full),
                          "cannot write to standard output: No space left on device");
    const Outcome fine = nqcount(command);
    EXPECT_EQ(fine.status, 0) << command << ": " << fine.err;
    EXPECT_FALSE(fine.out.empty()) << command;
  }
  EXPECT_TRUE(is_char_device(full));
}

// Standard output carries the JSON record of --json: an output sent there too would mix with
// it, so the combination is refused, whatever name leads there.
TEST(OutputFiles, JsonWithStreamedOutputIsRefused) {
  for (const char* command :
       {"--n 8 --json --task-stats -", "--n 8 --json --task-stats /dev/stdout",
        "--n 8 --json --task-stats /dev/fd/1", "solve --n 8 --json --output -",
        "solve --n 8 --json --output /dev/stdout",
        "solve --n 13 --modular --ldpc 3,4 --json "
        "--output /dev/stdout",
        "orbits --n 6 --method algebraic --json --graph -"}) {
    const Outcome r = nqcount(command);
    expect_one_error_line(r, "carries the JSON record of --json");
    EXPECT_EQ(r.out, "") << command;
  }
  // Without --json a streamed output is fine, and a file with --json too.
  const Outcome csv = nqcount("--n 8 --task-stats -");
  EXPECT_EQ(csv.status, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("id,nodes,", 0), 0u) << csv.out;
  const Outcome json = nqcount("solve --n 8 --json --output " + temp_path("sol.txt"));
  EXPECT_EQ(json.status, 0) << json.err;
}

// `-` as a checkpoint would be a file named "-" (a journal cannot be read back from a stream).
TEST(OutputFiles, CheckpointDashIsRefused) {
  const std::string dir = temp_dir("checkpoint-dash");
  const Outcome r = nqcount_in(dir, "--n 8 --checkpoint -");
  expect_one_error_line(r, "--checkpoint '-'");
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(entries(dir), 0);
}

// A new file gets 0666 less the umask, as from any program; a replaced regular file keeps its
// own mode, whatever the umask.
TEST(OutputFiles, NewFilesRespectTheUmask) {
  const std::string dir = temp_dir("umask");
  auto mode = [](const std::string& path) {
    struct stat st {};
    EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
    return st.st_mode & 07777;
  };
  // Each writer (task stats, the journal, solutions, the growth graph) under umask 027 and 077,
  // each umask into a folder of its own.
  for (const auto& [umask, expected] : {std::pair{"027", 0640u}, std::pair{"077", 0600u}}) {
    const std::string in = temp_dir(std::string("umask-") + umask);
    for (const char* args :
         {"--n 8 --task-stats stats.csv", "--n 8 --checkpoint j.ckpt",
          "solve --n 8 --output sol.txt", "orbits --n 6 --method algebraic --graph g.dot"}) {
      const Outcome r = nq::test::shell("umask " + std::string(umask) + " && cd " + in +
                                        " && exec " + NQCOUNT_BIN + " " + args);
      ASSERT_EQ(r.status, 0) << args << ": " << r.err;
    }
    for (const char* name : {"stats.csv", "j.ckpt", "sol.txt", "g.dot"})
      EXPECT_EQ(mode(in + "/" + name), expected) << umask << " " << name;
    EXPECT_EQ(entries(in), 4);
  }
  // Replaced: keeps 0604 under umask 077.
  const std::string kept = dir + "/kept.txt";
  { std::ofstream(kept) << "old\n"; }
  ASSERT_EQ(::chmod(kept.c_str(), 0604), 0);
  const Outcome r = nq::test::shell("umask 077 && exec " + std::string(NQCOUNT_BIN) +
                                    " solve --n 8 --output " + kept);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(read_file(kept), "old\n");
  EXPECT_EQ(mode(kept), 0604u);
}

// Any name the file system takes is writable (the temporary name is short and fixed, not the
// target's name with a suffix); one it refuses is an error that leaves nothing behind.
TEST(OutputFiles, LongFileNamesAreWritable) {
  for (const std::size_t length : {245u, 250u, 255u}) {
    const std::string name(length, 'q');
    for (const char* option :
         {"solve --n 8 --seed 3 --output", "--n 8 --task-stats", "--n 8 --checkpoint"}) {
      const std::string dir = temp_dir("long-names");
      const Outcome r = nqcount_in(dir, std::string(option) + " " + name);
      ASSERT_EQ(r.status, 0) << option << " (" << length << " bytes): " << r.err;
      EXPECT_GT(fs::file_size(dir + "/" + name), 0u) << option;
      EXPECT_EQ(entries(dir), 1) << option;  // the file, and no temporary one
    }
  }
  const std::string dir = temp_dir("long-names");
  expect_one_error_line(nqcount_in(dir, "solve --n 8 --output " + std::string(256, 'q')),
                        "File name too long");
  EXPECT_EQ(entries(dir), 0);
}

TEST(OutputFiles, DevStdoutGoesToTheStandardOutput) {
  const Outcome r = nqcount("solve --n 8 --seed 3 --format perm --output /dev/stdout");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, nqcount("solve --n 8 --seed 3 --format perm").out);
}

TEST(OutputFiles, ScriptsFollowTheSameRule) {
  const std::string dir = temp_dir("script");
  const std::string csv = dir + "/scaling.csv";
  if (!make_device(csv, 3)) GTEST_SKIP() << "mknod is not allowed here";
  const Outcome r = nq::test::shell(std::string("NQCOUNT=") + NQCOUNT_BIN + " " + NQ_SOURCE_DIR +
                                    "/scripts/scaling --n 8 --threads 1 --out " + dir);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(is_char_device(csv));
  EXPECT_TRUE(fs::is_regular_file(dir + "/scaling.png") || !r.err.empty());
}

// The documented scripts/scaling command lines run as written: each names its --out folder
// (the script refuses to run without one), and a line without it is refused.
TEST(OutputFiles, DocumentedScalingCommandsNameTheirOutputFolder) {
  int commands = 0;
  std::vector<fs::path> pages{fs::path(NQ_SOURCE_DIR) / "README.md"};
  for (const auto& entry : fs::directory_iterator(fs::path(NQ_SOURCE_DIR) / "docs"))
    pages.push_back(entry.path());
  for (const fs::path& page : pages) {
    std::ifstream in(page);
    for (std::string line; std::getline(in, line);)
      for (std::size_t at = line.find("scripts/scaling --"); at != std::string::npos;
           at = line.find("scripts/scaling --", at + 1)) {
        const std::size_t end = line.find('`', at);  // the command ends with its code span
        const std::string command = line.substr(at, end == std::string::npos ? end : end - at);
        EXPECT_NE(command.find(" --out "), std::string::npos) << page << ": " << command;
        ++commands;
      }
  }
  EXPECT_GT(commands, 0);
  const Outcome without = nq::test::shell(std::string("NQCOUNT=") + NQCOUNT_BIN + " " +
                                          NQ_SOURCE_DIR + "/scripts/scaling --n 8 --threads 1");
  EXPECT_EQ(without.status, 2) << without.err;
}

}  // namespace
