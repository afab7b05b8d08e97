#pragma once
// The value structs that cross from the worker thread to the GUI thread in queued signals.
// Plain records only (no tensors): see core/records/run_types.h.
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <vector>

#include "fix_settings.h"
#include "pipeline/precision_search.h"
#include "records/run_types.h"

// What the worker loaded: shown by the model and precision panels.
struct LoadedModel {
    QString dir;            // the pipeline folder or the model file
    hs::ModelFiles files;   // the files that complete a model file (a file set); empty for a folder
    QStringList detected;   // what was found in each single file, one line each
    QString pipelineClass;  // "FluxPipeline", "StableDiffusionXLPipeline", ...
    QString memoryPlan;     // how the weights are held (whole, or streamed block by block)
    QString effectivePlan;
    std::vector<hs::ComponentInfo> components;
    int sizeMultiple = 16;  // width and height must be multiples of this
    int latentChannels = 4;
    bool isDemo = false;
    // What the model is meant to run with (the strategy's defaults): FLUX.1-dev 28 steps and
    // guidance 3.5, schnell 4 and 0. `negativePrompt` false: the model takes none (FLUX.1).
    int defaultSteps = 20;
    double defaultGuidance = 4.0;
    bool negativePrompt = true;
    int defaultWidth = 0, defaultHeight = 0;  // 0: keep the panel's size
    // Samplers a run may pick (RunConfig::scheduler ids and their labels); empty: the model's
    // own scheduler only.
    QStringList samplerIds, samplerLabels;
    bool comfySamplers = false;  // runs take ComfyUI's samplers by name (RunConfig::comfySampler)
    QStringList vocabulary;      // the only words the model understands (the demo's); empty: any
    // Empty for a fresh load; after a plan change on the loaded model, the components whose
    // weights it converted again (the others were kept as they were).
    bool planChange = false;
    QStringList reloaded;
};

// Settings of a "find minimal fix" search (see pipeline/precision_search.h): the fix panel's,
// and the GPU the remedies' costs speak for.
struct SearchSettings : FixSettings {
    hs::DeviceInfo target = hs::DeviceInfo::cpu();
};

// One unit of work for the worker, tagged so the controller can route its events: a run (a
// single one, or run `compareIndex` of a comparison) or a precision search.
struct RunJob {
    enum class Kind { Run, Search };
    Kind kind = Kind::Run;
    int id = 0;
    int compareIndex = -1;  // -1: a single run
    hs::RunConfig config;   // a search: config.plan is the failing plan
    SearchSettings search;
};

Q_DECLARE_METATYPE(LoadedModel)
Q_DECLARE_METATYPE(RunJob)
Q_DECLARE_METATYPE(hs::RunConfig)
Q_DECLARE_METATYPE(hs::ModelFiles)
Q_DECLARE_METATYPE(hs::StepRecord)
Q_DECLARE_METATYPE(std::vector<hs::ProbeRecord>)
Q_DECLARE_METATYPE(hs::PreviewImage)
Q_DECLARE_METATYPE(hs::FirstNonFinite)
Q_DECLARE_METATYPE(hs::RunRecord)
Q_DECLARE_METATYPE(hs::PrecisionPlan)
Q_DECLARE_METATYPE(hs::BisectionTrial)
Q_DECLARE_METATYPE(hs::PrecisionSearch)
Q_DECLARE_METATYPE(hs::RemedyRow)

// Registers the types above for queued connections; call once before connecting.
void registerRunMetaTypes();
