#include "studio.h"

#include <QCoreApplication>
#include <QEvent>
#include <QFileInfo>
#include <QTimer>

#include "compare_view.h"
#include "diagnosis/first_failure.h"
#include "diagnosis/image_verdict.h"
#include "diagnosis/latent_divergence.h"
#include "engine_text.h"
#include "file_set.h"
#include "history_browser.h"
#include "image_view.h"
#include "inspect/weight_check.h"
#include "layer_heatmap.h"
#include "log_panel.h"
#include "model_panel.h"
#include "records/plan_titles.h"
#include "base/work_progress.h"
#include "precision_panel.h"
#include "preview_strip.h"
#include "prompt_panel.h"
#include "run_history.h"
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

namespace {

// The records a run made after its last step: the VAE decode (and nothing else).
std::vector<hs::ProbeRecord> decodeProbes(const hs::RunRecord& r) {
    std::vector<hs::ProbeRecord> out;
    for (auto it = r.probes.rbegin(); it != r.probes.rend() && it->step < 0; ++it)
        out.insert(out.begin(), *it);
    return out;
}

}  // namespace

Studio::Studio(const StudioViews& v, RunHistory* history, QObject* parent)
    : QObject(parent), m_v(v), m_history(history), m_controller(new RunController(this)) {
    connectController();
    connect(m_v.prompt, &PromptPanel::generateRequested, this, &Studio::generate);
    connect(m_v.prompt, &PromptPanel::stopRequested, this, &Studio::stop);
    connect(m_v.model, &ModelPanel::openRequested, this,
            [this](const QString& dir) { openModel(dir); });
    connect(m_v.model, &ModelPanel::openFilesRequested, this, &Studio::openFiles);
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

void Studio::connectController() {
    auto* c = m_controller;
    connect(c, &RunController::loaded, this, &Studio::onLoaded);
    connect(c, &RunController::loadFailed, this, [this](const QString& message) {
        m_v.prompt->setStage(tr("loading failed"));
        m_v.model->setError(message);
        m_v.log->error(message, "load");
    });
    connect(c, &RunController::jobStarted, this, &Studio::onJobStarted);
    connect(c, &RunController::stage, this, [this](int id, const QString& stage) {
        // A standalone Open's load (File > Open, the library) reports as job 0; a search's
        // trials ("Find minimal fix: trial 3 of at most 32") show there too.
        if (id == m_viewJob || (id == RunController::kLoadJob && m_controller->isLoading()) ||
            (m_jobs.contains(id) && m_jobs[id].search) || m_controller->isDecoding(id) ||
            m_controller->currentJob() == id)
            m_v.prompt->setStage(stage);
    });
    connect(c, &RunController::loadStopped, this, [this](const QString& dir) {
        const QString message =
            m_model ? tr("Loading %1 was stopped; the model stays %2").arg(dir, m_model->dir)
                    : tr("Loading %1 was stopped; no model is open").arg(dir);
        m_v.prompt->setStage(tr("loading stopped"));
        m_v.model->setError(message);
        m_v.log->warning(message, "load");
    });
    connect(
        c, &RunController::estimate, this,
        [this](int id, double seconds, double bytes, double weights, double activations) {
            const QString memory =
                activations >= 0 ? tr("%1 (weights %2 + activations %3)")
                                       .arg(qs(hs::bytesText(bytes)), qs(hs::bytesText(weights)),
                                            qs(hs::bytesText(activations)))
                                 : tr("%1 of weights (activations not measured on this device)")
                                       .arg(qs(hs::bytesText(weights)));
            m_v.log->info(tr("Run %1: about %2 and %3 in all, estimated from its first step")
                              .arg(id)
                              .arg(qs(hs::secondsText(seconds)), memory),
                          "run");
            if (id == m_viewJob)
                m_v.prompt->setEstimate(tr("about %1 in all").arg(qs(hs::secondsText(seconds))));
            else if (m_compareJobs.contains(id))
                m_v.prompt->setEstimate(tr("about %1 a run").arg(qs(hs::secondsText(seconds))));
        });
    connect(c, &RunController::estimateChecked, this,
            [this](int id, double estimated, double actual) {
                m_v.log->info(tr("Run %1 took %2; its estimate said about %3 (%4× the time taken)")
                                  .arg(id)
                                  .arg(qs(hs::secondsText(actual)), qs(hs::secondsText(estimated)))
                                  .arg(actual > 0 ? estimated / actual : 0.0, 0, 'f', 2),
                              "run");
            });
    connect(c, &RunController::stepDone, this, &Studio::onStep);
    connect(c, &RunController::preview, this, &Studio::onPreview);
    connect(c, &RunController::firstNonFinite, this, [this](int id, const hs::FirstNonFinite& f) {
        if (id == m_viewJob) m_v.layers->setFirstNonFinite(f);
        m_v.log->error(
            tr("First non-finite value: %1 at step %2 (%3, %4)")
                .arg(qs(f.at.name))
                .arg(f.at.step)  // 0-based, as the plot, the previews and the heatmap count
                .arg(qs(hs::formatName(f.at.format)), qs(hs::executionName(f.at.execution))),
            "nan");
    });
    connect(c, &RunController::jobFinished, this, &Studio::onFinished);
    connect(c, &RunController::jobFailed, this, &Studio::onFailed);
    connect(c, &RunController::decodeFailed, this, [this](int, const QString& message) {
        m_v.log->warning(tr("Decode failed: %1").arg(message), "decode");
    });
    connect(c, &RunController::decodeStopped, this, [this](int, int step) {
        m_v.prompt->setStage(tr("decoding step %1 stopped").arg(step));
        m_v.log->warning(tr("Decoding step %1 was stopped").arg(step), "decode");
    });
    connect(c, &RunController::searchTrial, this, [this](int, const hs::BisectionTrial& t) {
        m_v.fix->addTrial(t);
        m_v.log->info(tr("Trial %1 (%2): %3 — %4")
                          .arg(t.iteration)
                          .arg(qs(t.phase), t.passed ? tr("pass") : tr("fail"), qs(t.planText)),
                      "fix");
    });
    connect(c, &RunController::searchRemedy, this, [this](int, const hs::RemedyRow& r) {
        m_v.fix->addRemedy(r);
        m_v.log->info(tr("Remedy %1: %2 — %3")
                          .arg(engine_text::text(hs::remedyActionMessage(r.candidate),
                                                 hs::remedyAction(r.candidate)),
                               r.passed ? tr("pass") : tr("fail"), qs(r.planText)),
                      "fix");
    });
    connect(c, &RunController::searchFinished, this, [this](int id, const hs::PrecisionSearch& s) {
        m_jobs.remove(id);
        m_lastSearch = s;
        m_v.prompt->setStage(tr("Find minimal fix ended"));
        if (!s.planFails) {
            m_v.fix->setMessage(qs(s.result.message));
        } else {
            m_v.fix->setResult(s.result);
        }
        if (s.remedies) m_v.fix->setRemedies(*s.remedies);
        m_v.log->info(qs(s.result.message), "fix");
        if (s.remedies && !s.remedies->message.empty())
            m_v.log->info(qs(s.remedies->message), "fix");
        emit busyChanged(isBusy());
    });
    connect(c, &RunController::idle, this, [this] {
        m_v.prompt->setRunning(false);
        emit busyChanged(false);
    });
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
    m_controller->loadModel(dir, files, m_v.precision->plan(), m_v.precision->deviceId());
    // The load's progress shows in the prompt panel, whose Stop (and Run > Stop, Esc) cancels it.
    if (!m_v.prompt->isRunning()) m_v.prompt->setRunning(true);
    emit busyChanged(true);
}

void Studio::openFiles(const QStringList& files) {
    if (files.isEmpty()) return;
    m_v.model->setLoadingFiles(files);
    m_v.log->info(tr("Loading the model files %1").arg(files.join(", ")), "load");
    m_controller->loadFiles(files, m_v.precision->plan(), m_v.precision->deviceId());
    if (!m_v.prompt->isRunning()) m_v.prompt->setRunning(true);
    emit busyChanged(true);
}

void Studio::onLoaded(const LoadedModel& m) {
    // Another model than the one open (not a plan change, not the same model reloaded after a
    // settings change or a failed load): its defaults replace the panel's steps and guidance.
    const bool otherModel = !m_model || m_model->dir != m.dir || m_model->files != m.files;
    m_model = m;
    ModelSummary s;
    s.folder = m.dir;
    s.name = m.isDemo ? tr("Halfscope demo model") : QFileInfo(m.dir).fileName();
    s.pipelineClass = m.pipelineClass;
    s.components = m.components;
    for (const auto& f : fileRoles(m.dir, m.files)) s.files.push_back({f.role, f.path});
    m_v.model->setModel(s);
    m_v.precision->setComponents(m.components);
    m_v.prompt->setSizeConstraints(m.sizeMultiple, m.sizeMultiple, 2048);
    m_v.prompt->setSamplers(m.samplerIds, m.samplerLabels);
    m_v.prompt->setVocabulary(m.vocabulary);
    if (!m.planChange && otherModel) {
        // What the model is meant to run with; a plan change or a reload keeps what is set.
        hs::RunConfig cfg;
        m_v.prompt->applyTo(cfg);
        cfg.steps = m.defaultSteps;
        cfg.guidance = m.defaultGuidance;
        if (m.defaultWidth) cfg.width = m.defaultWidth;
        if (m.defaultHeight) cfg.height = m.defaultHeight;
        m_v.prompt->setFrom(cfg);
        m_v.prompt->setNegativePromptSupported(
            m.negativePrompt,
            tr("This model takes no negative prompt: FLUX.1 is guidance-distilled, each step is "
               "one pass with the prompt alone and the guidance value is an input of the "
               "model."));
    }
    QStringList parts;
    for (const auto& c : m.components)
        parts << QString("%1 %2 (%3)").arg(qs(c.name), qs(c.className), qs(c.storedDtype));
    if (!m.planChange) {
        for (const auto& line : m.detected) m_v.log->info(line, "load");
        // Before any run: fp16 safe / at risk / will overflow per component, from the weights.
        m_v.log->info(qs(hs::loadTimeWeightCheck(m.dir.toStdString())), "load");
        m_v.log->info(
            tr("Loaded %1 for the plan %2: %3").arg(m.dir, m.effectivePlan, parts.join(", ")),
            "load");
        m_v.log->info(tr("Defaults of this model: %1 steps, guidance %2%3")
                          .arg(m.defaultSteps)
                          .arg(m.defaultGuidance)
                          .arg(m.negativePrompt ? QString() : tr(", no negative prompt")),
                      "load");
    } else if (m.reloaded.isEmpty())
        m_v.log->info(tr("Plan %1: every component kept its weights").arg(m.effectivePlan), "load");
    else
        m_v.log->info(tr("Plan %1: converted %2 again, kept the other components")
                          .arg(m.effectivePlan, m.reloaded.join(", ")),
                      "load");
    m_v.log->info(tr("Memory: %1").arg(m.memoryPlan), "load");
    if (!m.planChange) m_v.prompt->setStage(tr("model loaded"));
    updateForecast();
    emit modelLoaded(m);
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
    const hs::RunConfig cfg = configFromPanels();
    m_v.plot->clear();
    m_v.plot->setRunLabels({planLabel(cfg.plan)});
    m_v.plot->setStepCount(cfg.steps);
    m_v.previews->clear();
    m_v.previews->setStepCount(cfg.steps);
    m_v.layers->clear();
    m_v.layers->setStepCount(cfg.steps);
    if (m_model) m_v.layers->setComponents(m_model->components);
    m_v.image->clear();
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

void Studio::onJobStarted(const RunJob& started) {
    Job job;
    job.compareIndex = started.compareIndex;
    job.config = started.config;
    job.search = started.kind == RunJob::Kind::Search;
    if (!job.search && m_history && m_history->isOpen()) {
        std::vector<hs::ComponentInfo> components;
        if (m_model) components = m_model->components;
        std::vector<std::pair<std::string, hs::Format>> stored;
        for (const auto& c : components)
            if (auto f = hs::parseFormat(c.storedDtype)) stored.emplace_back(c.name, *f);
        const hs::PrecisionPlan effective = hs::effectivePlan(stored, job.config.plan);
        job.historyId = m_history->beginRun(job.config, effective.toString(), components);
        if (job.historyId < 0) m_v.log->warning(m_history->errorString(), "history");
    }
    m_jobs[started.id] = job;
    if (!job.search)
        m_v.log->info(tr("Run %1 started: %2, seed %3, %4 steps")
                          .arg(started.id)
                          .arg(planLabel(job.config.plan))
                          .arg(job.config.seed)
                          .arg(job.config.steps),
                      "run");
}

void Studio::onStep(int id, const hs::StepRecord& s, const std::vector<hs::ProbeRecord>& probes) {
    auto it = m_jobs.find(id);
    if (it == m_jobs.end()) return;
    Job& job = *it;
    // A schedule longer than the steps asked for (PNDM's PLMS makes one more) widens the views.
    if (s.scheduleSteps > job.config.steps) {
        job.config.steps = s.scheduleSteps;
        if (job.compareIndex >= 0) {
            m_v.compare->setStepCount(s.scheduleSteps);
        } else if (id == m_viewJob) {
            m_v.plot->setStepCount(s.scheduleSteps);
            m_v.previews->setStepCount(s.scheduleSteps);
            m_v.layers->setStepCount(s.scheduleSteps);
        }
    }
    if (job.compareIndex >= 0) {
        m_v.compare->addStep(job.compareIndex, s);
        m_v.prompt->setProgress(s.step + 1, job.config.steps, s.seconds, compareRunName(id));
    } else if (id == m_viewJob) {
        m_v.plot->addStep(0, s);
        m_v.layers->addProbes(probes);
        m_v.prompt->setProgress(s.step + 1, job.config.steps, s.seconds);
    }
    if (job.historyId >= 0 && !job.historyDeferred &&
        !m_history->addStep(job.historyId, s, probes)) {
        // One warning and no more waits: the record at the end holds every step.
        job.historyDeferred = true;
        m_v.log->warning(tr("Run %1: %2 The steps are kept and saved when the run ends.")
                             .arg(id)
                             .arg(m_history->errorString()),
                         "history");
    }
    if (!s.latent.allFinite() && (job.steps.isEmpty() || job.steps.back().latent.allFinite()))
        m_v.log->error(tr("Step %1: the latents hold %2 NaN and %3 Inf values")
                           .arg(s.step)
                           .arg(s.latent.nan)
                           .arg(s.latent.posInf + s.latent.negInf),
                       "step");
    job.steps.push_back(s);
}

void Studio::onPreview(int id, const hs::PreviewImage& p) {
    auto it = m_jobs.find(id);
    if (it == m_jobs.end() || p.step < 0) return;  // the final image comes with the record
    if (it->compareIndex >= 0)
        m_v.compare->addPreview(it->compareIndex, p);
    else if (id == m_viewJob)
        m_v.previews->addPreview(p);
    if (it->historyId >= 0 && !it->historyDeferred && !m_history->addPreview(it->historyId, p)) {
        it->historyDeferred = true;
        m_v.log->warning(tr("Run %1: %2 The previews are kept and saved when the run ends.")
                             .arg(id)
                             .arg(m_history->errorString()),
                         "history");
    }
}

void Studio::onFinished(int id, const hs::RunRecord& r) {
    if (m_jobs.contains(id)) m_jobs[id].ended = true;
    const Job job = m_jobs.value(id);
    if (job.historyId >= 0) finishInHistory(id, job.historyId, r);
    if (job.historyId >= 0) m_v.history->refresh();
    if (job.compareIndex >= 0) {
        if (job.compareIndex < m_compareRuns.size()) m_compareRuns[job.compareIndex] = r;
        m_v.compare->setFinal(job.compareIndex, r);
        m_v.prompt->setStage(
            compareRunName(id) + QStringLiteral(": ") +
            (r.cancelled ? tr("stopped") : tr("done in %1 s").arg(r.seconds, 0, 'f', 2)));
        m_v.compare->stepPlot()->flush();  // complete now, not at the next redraw tick
        updateDivergence();
    } else if (id == m_viewJob) {
        m_v.plot->flush();
        m_v.layers->addProbes(decodeProbes(r));
        m_v.image->setRun(r);
        m_v.prompt->setStage(r.cancelled ? tr("stopped")
                                         : tr("done in %1 s").arg(r.seconds, 0, 'f', 2));
        m_lastRun = r;
    }
    rememberTimes(id, r);
    updateForecast();
    for (const auto& note : r.notes) m_v.log->info(tr("Run %1: %2").arg(id).arg(qs(note)), "run");
    // Where the first NaN/Inf appeared, in the engine's words (translated).
    if (const auto failure = hs::findFirstFailure(r))
        m_v.log->error(tr("Run %1: %2")
                           .arg(id)
                           .arg(engine_text::text(failure->summaryMessage(), failure->summary())),
                       "nan");
    if (r.cancelled)
        m_v.log->warning(tr("Run %1 stopped after %2 steps").arg(id).arg(r.steps.size()), "run");
    else
        m_v.log->info(tr("Run %1 finished in %2 s: %3 (%4)")
                          .arg(id)
                          .arg(r.seconds, 0, 'f', 2)
                          .arg(engine_text::text(hs::verdictNameMessage(r.verdict)),
                               engine_text::text(r.verdictMessage, r.verdictExplanation)),
                      r.verdict == "ok" ? "run" : "nan");
    // Keep the steps (their latents) for decode on click until the job leaves the views.
    if (job.compareIndex < 0 && id != m_viewJob) m_jobs.remove(id);
}

void Studio::onFailed(int id, const QString& message) {
    const Job job = m_jobs.take(id);
    m_v.log->error(message, "run");
    if (job.search) {
        m_v.fix->setMessage(message);
        return;
    }
    if (job.historyId >= 0) {
        hs::RunRecord r;
        r.config = job.config;
        r.steps = std::vector<hs::StepRecord>(job.steps.begin(), job.steps.end());
        r.error = message.toStdString();
        finishInHistory(id, job.historyId, r);
        m_v.history->refresh();
    }
    if (id == m_viewJob) m_v.image->setPlaceholder(message);
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
    SearchSettings settings;
    settings.safeFormat = s.safeFormat;
    settings.tolerance = s.tolerance;
    settings.maxIterations = s.maxIterations;
    settings.trialSteps = s.trialSteps;
    settings.remedies = s.remedies;
    settings.target = adviceTarget();
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
