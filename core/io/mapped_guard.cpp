// The SIGBUS guard of mapped files (see mapped_guard.h). The table is a fixed array of atomics
// because the handler may run on any thread at any moment: it takes no lock and allocates
// nothing; it calls only mmap (a plain system call) and atomics.
//
// Windows: no handler. Windows refuses to truncate a file while a view of it is mapped
// (ERROR_USER_MAPPED_FILE), so a registered mapping cannot lose its pages; the table still
// names the file a tensor's pages belong to, and mappingDamage still compares the size.
#include "io/mapped_guard.h"

#ifndef _WIN32
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

#include <atomic>
#include <cerrno>
#include <mutex>

#include "io/platform_file.h"

namespace hs {

namespace {

struct Slot {
    std::atomic<bool> used{false};
    std::atomic<uintptr_t> base{0};  // 0 while the slot is being filled or emptied
    std::atomic<size_t> len{0};
    std::atomic<bool> faulted{false};
    std::atomic<intptr_t> fd{platform::kNoFile};
    std::atomic<const char*> path{nullptr};
    // The file as it was when mapped: a file rewritten in place (cp, rsync --inplace) keeps its
    // size and inode, so the mapping would mix two models' bytes without these.
    std::atomic<uint64_t> device{0}, inode{0};
    std::atomic<int64_t> mtimeNs{0}, ctimeNs{0};
    std::atomic<bool> identityKnown{false};
};

// Shards of the largest checkpoints number in the tens; a table this size is 160 KB.
constexpr int kSlots = 4096;
Slot g_slots[kSlots];

#ifndef _WIN32
struct sigaction g_previous {};

void onSigbus(int sig, siginfo_t* info, void* context) {
    const int savedErrno = errno;
    const auto addr = reinterpret_cast<uintptr_t>(info->si_addr);
    const auto page = uintptr_t(::sysconf(_SC_PAGESIZE));
    for (auto& s : g_slots) {
        const uintptr_t base = s.base.load(std::memory_order_acquire);
        const size_t len = s.len.load(std::memory_order_relaxed);
        if (base == 0 || addr < base || addr >= base + len) continue;
        // Everything from the faulting page on is past the file's end: one zero mapping for the
        // rest, so a read of a large truncated tensor faults once, not once per page.
        const uintptr_t from = addr & ~(page - 1);
        const uintptr_t to = (base + len + page - 1) & ~(page - 1);
        void* z = ::mmap(reinterpret_cast<void*>(from), to - from, PROT_READ,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        if (z != MAP_FAILED) {
            s.faulted.store(true, std::memory_order_release);
            errno = savedErrno;
            return;  // the faulting read runs again and sees zeros
        }
        break;
    }
    // Not a guarded mapping: whoever handled SIGBUS before, else the default action (the
    // faulting instruction runs again and the signal kills the process as it would have).
    if ((g_previous.sa_flags & SA_SIGINFO) && g_previous.sa_sigaction) {
        g_previous.sa_sigaction(sig, info, context);
    } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN &&
               g_previous.sa_handler) {
        g_previous.sa_handler(sig);
    } else {
        ::signal(SIGBUS, SIG_DFL);
    }
    errno = savedErrno;
}

void installHandler() {
    static std::once_flag once;
    std::call_once(once, [] {
        struct sigaction sa {};
        sa.sa_sigaction = onSigbus;
        sa.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        ::sigaction(SIGBUS, &sa, &g_previous);
    });
}
#else
void installHandler() {}
#endif

}  // namespace

int registerMapping(const void* base, size_t len, intptr_t fd, const char* path) {
    installHandler();
    for (int i = 0; i < kSlots; ++i) {
        bool expected = false;
        if (!g_slots[i].used.compare_exchange_strong(expected, true)) continue;
        Slot& s = g_slots[i];
        s.len.store(len);
        s.fd.store(fd);
        s.path.store(path);
        platform::FileStatus st;
        std::string error;
        const bool known = fd != platform::kNoFile && platform::fileStatus(fd, st, error);
        s.device.store(st.device);
        s.inode.store(st.inode);
        s.mtimeNs.store(st.mtimeNs);
        s.ctimeNs.store(st.ctimeNs);
        s.identityKnown.store(known);
        s.faulted.store(false);
        s.base.store(reinterpret_cast<uintptr_t>(base), std::memory_order_release);
        return i;
    }
    return -1;
}

void unregisterMapping(int slot) {
    if (slot < 0 || slot >= kSlots) return;
    Slot& s = g_slots[slot];
    s.base.store(0, std::memory_order_release);
    s.len.store(0);
    s.fd.store(platform::kNoFile);
    s.path.store(nullptr);
    s.used.store(false, std::memory_order_release);
}

std::string mappingDamage(int slot) {
    if (slot < 0 || slot >= kSlots) return {};
    const Slot& s = g_slots[slot];
    const uint64_t was = s.len.load();
    platform::FileStatus st;
    std::string error;
    const intptr_t fd = s.fd.load();
    const bool statOk = fd != platform::kNoFile && platform::fileStatus(fd, st, error);
    if (statOk && st.size < was)
        return "file shrank to " + std::to_string(st.size) + " bytes after it was opened (was " +
               std::to_string(was) + ")";
    if (s.faulted.load(std::memory_order_acquire))
        return "file shrank after it was opened (was " + std::to_string(was) +
               " bytes): a read ran past its end";
    if (statOk && s.identityKnown.load() &&
        (st.size != was || st.device != s.device.load() || st.inode != s.inode.load() ||
         st.mtimeNs != s.mtimeNs.load() || st.ctimeNs != s.ctimeNs.load()))
        return "file changed after it was opened (rewritten in place, as cp or rsync --inplace "
               "do): its weights may no longer be the ones loaded; stop and open it again";
    return {};
}

int mappingOf(const void* p) {
    const auto a = reinterpret_cast<uintptr_t>(p);
    for (int i = 0; i < kSlots; ++i) {
        const uintptr_t base = g_slots[i].base.load(std::memory_order_acquire);
        if (base != 0 && a >= base && a < base + g_slots[i].len.load()) return i;
    }
    return -1;
}

std::string mappingPath(int slot) {
    if (slot < 0 || slot >= kSlots) return {};
    const char* p = g_slots[slot].path.load();
    return p ? p : "";
}

}  // namespace hs
