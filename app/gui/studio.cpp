// Studio: what the user asks for (open, run, compare, search, apply) and the run history's
// bookkeeping of runs that end or stop; what the controller reports is studio_events.cpp.
#include "studio.h"

#include <QCoreApplication>
#include <QEvent>
#include <QTimer>
#include <limits>

#include "compare_view.h"
#include "diagnosis/latent_divergence.h"
#include "failure_banner.h"
#include "file_set.h"
#include "history_browser.h"
#include "image_view.h"
#include "layer_heatmap.h"
#include "log_panel.h"
#include "model_panel.h"
#include "precision_panel.h"
#include "preview_strip.h"
#include "prompt_panel.h"
#include "records/plan_titles.h"
#include "run_history.h"
#include "runtime/gpu_memory.h"
#include "runtime/report_environment.h"
#include "step_plot.h"
#include "studio_text.h"

QString planLabel(const hs::PrecisionPlan& p) {
    return p.empty() ? Studio::tr("stored dtypes") : qs(p.toString());
}

QStringList planTitles(const QVector<hs::PrecisionPlan>& plans,
                       const std::vector<std::string>& components) {
    hs::PlanTitleOptions o;
    o.storedDtypes = Studio::tr("stored dtypes").toStdString();
    //: A module left at the dtype its checkpoint stores, as in "vae stored".
    o.stored = Studio::tr("stored").toStdString();
    o.components = components;
    QStringList out;
    for (const auto& t : hs::planTitles({plans.begin(), plans.end()}, o)) out << qs(t);
    return out;
}

Studio::Studio(const StudioViews& v, RunHistory* history, QObject* parent)
    : QObject(parent), m_v(v), m_history(history), m_controller(new RunController(this)) {
    connectController();
    connect(m_v.prompt, &PromptPanel::generateRequested, this, &Studio::generate);
    connect(m_v.prompt, &PromptPanel::stopRequested, this, &Studio::stop);
    connect(m_v.model, &ModelPanel::openRequested, this,
            [this](const QString& dir) { openModel(dir); });
    connect(m_v.model, &ModelPanel::openFilesRequested, this, &Studio::openFiles);
    connect(m_v.model, &ModelPanel::partChosen, this, &Studio::openWithPart);
    connect(m_v.previews, &PreviewStrip::stepClicked, this, [this](int s) { decodeStep(-1, s); });
    connect(m_v.compare, &CompareView::previewClicked, this, &Studio::decodeStep);
    connect(m_v.compare, &CompareView::differencePairChanged, this, &Studio::updateDivergence);
    connect(m_v.history, &HistoryBrowser::openRun, this, &Studio::openHistoryRun);
    connect(m_v.history, &HistoryBrowser::compareRequested, this, &Studio::compareHistoryRuns);
    connect(m_v.fix, &FixPanel::findRequested, this, &Studio::findMinimalFix);
    connect(m_v.fix, &FixPanel::applyRequested, this, &Studio::applyPlan);
    connect(m_v.fix, &FixPanel::compareRequested, this, &Studio::compareRemedies);
    connect(m_v.prompt, &PromptPanel::runSettingsChanged, this, &Studio::updateForecast);
    connect(m_v.precision, &PrecisionPanel::planChanged, this, &Studio::updateForecast);
    connect(m_v.precision, &PrecisionPanel::deviceChanged, this, &Studio::updateForecast);
    if (m_history && !m_history->isOpen())
        m_v.log->warning(tr("The run history is not available, runs will not be saved: %1")
                             .arg(m_history->errorString()),
                         "history");
    // Writes on this thread give up quickly when another program holds the database locked.
    if (m_history && m_history->isOpen()) m_history->setBusyTimeout(kHistoryBusyTimeoutMs);
    if (parent && parent->isWidgetType()) parent->installEventFilter(this);
}

Studio::~Studio() = default;

bool Studio::eventFilter(QObject* watched, QEvent* event) {
    if (watched == parent() && event->type() == QEvent::Close) shutdown();
    return QObject::eventFilter(watched, event);
}

void Studio::shutdown() {
    if (m_closed) return;
    m_closed = true;
    if (!m_controller->shutdown(1000))
        m_v.log->warning(tr("One operation of the engine was still running at close; it ends "
                            "on its own"),
                         "run");
    // The worker's last events (the stopped run's record) are queued on the controller.
    QCoreApplication::sendPostedEvents(m_controller, QEvent::MetaCall);
    for (auto it = m_jobs.begin(); it != m_jobs.end(); ++it) {
        if (it->ended || it->historyId < 0 || !m_history) continue;
        hs::RunRecord r;  // what arrived of a run that never returned its record
        r.config = it->config;
        r.steps = std::vector<hs::StepRecord>(it->steps.begin(), it->steps.end());
        r.cancelled = true;
        it->ended = true;
        finishInHistory(it.key(), it->historyId, r);
    }
    saveUnsaved();  // a last try for outcomes a lock held back
}

void Studio::finishInHistory(int jobId, qint64 historyId, const hs::RunRecord& record) {
    if (m_history->finishRun(historyId, record)) return;
    m_v.log->warning(m_closed
                         ? tr("Run %1 was not saved: %2").arg(jobId).arg(m_history->errorString())
                         : tr("Run %1 is not saved yet: %2 Saving it is tried again every "
                              "few seconds.")
                               .arg(jobId)
                               .arg(m_history->errorString()),
                     "history");
    if (m_closed) return;
    m_unsaved.push_back({jobId, historyId, record});
    if (m_unsaved.size() == 1) QTimer::singleShot(2000, this, &Studio::saveUnsaved);
}

void Studio::saveUnsaved() {
    bool saved = false;
    for (int i = 0; i < m_unsaved.size();) {
        const Unsaved& u = m_unsaved[i];
        if (m_history->finishRun(u.historyId, u.record)) {
            m_v.log->info(tr("Run %1 saved").arg(u.jobId), "history");
            m_unsaved.removeAt(i);
            saved = true;
        } else {
            ++i;
        }
    }
    if (saved) m_v.history->refresh();
    if (m_closed) {
        for (const Unsaved& u : m_unsaved)
            m_v.log->warning(
                tr("Run %1 was not saved: %2").arg(u.jobId).arg(m_history->errorString()),
                "history");
        m_unsaved.clear();
    } else if (!m_unsaved.isEmpty()) {
        QTimer::singleShot(2000, this, &Studio::saveUnsaved);
    }
}

hs::RunConfig Studio::configFromPanels() const {
    hs::RunConfig cfg;
    m_v.prompt->applyTo(cfg);
    m_v.precision->applyTo(cfg);
    cfg.modelDir = m_model ? m_model->dir.toStdString() : std::string();
    cfg.modelFiles = m_model ? m_model->files : hs::ModelFiles();
    cfg.keepLatents = true;  // decode any step on click; the demo's latents are 4 KiB a step
    return cfg;
}

void Studio::openModel(const QString& dir, const hs::ModelFiles& files) {
    m_v.model->setLoading(true, dir);
    QStringList with;
    for (const auto& f : fileRoles(dir, files))
        if (f.role != "model") with << QString("%1 %2").arg(f.role, f.path);
    if (with.isEmpty())
        m_v.log->info(tr("Loading %1").arg(dir), "load");
    else
        m_v.log->info(tr("Loading %1 with %2").arg(dir, with.join(", ")), "load");
    applyGpuMemoryCap();
    m_controller->loadModel(dir, files, m_v.precision->plan(), m_v.precision->deviceId());
    // The load's progress shows in the prompt panel, whose Stop (and Run > Stop, Esc) cancels it.
    if (!m_v.prompt->isRunning()) m_v.prompt->setRunning(true);
    emit busyChanged(true);
}

void Studio::applyGpuMemoryCap() {
    const double cap = m_v.precision->gpuMemoryCapGiB();
    if (cap <= 0) return;
    try {
        const hs::GpuMemoryCap c = hs::capGpuMemory(m_v.precision->deviceId().toStdString(), cap,
                                                    "the studio's GPU memory cap");
        m_v.log->info(QString::fromStdString(c.note()), "load");
    } catch (const std::invalid_argument& e) {
        m_v.log->error(QString::fromStdString(e.what()), "load");
    }
}

void Studio::openFiles(const QStringList& files) {
    if (files.isEmpty()) return;
    m_v.model->setLoadingFiles(files);
    m_v.log->info(tr("Loading the model files %1").arg(files.join(", ")), "load");
    applyGpuMemoryCap();
    m_controller->loadFiles(files, m_v.precision->plan(), m_v.precision->deviceId());
    if (!m_v.prompt->isRunning()) m_v.prompt->setRunning(true);
    emit busyChanged(true);
}
void Studio::openWithPart(const QString& slot, const QString& path) {
    const hs::ModelFileSlot* part = hs::modelFileSlot(slot.toStdString());
    if (!part || m_triedModel.isEmpty()) return;
    hs::ModelFiles files = m_triedFiles;
    files.*(part->path) = path.toStdString();
    openModel(m_triedModel, files);
}

void Studio::generate() {
    if (!m_model) {
        m_v.log->error(tr("Open a model first"), "run");
        return;
    }
    if (!m_v.precision->planError().isEmpty()) {
        m_v.log->error(tr("The precision plan does not parse: %1").arg(m_v.precision->planError()),
                       "run");
        return;
    }
    hs::RunConfig cfg = configFromPanels();
    if (m_amend) m_amend(cfg);
    m_v.plot->clear();
    m_v.plot->setRunLabels({planLabel(cfg.plan)});
    m_v.plot->setStepCount(cfg.steps);
    m_v.previews->clear();
    m_v.previews->setStepCount(cfg.steps);
    m_v.layers->clear();
    m_v.layers->setStepCount(cfg.steps);
    if (m_model) m_v.layers->setComponents(m_model->components);
    m_v.image->clear();
    if (m_v.banner) m_v.banner->clear();
    m_v.prompt->setRunning(true);
    m_lastWasCompare = false;
    m_viewJob = m_controller->start(cfg);
    emit showRun();
    emit busyChanged(true);
}

void Studio::stop() {
    if (!isBusy()) return;
    const bool noJob = m_controller->currentJob() == 0;
    const bool loadOnly = noJob && m_controller->isLoading();
    m_controller->stop();
    if (noJob && !loadOnly) return;  // a decode: its end is logged when it stops
    m_v.log->warning(
        loadOnly ? tr("Stopping the model load") : tr("Stopping after the current step"),
        loadOnly ? "load" : "run");
}
void Studio::compare(const QVector<hs::PrecisionPlan>& plans, const QStringList& labels) {
    if (!m_model || plans.size() < 2 || plans.size() > 4) return;
    const hs::RunConfig base = configFromPanels();
    QVector<hs::RunConfig> configs;
    QStringList planTexts;
    for (const auto& p : plans) {
        hs::RunConfig c = base;
        c.plan = p;
        configs.push_back(c);
        planTexts << planLabel(p);
    }
    // Titles name what differs between the plans; the whole plan goes with the final image.
    std::vector<std::string> components;
    for (const auto& c : m_model->components) components.push_back(c.name);
    m_compareTitles = labels.isEmpty() ? planTitles(plans, components) : labels;
    m_v.compare->setRuns(m_compareTitles, planTexts);
    m_v.compare->setStepCount(base.steps);
    m_compareRuns = QVector<hs::RunRecord>(plans.size());
    m_lastWasCompare = true;
    m_compareJobs = m_controller->startCompare(configs);
    m_v.prompt->setRunning(true);
    m_v.log->info(tr("Comparing %1").arg(planTexts.join(tr(" vs "))), "run");
    emit showCompare();
    emit busyChanged(true);
}

void Studio::compareBf16VsFp16() {
    if (!m_model) return;
    hs::PrecisionPlan bf16, fp16;
    for (const auto& c : m_model->components) {
        bf16.add(c.name, hs::Format::BF16);
        fp16.add(c.name, hs::Format::FP16);
    }
    compare({bf16, fp16}, {});
}

void Studio::compareOneModuleAtATime() {
    if (!m_model) return;
    QVector<hs::PrecisionPlan> plans{hs::PrecisionPlan()};
    for (const auto& c : m_model->components) {
        if (plans.size() == 4) break;
        hs::PrecisionPlan p;
        p.add(c.name, hs::Format::FP16);
        plans.push_back(p);
    }
    compare(plans, {});
}

void Studio::decodeStep(int compareIndex, int step) {
    const int id = compareIndex >= 0
                       ? (compareIndex < m_compareJobs.size() ? m_compareJobs[compareIndex] : 0)
                       : m_viewJob;
    auto it = m_jobs.find(id);
    if (it == m_jobs.end()) return;
    for (const auto& s : it->steps)
        if (s.step == step) {
            m_controller->decodeStep(id, it->config, s);
            m_v.log->info(tr("Decoding step %1 with the VAE").arg(step), "decode");
            // Its progress shows in the prompt panel, whose Stop cancels it.
            if (!m_v.prompt->isRunning()) m_v.prompt->setRunning(true);
            emit busyChanged(true);
            return;
        }
}

QString Studio::compareRunName(int jobId) const {
    const int i = m_compareJobs.indexOf(jobId);
    if (i < 0) return QString();
    return tr("run %1 of %2, %3")
        .arg(i + 1)
        .arg(m_compareJobs.size())
        .arg(i < m_compareTitles.size() ? m_compareTitles[i] : QString());
}

void Studio::updateDivergence() {
    const auto [a, b] = m_v.compare->differencePair();
    if (a < 0 || b < 0 || a >= m_compareRuns.size() || b >= m_compareRuns.size()) return;
    QVector<double> d;
    for (const auto& s : hs::latentDivergence(m_compareRuns[a], m_compareRuns[b]))
        d.push_back(s.available ? s.relativeL2 : std::numeric_limits<double>::quiet_NaN());
    m_v.compare->setDivergence(
        d, tr("relative L2 distance of the latents, run %1 vs run %2").arg(a + 1).arg(b + 1));
}

void Studio::findMinimalFix(const FixSettings& s) {
    if (!m_model) {
        m_v.fix->setMessage(tr("Open a model first"));
        return;
    }
    if (!m_v.precision->targetError().isEmpty()) {
        m_v.fix->setMessage(tr("Advice for: %1").arg(m_v.precision->targetError()));
        return;
    }
    const hs::RunConfig cfg = configFromPanels();
    const SearchSettings settings{s, adviceTarget()};
    m_v.fix->setRunning(true);
    m_v.prompt->setRunning(true);  // the trials show in its progress; its Stop ends the search
    m_controller->startSearch(cfg, settings);
    m_v.log->info(tr("Searching for the cheapest fix of %1").arg(planLabel(cfg.plan)), "fix");
    emit busyChanged(true);
}

void Studio::compareRemedies(const QStringList& planTexts) {
    if (!m_model) {
        m_v.log->error(tr("Open a model first"), "run");
        return;
    }
    QVector<hs::PrecisionPlan> plans;
    try {
        for (const auto& text : planTexts.mid(0, 4))
            plans.push_back(hs::PrecisionPlan::parse(text.toStdString()));
    } catch (const std::exception& e) {
        m_v.log->error(qs(e.what()), "fix");
        return;
    }
    if (plans.size() < 2) {
        m_v.log->warning(tr("Fewer than two passing remedies to compare"), "fix");
        return;
    }
    compare(plans, {});
}

hs::DeviceInfo Studio::adviceTarget() const {
    if (auto t = m_v.precision->targetGpu()) return *t;
    return hs::deviceInfoFor(m_v.precision->deviceId().toStdString());
}

void Studio::applyPlan(const QString& planText) {
    try {
        m_v.precision->setPlan(hs::PrecisionPlan::parse(planText.toStdString()));
        m_v.log->info(tr("Applied plan %1").arg(planText), "fix");
    } catch (const std::exception& e) {
        m_v.log->error(qs(e.what()), "fix");
    }
}
