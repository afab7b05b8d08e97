#include "base/cancel.h"

namespace hs {

namespace {

thread_local const CancelScope* t_innermost = nullptr;

}  // namespace

CancelScope::CancelScope(const std::atomic<bool>* flag) : m_flag(flag), m_outer(t_innermost) {
    t_innermost = this;
}

CancelScope::~CancelScope() {
    t_innermost = m_outer;
}

bool cancelRequested() {
    for (const CancelScope* s = t_innermost; s; s = s->m_outer)
        if (s->m_flag && s->m_flag->load(std::memory_order_relaxed)) return true;
    return false;
}

void throwIfCancelled() {
    if (t_innermost && cancelRequested()) throw Cancelled();
}

}  // namespace hs
