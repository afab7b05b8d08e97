#include "run_worker.h"

#include <QElapsedTimer>
#include <new>

#include "engine_text.h"
#include "file_set.h"

// LibTorch through its wrapper first, before any engine header includes it with Qt's `slots`
// macro defined (see torch_include.h).
// clang-format off
#include "torch_include.h"
#include "numerics/cpu_bf16.h"
#include "base/cancel.h"
#include "base/load_progress.h"
#include "pipeline/pipeline.h"
#include "base/work_progress.h"
#include "runtime/demo_location.h"
// clang-format on

namespace {

// Turns the engine's exceptions into one plain sentence for the log and the panels.
QString plainError(const std::exception& e) {
    QString text = QString::fromStdString(e.what());
    // c10::Error appends a C++ backtrace after the first line: users need the first line only.
    const int nl = text.indexOf('\n');
    if (nl > 0) text = text.left(nl);
    if (text.contains("can't allocate memory") || dynamic_cast<const std::bad_alloc*>(&e))
        return RunWorker::tr(
                   "Not enough memory for this model and precision plan (%1). "
                   "Try a smaller size, or bf16/fp16 for the largest component.")
            .arg(text);
    return text;
}

// Forwards a run's progress as queued signals. Runs on the worker thread.
class SignalObserver : public hs::RunObserver {
public:
    SignalObserver(RunWorker* w, int jobId) : m_worker(w), m_job(jobId) {}
    void onStage(const std::string& s) override {
        emit m_worker->stage(m_job, QString::fromStdString(s));
    }
    void onStep(const hs::StepRecord& s, const std::vector<hs::ProbeRecord>& p) override {
        emit m_worker->stepDone(m_job, s, p);
    }
    void onPreview(const hs::PreviewImage& p) override { emit m_worker->preview(m_job, p); }
    void onFirstNonFinite(const hs::FirstNonFinite& f) override {
        emit m_worker->firstNonFinite(m_job, f);
    }

private:
    RunWorker* m_worker;
    int m_job;
};

}  // namespace

RunWorker::RunWorker(std::shared_ptr<const WorkerFlags> flags, QObject* parent)
    : RunEvents(parent), m_flags(std::move(flags)) {}

RunWorker::~RunWorker() = default;

void RunWorker::load(const QString& model, const hs::ModelFiles& files,
                     const hs::PrecisionPlan& plan, const QString& device, int loadId,
                     std::shared_ptr<const std::atomic<bool>> stop) {
    const hs::CancelScope closing(&m_flags->closing);
    const hs::CancelScope stopped(stop.get());
    emit loadTried(model, files);
    hs::RunConfig cfg;
    cfg.modelDir = model.toStdString();
    cfg.modelFiles = files;
    cfg.plan = plan;
    cfg.device = device.toStdString();
    QString error;
    if (!ensureLoaded(cfg, error)) {
        if (stop && stop->load())
            emit loadStopped(model);
        else
            emit loadFailed(error);
    }
    emit loadEnded(loadId);
}

void RunWorker::loadFiles(const QStringList& files, const hs::PrecisionPlan& plan,
                          const QString& device, int loadId,
                          std::shared_ptr<const std::atomic<bool>> stop) {
    const FileSet set = sortModelFiles(files);
    if (!set.ok()) {
        emit loadFailed(set.error);
        emit loadEnded(loadId);
        return;
    }
    load(set.model, set.with, plan, device, loadId, std::move(stop));
}

void RunWorker::reportWork(int jobId, const hs::WorkProgress& p) {
    using hs::WorkKind;
    switch (p.kind) {
        case WorkKind::TextEncoding:
            emit stage(jobId, p.done ? tr("prompt encoded in %1 s").arg(p.elapsedSeconds, 0, 'f', 1)
                                     : tr("encoding the prompt"));
            break;
        case WorkKind::VaeDecoding:
            emit stage(jobId, p.done ? tr("image decoded in %1 s").arg(p.elapsedSeconds, 0, 'f', 1)
                                     : tr("decoding the image with the VAE"));
            break;
        case WorkKind::Block:
            emit stage(jobId, tr("%1: block %2/%3 resident (%4)")
                                  .arg(QString::fromStdString(p.component))
                                  .arg(p.index)
                                  .arg(p.count)
                                  .arg(QString::fromStdString(p.what)));
            break;
        case WorkKind::Trial:
            if (!p.done)
                emit stage(jobId, tr("Find minimal fix: trial %1 of at most %2 (%3)")
                                      .arg(p.index)
                                      .arg(p.count)
                                      .arg(QString::fromStdString(p.what)));
            break;
        case WorkKind::Estimate:
            emit estimate(jobId, p.estimateSeconds, p.estimateBytes, p.weightBytes,
                          p.activationBytes);
            break;
        case WorkKind::Finished:
            emit estimateChecked(jobId, p.estimateSeconds, p.actualSeconds);
            break;
    }
}

bool RunWorker::ensureLoaded(const hs::RunConfig& cfg, QString& error, int jobId) {
    const QString dir = QString::fromStdString(cfg.modelDir);
    const QString device = QString::fromStdString(cfg.device);
    const QString plan = QString::fromStdString(cfg.plan.toString());
    const hs::Execution cpuBf16 = hs::cpuBf16Execution();
    const bool sameModel = m_pipeline && dir == m_dir && cfg.modelFiles == m_files &&
                           device == m_device && cpuBf16 == m_cpuBf16;
    if (sameModel && plan == m_planText) return true;
    LoadedModel m;
    // Per component and shard, bytes and time left; Stop cancels it within one tensor.
    const hs::LoadProgressScope progress(
        [this, jobId](const hs::LoadProgress& p) {
            emit stage(jobId,
                       tr("Loading %1").arg(QString::fromStdString(hs::loadProgressText(p))));
        },
        0.25);
    try {
        if (sameModel) {
            // Only the components whose weights the new plan stores otherwise are read again.
            m.planChange = true;
            for (const auto& name : m_pipeline->setPlan(cfg.plan))
                m.reloaded << QString::fromStdString(name);
        } else {
            m_pipeline.reset();  // free the old weights before loading the new ones
            m_pipeline = hs::Pipeline::load(cfg.modelDir, cfg.modelFiles, cfg.plan,
                                            torch::Device(cfg.device));
        }
    } catch (const std::exception& e) {
        m_pipeline.reset();  // a failed reload may leave a component half converted
        m_dir.clear();
        m_files = {};
        error = dynamic_cast<const hs::Cancelled*>(&e)
                    ? tr("Loading %1 was cancelled").arg(dir)
                    : tr("Could not load %1: %2").arg(dir, plainError(e));
        return false;
    }
    m_dir = dir;
    m_files = cfg.modelFiles;
    m_device = device;
    m_planText = plan;
    m_cpuBf16 = cpuBf16;
    m.dir = dir;
    m.files = cfg.modelFiles;
    for (const auto& line : m_pipeline->detected()) m.detected << QString::fromStdString(line);
    m.pipelineClass = QString::fromStdString(m_pipeline->pipelineClass());
    m.memoryPlan = engine_text::text(m_pipeline->memoryPlanMessage(), m_pipeline->memoryPlan());
    const hs::RunDefaults defaults = m_pipeline->defaults();
    m.defaultSteps = defaults.steps;
    m.defaultGuidance = defaults.guidance;
    m.negativePrompt = defaults.negativePrompt;
    m.defaultWidth = defaults.width;
    m.defaultHeight = defaults.height;
    for (const auto& [id, label] : defaults.samplers) {
        m.samplerIds << QString::fromStdString(id);
        m.samplerLabels << QString::fromStdString(label);
    }
    m.comfySamplers = defaults.comfySamplers;
    for (const auto& w : defaults.vocabulary) m.vocabulary << QString::fromStdString(w);
    m.effectivePlan = QString::fromStdString(m_pipeline->effectivePlan().toString());
    m.components = m_pipeline->components();
    m.sizeMultiple = m_pipeline->sizeMultiple();
    m.latentChannels = m_pipeline->latentChannels();
    m.isDemo = dir == QString::fromStdString(hs::findDemoModel());
    emit loaded(m);
    return true;
}

void RunWorker::runJob(const RunJob& job) {
    // Stop and close both reach the load, the run and the search within one block.
    const hs::CancelScope closing(&m_flags->closing);
    const hs::CancelScope stop(&m_flags->cancel);
    // The run's stages, streamed blocks, trials and estimate (base/work_progress.h).
    const hs::WorkProgressScope work(
        [this, id = job.id](const hs::WorkProgress& p) { reportWork(id, p); });
    if (job.kind == RunJob::Kind::Search) {
        runSearch(job);
        return;
    }
    QString error;
    if (!ensureLoaded(job.config, error, job.id)) {
        emit jobFailed(job.id, error);
        return;
    }
    try {
        SignalObserver obs(this, job.id);
        hs::RunRecord rec = m_pipeline->run(job.config, &obs, &m_flags->cancel);
        emit jobFinished(job.id, rec);
    } catch (const std::exception& e) {
        emit jobFailed(job.id, plainError(e));
    }
}

void RunWorker::runSearch(const RunJob& job) {
    hs::PrecisionSearchOptions o;
    o.safeFormat = job.search.safeFormat;
    o.tolerance = job.search.tolerance;
    o.maxIterations = job.search.maxIterations;
    o.trialSteps = job.search.trialSteps;
    o.cancel = &m_flags->cancel;
    o.onStage = [&](const std::string& s) { emit stage(job.id, QString::fromStdString(s)); };
    o.onTrial = [&](const hs::BisectionTrial& t) { emit searchTrial(job.id, t); };
    o.remedies = job.search.remedies;
    o.target = job.search.target;
    o.onRemedy = [&](const hs::RemedyRow& r) { emit searchRemedy(job.id, r); };
    try {
        m_pipeline.reset();  // the search holds its own pipeline; free these weights meanwhile
        m_dir.clear();
        m_files = {};
        emit searchFinished(job.id, hs::searchPrecision(job.config, o));
    } catch (const std::exception& e) {
        emit jobFailed(job.id, plainError(e));
    }
}

void RunWorker::decodeStep(int jobId, const hs::RunConfig& config, const hs::StepRecord& step,
                           int decodeId, std::shared_ptr<const std::atomic<bool>> stop) {
    const hs::CancelScope closing(&m_flags->closing);
    const hs::CancelScope stopped(stop.get());
    QString error;
    if (!ensureLoaded(config, error, jobId)) {
        if (stop && stop->load())
            emit decodeStopped(jobId, step.step);
        else
            emit decodeFailed(jobId, error);
        emit decodeEnded(decodeId);
        return;
    }
    emit stage(jobId, tr("decoding step %1 with the VAE").arg(step.step));
    QElapsedTimer timer;
    timer.start();
    try {
        emit preview(jobId, m_pipeline->decodePreview(step));
        emit stage(jobId, tr("step %1 decoded in %2 s")
                              .arg(step.step)
                              .arg(double(timer.elapsed()) / 1000.0, 0, 'f', 1));
    } catch (const hs::Cancelled&) {
        emit decodeStopped(jobId, step.step);
    } catch (const std::exception& e) {
        emit decodeFailed(jobId, plainError(e));
    }
    emit decodeEnded(decodeId);
}

void registerRunMetaTypes() {
    qRegisterMetaType<LoadedModel>();
    qRegisterMetaType<RunJob>();
    qRegisterMetaType<hs::RunConfig>();
    qRegisterMetaType<hs::ModelFiles>();
    qRegisterMetaType<hs::StepRecord>();
    qRegisterMetaType<std::vector<hs::ProbeRecord>>();
    qRegisterMetaType<hs::PreviewImage>();
    qRegisterMetaType<hs::FirstNonFinite>();
    qRegisterMetaType<hs::RunRecord>();
    qRegisterMetaType<hs::PrecisionPlan>();
    qRegisterMetaType<hs::BisectionTrial>();
    qRegisterMetaType<hs::PrecisionSearch>();
    qRegisterMetaType<hs::RemedyRow>();
}
