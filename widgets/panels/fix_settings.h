#pragma once
// What the fix panel asks of a precision search (pipeline/precision_search.h): the studio adds
// the GPU the remedies' costs speak for (SearchSettings in app/gui/run_meta.h).
#include <QMetaType>
#include <vector>

#include "diagnosis/remedies.h"

struct FixSettings {
    hs::Format safeFormat = hs::Format::BF16;
    int trialSteps = 8;  // sampling steps per trial run
    int maxIterations = 24;
    double tolerance = 0.05;  // mean |pixel difference| to the reference, levels in [0, 1]
    // Remedies to try and rank; empty: the bisection alone. The panel checks every kind.
    std::vector<hs::RemedyKind> remedies;
};
Q_DECLARE_METATYPE(FixSettings)
