#pragma once
// Cancellation inside a run, a load or a search: a thread installs the flags it obeys with a
// CancelScope, and the engine's inner loops (every probe point a forward passes through, every
// weight tensor converted at load) call throwIfCancelled(). A set flag thus stops the work
// within one block's time, in every model family, without a flag passed through each forward.
// The thrown Cancelled is caught where the work began: Pipeline::run returns its record so far
// with `cancelled` set, a load reports "cancelled", the precision search stops its trials.
// No LibTorch, no Qt. Each thread has its own scopes: runs on other threads are not affected.
#include <atomic>
#include <stdexcept>

namespace hs {

class Cancelled : public std::runtime_error {
public:
    Cancelled() : std::runtime_error("cancelled") {}
};

// While alive, `flag` (may be null) cancels the work of the thread that made the scope. Scopes
// nest: the work stops when any flag of any live scope on the thread is set.
class CancelScope {
public:
    explicit CancelScope(const std::atomic<bool>* flag);
    ~CancelScope();
    CancelScope(const CancelScope&) = delete;
    CancelScope& operator=(const CancelScope&) = delete;

private:
    const std::atomic<bool>* m_flag;
    const CancelScope* m_outer;
    friend bool cancelRequested();
};

// A flag of this thread's scopes is set.
bool cancelRequested();
// Throws Cancelled when cancelRequested().
void throwIfCancelled();

}  // namespace hs
