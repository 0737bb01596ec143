# Shared by the scripts: install what is missing, then configure and build.
# Sourced, not run. Uses: NQ_ROOT, NQ_BUILD (build folder), NQ_CMAKE_ARGS.

NQ_ROOT=${NQ_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
# What nqcount needs to build and run: all that scripts/nqcount installs.
NQ_PACKAGES=(cmake g++ make pkg-config libtbb-dev libhwloc-dev libcli11-dev nlohmann-json3-dev)
# What the measuring scripts add (their JSON fields, arithmetic, timings, plots, topologies).
NQ_SCRIPT_PACKAGES=(jq bc time gnuplot-nox hwloc)
# What the tests add: GoogleTest, Google Benchmark, Open MPI for nqcount-mpi, the scripts'
# packages; clang, its runtime and lld for the sanitizer and libFuzzer stages (the Release build
# uses g++), and llvm for llvm-symbolizer (without it the sanitizers' reports name no functions,
# and the leak suppressions, which match a function's name, match nothing); clang-format and
# python3 for the first stage's checks; man-db and groff-base to render the generated man pages.
NQ_TEST_PACKAGES=(libgtest-dev libbenchmark-dev libopenmpi-dev openmpi-bin "${NQ_SCRIPT_PACKAGES[@]}"
                  clang libclang-rt-14-dev lld llvm clang-format python3 man-db groff-base
                  slurm-wlm munge)

# One field of the JSON object on stdin, printed raw (a number as it is, a string unquoted,
# nothing when the field is absent): nq_field seconds <result.json
nq_field() { jq -r --arg key "$1" '.[$key] // empty'; }

# The CPU the figures come from, as one line: its model name, family and model (the same VM can
# be handed out on different CPU generations, whose figures do not compare), the CPU count and the
# L1 data and L2 caches a core (glibc's getconf, which reads CPUID where sysfs lists no caches).
nq_machine() {
  local cpu l1 l2
  cpu=$(awk -F': ' '/^model name/ && !m {m = $2} /^cpu family/ && !f {f = $2}
                    /^model\t/ && !o {o = $2} END {print (m ? m : "unknown CPU") \
                    (f != "" ? ", family " f : "") (o != "" ? ", model " o : "")}' /proc/cpuinfo)
  l1=$(getconf LEVEL1_DCACHE_SIZE 2>/dev/null || true)
  l2=$(getconf LEVEL2_CACHE_SIZE 2>/dev/null || true)
  [[ "$l1" =~ ^[1-9][0-9]*$ ]] || l1=  # 0 or nothing: not known here
  [[ "$l2" =~ ^[1-9][0-9]*$ ]] || l2=
  echo "$cpu; $(nproc) CPUs${l1:+, L1d $((l1 / 1024)) KB}${l2:+, L2 $((l2 / 1024)) KB}"
}

nq_missing_packages() {
  local missing=() p
  for p in "${NQ_PACKAGES[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  echo "${missing[@]}"
}

# Installs the missing Debian packages when root; otherwise prints the command and fails.
# apt-get's and dpkg's own lines (hundreds on a fresh machine) go to a log, shown in part and
# kept only when the install fails.
nq_ensure_packages() {
  local missing log
  missing=$(nq_missing_packages "$@")
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" -eq 0 ]; then
    echo "nqcount: installing: $missing" >&2
    export DEBIAN_FRONTEND=noninteractive
    log=$(mktemp "${TMPDIR:-/tmp}/nqcount-apt.XXXXXX")
    if apt-get update -qq >"$log" 2>&1 &&
      apt-get install -y -qq --no-install-recommends $missing >>"$log" 2>&1; then
      rm -f "$log"
    else
      tail -n 30 "$log" >&2
      echo "nqcount: error: apt-get install failed (its output: $log)" >&2
      return 1
    fi
  else
    echo "nqcount: error: missing packages; run: sudo apt-get install -y --no-install-recommends $missing" >&2
    return 1
  fi
}

# nq_build DIR [TARGET...]: configures DIR (once; again when NQ_RECONFIGURE=1, so that packages
# installed since are found) and builds the TARGETs in it, or everything.
# Programs link with lld where it is installed (faster than GNU ld).
nq_build() {
  local dir=$1 lld=() targets=()
  shift
  [ $# -gt 0 ] && targets=(--target "$@")
  command -v ld.lld >/dev/null && lld=(-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld)
  if [ ! -f "$dir/CMakeCache.txt" ] || [ "${NQ_RECONFIGURE:-0}" = 1 ]; then
    cmake -S "$NQ_ROOT" -B "$dir" -DCMAKE_BUILD_TYPE=Release "${lld[@]}" >&2 || return 1
  fi
  cmake --build "$dir" -j "$(nproc)" "${targets[@]}" >&2 || return 1
}

# nq_clang_tree DIR: removes the build tree DIR if an older script configured it with another
# compiler than clang (the sanitizer builds use clang's sanitizers), so that it is made anew.
nq_clang_tree() {
  if [ -f "$1/CMakeCache.txt" ] && ! grep -q '^CMAKE_CXX_COMPILER:.*clang' "$1/CMakeCache.txt"; then
    echo "nqcount: $1 was configured for another compiler: made anew with clang" >&2
    rm -rf "$1"
  fi
}

# nq_address_tree: configures (once) build-asan/, the address build: AddressSanitizer and UBSan
# (-DNQ_SANITIZE=ON), the fuzz targets beside the tests (-DNQ_FUZZ=ON), clang, and lld where it is
# installed (faster than GNU ld). A tree that an older script
# configured with another compiler is made anew; one without the fuzz targets gets them.
nq_address_tree() {
  local dir=$NQ_ROOT/build-asan lld=()
  command -v ld.lld >/dev/null && lld=(-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld)
  nq_clang_tree "$dir"
  if [ ! -f "$dir/CMakeCache.txt" ] || ! grep -q '^NQ_FUZZ:BOOL=ON' "$dir/CMakeCache.txt"; then
    CXX=clang++ cmake -S "$NQ_ROOT" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DNQ_SANITIZE=ON \
      -DNQ_FUZZ=ON -DNQ_BUILD_PERF=OFF "${lld[@]}" >&2 || return 1
  fi
}

# nq_nqcount: points NQCOUNT at the nqcount binary a script runs: the one NQCOUNT already names,
# else build/cli/nqcount, built first (installing what it and the scripts need).
nq_nqcount() {
  [ -n "${NQCOUNT:-}" ] && return 0
  nq_ensure_packages "${NQ_SCRIPT_PACKAGES[@]}" || return 1
  nq_build "$NQ_ROOT/build" nqcount >/dev/null || return 1
  NQCOUNT=$NQ_ROOT/build/cli/nqcount
}

# nq_publish TMP DEST: puts the finished file TMP at DEST by the rule every nqcount output
# follows: a regular file or a new path is replaced atomically (rename); a character device,
# FIFO or socket is written straight through and never replaced; a symbolic link leads to its
# target (the link stays); a link to nothing or a directory is refused.
nq_publish() {
  local tmp=$1 dest=$2
  if [ -L "$dest" ]; then
    [ -e "$dest" ] || { rm -f "$tmp"; echo "nqcount: error: '$dest' is a symbolic link to nothing" >&2; return 2; }
    dest=$(readlink -f "$dest")
  fi
  if [ -c "$dest" ] || [ -p "$dest" ] || [ -S "$dest" ]; then
    cat "$tmp" >"$dest" || { rm -f "$tmp"; echo "nqcount: error: cannot write '$dest'" >&2; return 2; }
    rm -f "$tmp"
  elif [ -d "$dest" ]; then
    rm -f "$tmp"; echo "nqcount: error: '$dest' is a directory" >&2; return 2
  else
    mv -f "$tmp" "$dest"
  fi
}
