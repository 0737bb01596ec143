// Preloaded (LD_PRELOAD) by scripts/test into the address build's tests and every process they
// start: in a program built with LeakSanitizer that checks for leaks at its exit, maps the
// program's .data and .bss at its start in one call (MADV_POPULATE_READ), instead of a page
// fault a page during the check. The check reads all of them, 13 MB with the sanitizer's own
// tables, most never touched before; where a page fault is dear (a virtual machine's, 7 to 12 us)
// those faults were a fifth of a short run's time, and the suite starts such runs thousands of
// times. Nothing else changes: the pages read as zeros until written, as they did. Any other
// process, or a run with detect_leaks=0, it leaves alone. Built without the sanitizers.
#include <dlfcn.h>
#include <link.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {

#ifndef MADV_POPULATE_READ
// Linux 5.14; an older kernel refuses it, and nothing is lost.
constexpr int MADV_POPULATE_READ = 22;
#endif

constexpr std::uintptr_t kPage = 4096;

// Whether the last detect_leaks in ASAN_OPTIONS turns the check off.
bool leaks_unchecked() {
  const char* options = std::getenv("ASAN_OPTIONS");
  const char* last = nullptr;
  for (const char* at = options; at && (at = std::strstr(at, "detect_leaks=")); ++at) last = at;
  return last && last[std::strlen("detect_leaks=")] == '0';
}

// The program is the first object listed: its writable loaded segments.
int populate_program(dl_phdr_info* info, std::size_t, void*) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    if (segment.p_type != PT_LOAD || !(segment.p_flags & PF_W)) continue;
    const std::uintptr_t begin = (info->dlpi_addr + segment.p_vaddr) & ~(kPage - 1);
    const std::uintptr_t end =
        (info->dlpi_addr + segment.p_vaddr + segment.p_memsz + kPage - 1) & ~(kPage - 1);
    ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_READ);
  }
  return 1;
}

__attribute__((constructor)) void prefault_for_the_leak_check() {
  if (!::dlsym(RTLD_DEFAULT, "__lsan_do_leak_check") || leaks_unchecked()) return;
  ::dl_iterate_phdr(populate_program, nullptr);
}

}  // namespace
