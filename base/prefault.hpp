// Fresh memory faulted in with one system call instead of one page fault per 4 KiB page.
//
// Where page faults are slow (about 10 us a first touch, and two threads' faults do not overlap),
// the plan of an n = 16 count (8973 subproblems, 1.3 MB) costs milliseconds of purely serial
// faults, a few percent of a short run. MADV_POPULATE_WRITE (Linux 5.14) maps the whole range at
// once, a tenth of that, and the writes that follow no longer fault.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace nq {

// A hint: where the kernel lacks MADV_POPULATE_WRITE, or the range is smaller than a page,
// nothing happens and the pages fault in on first use as usual.
inline void prefault_for_writing(const void* data, std::size_t bytes) {
#ifdef MADV_POPULATE_WRITE
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = (reinterpret_cast<std::uintptr_t>(data) + page - 1) / page * page;
  const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes) / page * page;
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
#else
  (void)data;
  (void)bytes;
#endif
}

// Reserves room for `count` elements and faults it in at once: the elements that resize,
// assign or push_back then write land on mapped pages. For the per-task arrays a count builds
// before it starts (costs, order, the threads' ranges: 48,620 tasks at n = 17, about 700 fresh
// pages). Under a hypervisor a first write to a populated page costs about half of one to a page
// not yet populated (whose fault most likely fills the hypervisor's page tables too): the setup
// of a count before any counting is that much shorter (perf/results/log.md has the figures).
template <class T>
void reserve_prefaulted(std::vector<T>& v, std::size_t count) {
  v.reserve(count);
  prefault_for_writing(v.data() + v.size(), (v.capacity() - v.size()) * sizeof(T));
}

}  // namespace nq
