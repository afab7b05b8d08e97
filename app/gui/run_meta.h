#pragma once
// The value structs that cross from the worker thread to the GUI thread in queued signals.
// Plain records only (no tensors): see core/pipeline/run_types.h.
#include <QMetaType>
#include <QString>
#include <vector>

#include "pipeline/run_types.h"

// What the worker loaded: shown by the model and precision panels.
struct LoadedModel {
    QString dir;
    QString effectivePlan;
    std::vector<hs::ComponentInfo> components;
    int sizeMultiple = 16;   // width and height must be multiples of this
    int latentChannels = 4;
    bool isDemo = false;
};

// One unit of work for the worker: a run, tagged so the controller can route its events
// (a single run, or run `index` of a comparison).
struct RunJob {
    int id = 0;
    int compareIndex = -1;  // -1: a single run
    hs::RunConfig config;
};

Q_DECLARE_METATYPE(LoadedModel)
Q_DECLARE_METATYPE(RunJob)
Q_DECLARE_METATYPE(hs::RunConfig)
Q_DECLARE_METATYPE(hs::StepRecord)
Q_DECLARE_METATYPE(std::vector<hs::ProbeRecord>)
Q_DECLARE_METATYPE(hs::PreviewImage)
Q_DECLARE_METATYPE(hs::FirstNonFinite)
Q_DECLARE_METATYPE(hs::RunRecord)
Q_DECLARE_METATYPE(hs::PrecisionPlan)

// Registers the types above for queued connections; call once before connecting.
void registerRunMetaTypes();
