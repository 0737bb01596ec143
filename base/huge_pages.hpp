// Memory for arrays of hundreds of megabytes: the solver's permutation and diagonal bitsets.
//
// Two things matter at n = 10^8..10^9 (the QS4 start-up and the verifier are bound by memory
// latency, and a TLB miss costs as much as a cache miss): large blocks are 2 MiB aligned and
// advised with madvise(MADV_HUGEPAGE), so that transparent huge pages back them even where the
// system setting is `madvise`; and elements are default-initialized, not zeroed, because every
// element is written before it is read (a zeroing pass over 4 GB costs about a second).
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <utility>
#include <vector>

namespace nq {

template <class T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;
  static constexpr std::size_t kAdviseFrom = std::size_t{4} << 20;  // smaller: plain malloc

  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) {}  // NOLINT: rebinding is implicit

  T* allocate(std::size_t count) {
    const std::size_t bytes = count * sizeof(T);
    void* p = nullptr;
    if (bytes >= kAdviseFrom) {
      const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
      p = std::aligned_alloc(kHugePage, rounded);
      if (p) madvise(p, rounded, MADV_HUGEPAGE);  // a hint: failure only costs speed
    } else {
      p = std::malloc(bytes == 0 ? 1 : bytes);
    }
    if (!p) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t) { std::free(p); }

  // Default-initialize (no zeroing) when no value is given: vector::resize(n) leaves the
  // contents unspecified; callers that need zeros say assign(n, 0).
  template <class U>
  void construct(U* p) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }

  template <class U>
  bool operator==(const HugePageAllocator<U>&) const {
    return true;
  }
};

// Zero-filled memory straight from mmap, for bitsets that start empty: fresh anonymous pages
// are zero, so nothing is written before use, and each page is zeroed (by the kernel, at first
// touch) by the thread that first uses it. assign(words, 0) on a vector faults in and writes
// every page serially before the start-up begins (0.7 s of CPU for the 500 MB of diagonal bits
// at n = 10^9, in a loaded run). 2 MiB aligned and advised for huge pages like
// HugePageAllocator; unmapped (returned to the system) when destroyed. Below 4 MB: calloc.
class ZeroedWords {
 public:
  explicit ZeroedWords(std::size_t words) : words_(words) {
    constexpr std::size_t kHugePage = std::size_t{2} << 20;
    const std::size_t bytes = (words == 0 ? 1 : words) * sizeof(std::uint64_t);
    if (bytes < HugePageAllocator<std::uint64_t>::kAdviseFrom) {
      // Small boards (and the many restarts at small n): the heap, not a mapping per attempt.
      data_ = static_cast<std::uint64_t*>(std::calloc(bytes, 1));
      if (!data_) throw std::bad_alloc();
      return;
    }
    const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    mapped_bytes_ = rounded + kHugePage;  // room to align the start to a huge page
    void* p =
        mmap(nullptr, mapped_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    mapped_ = static_cast<char*>(p);
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    data_ = reinterpret_cast<std::uint64_t*>((at + kHugePage - 1) / kHugePage * kHugePage);
    madvise(data_, rounded, MADV_HUGEPAGE);  // a hint: failure only costs speed
  }
  ~ZeroedWords() {
    if (mapped_)
      munmap(mapped_, mapped_bytes_);
    else
      std::free(data_);
  }
  ZeroedWords(const ZeroedWords&) = delete;
  ZeroedWords& operator=(const ZeroedWords&) = delete;

  std::uint64_t* data() { return data_; }
  const std::uint64_t* data() const { return data_; }
  std::uint64_t& operator[](std::size_t k) { return data_[k]; }
  std::uint64_t operator[](std::size_t k) const { return data_[k]; }
  std::size_t size() const { return words_; }

 private:
  std::size_t words_;
  std::size_t mapped_bytes_ = 0;
  char* mapped_ = nullptr;
  std::uint64_t* data_ = nullptr;
};

// A solution: 0-based rows, permutation[i] is the row of the queen in column i.
using Permutation = std::vector<std::uint32_t, HugePageAllocator<std::uint32_t>>;
// Bit per diagonal (or per row); always assign(words, 0) before use.
using BitWords = std::vector<std::uint64_t, HugePageAllocator<std::uint64_t>>;

}  // namespace nq
