#pragma once
// Progress of loading a model's weights, per component and per shard file: a thread installs a
// LoadProgressScope with its callback, and loadComponent (models/registry.h) reports to it as
// each weight tensor is converted (models/common/weights.h convertWeight). Built like
// base/cancel.h: thread-local, no globals shared between runs, no Qt, no LibTorch, so the
// CLI, the studio's worker and the tests read the same numbers. Cancellation is checked per
// tensor by convertWeight, so a load of a multi-gigabyte file stops within one tensor's copy.
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

namespace hs {

struct LoadProgress {
    std::string component;  // the pipeline slot being loaded: "transformer", "vae"
    std::string file;       // the shard being read ("" when the weights are not a mapped file)
    int fileIndex = 0;      // 1-based index of `file` among `fileCount` shards (0: unknown)
    int fileCount = 0;
    uint64_t bytesDone = 0;   // stored bytes converted so far
    uint64_t bytesTotal = 0;  // stored bytes this component converts now
    double elapsedSeconds = 0;
    double secondsLeft = -1;  // from the rate so far; -1 before any byte is read
    bool done = false;        // the component's last report
};

using LoadProgressFn = std::function<void(const LoadProgress&)>;

// While alive, loads on this thread report to `fn` at their start, at most every
// `intervalSeconds` while tensors are converted, and when a component is done. The callback runs
// on the loading thread: keep it short (copy the struct, post it on). Scopes nest; the innermost
// one receives the reports.
class LoadProgressScope {
public:
    explicit LoadProgressScope(LoadProgressFn fn, double intervalSeconds = 0.1);
    ~LoadProgressScope();
    LoadProgressScope(const LoadProgressScope&) = delete;
    LoadProgressScope& operator=(const LoadProgressScope&) = delete;

private:
    LoadProgressFn m_fn;
    double m_interval;
    const LoadProgressScope* m_outer;
    friend class ComponentLoadReport;
};

// One component's load, made by loadComponent: the bytes it will convert and the shard files
// they lie in. Does nothing when no LoadProgressScope is alive on the thread.
class ComponentLoadReport {
public:
    // `files`: the shard paths in order; `fileOf(ptr)` is looked up in them by address range.
    ComponentLoadReport(std::string component, std::vector<std::string> files);
    ~ComponentLoadReport();
    ComponentLoadReport(const ComponentLoadReport&) = delete;
    ComponentLoadReport& operator=(const ComponentLoadReport&) = delete;

    // The total is known once the model is built (what it takes from the checkpoint); reports
    // the start (0 bytes).
    void start(uint64_t bytesTotal);
    // The address ranges [begin, end) of file `index` (0-based) mapped in memory.
    void addRange(uintptr_t begin, uintptr_t end, int index);
    // `bytes` stored at `data` were converted (convertWeight calls it through noteWeightRead).
    void add(const void* data, uint64_t bytes);
    // The last report (done = true), after every tensor is converted.
    void finish();

private:
    void publish(bool force);  // not "emit": Qt defines that as a macro
    const LoadProgressScope* m_scope;
    const ComponentLoadReport* m_outer;
    std::vector<std::tuple<uintptr_t, uintptr_t, int>> m_ranges;
    std::vector<std::string> m_files;
    LoadProgress m_p;
    std::chrono::steady_clock::time_point m_begin, m_last;
};

// Called by convertWeight for every stored tensor it converts: counts its bytes in the
// innermost live ComponentLoadReport of the thread, if any (a streamed run's block conversions
// outside a load count nowhere).
void noteWeightRead(const void* data, uint64_t bytes);

// The files mapped into this process read-only, with their address ranges [begin, end), read
// from /proc/self/maps (empty where there is none): how a load tells which shard a view lies in.
struct MappedFileRange {
    uintptr_t begin = 0, end = 0;
    std::string path;
};
std::vector<MappedFileRange> mappedFileRanges();

// True when a LoadProgressScope is alive on this thread (loadComponent then works out the
// shard files; without one it skips that work).
bool loadProgressWanted();

// "transformer: shard 1/2, 1.2/4.0 GB, 3 s left" (the CLI's line, and the studio's status).
std::string loadProgressText(const LoadProgress& p);

}  // namespace hs
