// Studio: what the run controller reports (a load, a run's steps, previews and record, a
// decode, a search's trials), into the views, the log and the run history.
#include <QFileInfo>

#include "base/work_progress.h"
#include "compare_view.h"
#include "diagnosis/first_failure.h"
#include "diagnosis/image_verdict.h"
#include "diagnosis/remedies.h"
#include "engine_text.h"
#include "file_set.h"
#include "gui_advice.h"
#include "history_browser.h"
#include "image_view.h"
#include "inspect/weight_check.h"
#include "layer_heatmap.h"
#include "log_panel.h"
#include "model_panel.h"
#include "precision_panel.h"
#include "preview_strip.h"
#include "prompt_panel.h"
#include "run_history.h"
#include "step_plot.h"
#include "studio.h"
#include "studio_text.h"
#include "view_format.h"

namespace {

// The records a run made after its last step: the VAE decode (and nothing else).
std::vector<hs::ProbeRecord> decodeProbes(const hs::RunRecord& r) {
    std::vector<hs::ProbeRecord> out;
    for (auto it = r.probes.rbegin(); it != r.probes.rend() && it->step < 0; ++it)
        out.insert(out.begin(), *it);
    return out;
}

}  // namespace

void Studio::connectController() {
    auto* c = m_controller;
    connect(c, &RunController::loaded, this, &Studio::onLoaded);
    connect(c, &RunController::loadFailed, this, &Studio::onLoadFailed);
    connect(c, &RunController::loadTried, this,
            [this](const QString& model, const hs::ModelFiles& files) {
                m_triedModel = model;
                m_triedFiles = files;
            });
    connect(c, &RunController::loadStopped, this, &Studio::onLoadStopped);
    connect(c, &RunController::jobStarted, this, &Studio::onJobStarted);
    connect(c, &RunController::stage, this, &Studio::onStage);
    connect(c, &RunController::estimate, this, &Studio::onEstimate);
    connect(c, &RunController::estimateChecked, this, &Studio::onEstimateChecked);
    connect(c, &RunController::stepDone, this, &Studio::onStep);
    connect(c, &RunController::preview, this, &Studio::onPreview);
    connect(c, &RunController::firstNonFinite, this, &Studio::onFirstNonFinite);
    connect(c, &RunController::jobFinished, this, &Studio::onFinished);
    connect(c, &RunController::jobFailed, this, &Studio::onFailed);
    connect(c, &RunController::decodeFailed, this, &Studio::onDecodeFailed);
    connect(c, &RunController::decodeStopped, this, &Studio::onDecodeStopped);
    connect(c, &RunController::searchTrial, this, &Studio::onSearchTrial);
    connect(c, &RunController::searchRemedy, this, &Studio::onSearchRemedy);
    connect(c, &RunController::searchFinished, this, &Studio::onSearchFinished);
    connect(c, &RunController::idle, this, &Studio::onIdle);
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
        for (const auto& line : m.detected) m_v.log->info(guiPartNames(line), "load");
        // Before any run: fp16 safe / at risk / will overflow per component, from the weights.
        const hs::MessageText check = hs::loadTimeWeightCheckMessage(m.dir.toStdString());
        m_v.log->info(engine_text::text(check, hs::englishText(check)), "load");
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

void Studio::onLoadFailed(const QString& engineMessage) {
    const GuiAdvice advice = guiLoadAdvice(engineMessage);  // no command-line options
    m_v.prompt->setStage(tr("loading failed"));
    m_v.model->setError(advice.text);
    m_v.model->offerParts(advice.parts);  // a button for each missing part
    m_v.log->error(advice.text, "load");
}

void Studio::onLoadStopped(const QString& dir) {
    const QString message =
        m_model ? tr("Loading %1 was stopped; the model stays %2").arg(dir, m_model->dir)
                : tr("Loading %1 was stopped; no model is open").arg(dir);
    m_v.prompt->setStage(tr("loading stopped"));
    m_v.model->setError(message);
    m_v.log->warning(message, "load");
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

void Studio::onStage(int id, const QString& stage) {
    // A standalone Open's load (File > Open, the library) reports as job 0; a search's trials
    // ("Find minimal fix: trial 3 of at most 32") show there too.
    if (id == m_viewJob || (id == RunController::kLoadJob && m_controller->isLoading()) ||
        (m_jobs.contains(id) && m_jobs[id].search) || m_controller->isDecoding(id) ||
        m_controller->currentJob() == id)
        m_v.prompt->setStage(stage);
}

void Studio::onEstimate(int id, double seconds, double bytes, double weights, double activations) {
    const QString memory = activations >= 0
                               ? tr("%1 (weights %2 + activations %3)")
                                     .arg(qs(hs::bytesText(bytes)), qs(hs::bytesText(weights)),
                                          qs(hs::bytesText(activations)))
                               : tr("%1 of weights (activations not measured on this device)")
                                     .arg(qs(hs::bytesText(weights)));
    m_v.log->info(tr("Run %1: about %2 and %3 in all, estimated after its second step")
                      .arg(id)
                      .arg(qs(hs::secondsText(seconds)), memory),
                  "run");
    if (id == m_viewJob)
        m_v.prompt->setEstimate(tr("about %1 in all").arg(qs(hs::secondsText(seconds))));
    else if (m_compareJobs.contains(id))
        m_v.prompt->setEstimate(tr("about %1 a run").arg(qs(hs::secondsText(seconds))));
}

void Studio::onEstimateChecked(int id, double estimated, double actual) {
    m_v.log->info(tr("Run %1 took %2; its estimate said about %3 (%4× the time taken)")
                      .arg(id)
                      .arg(qs(hs::secondsText(actual)), qs(hs::secondsText(estimated)))
                      .arg(actual > 0 ? estimated / actual : 0.0, 0, 'f', 2),
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

void Studio::onFirstNonFinite(int id, const hs::FirstNonFinite& f) {
    if (id == m_viewJob) m_v.layers->setFirstNonFinite(f);
    m_v.log->error(tr("First non-finite value: %1 at step %2 (%3, %4)")
                       .arg(qs(f.at.name))
                       .arg(f.at.step)  // 0-based, as the plot, the previews and the heatmap count
                       .arg(qs(hs::formatName(f.at.format)), viewExecutionName(f.at.execution)),
                   "nan");
}

QString Studio::endedText(const hs::RunRecord& r) {
    if (r.cancelled) return tr("stopped");
    if (r.verdict.empty()) return tr("done in %1 s").arg(r.seconds, 0, 'f', 2);
    // The verdict beside the time: a run that ends in NaN/Inf or black is "done" only as a run.
    //: %1: seconds; %2: the image's verdict ("ok", "nan/inf", "black", "flat").
    return tr("done in %1 s: %2")
        .arg(r.seconds, 0, 'f', 2)
        .arg(engine_text::text(hs::verdictNameMessage(r.verdict)));
}

void Studio::onFinished(int id, const hs::RunRecord& r) {
    if (m_jobs.contains(id)) m_jobs[id].ended = true;
    const Job job = m_jobs.value(id);
    if (job.historyId >= 0) finishInHistory(id, job.historyId, r);
    if (job.historyId >= 0) m_v.history->refresh();
    if (job.compareIndex >= 0) {
        if (job.compareIndex < m_compareRuns.size()) m_compareRuns[job.compareIndex] = r;
        m_v.compare->setFinal(job.compareIndex, r);
        m_v.prompt->setStage(compareRunName(id) + QStringLiteral(": ") + endedText(r));
        m_v.compare->stepPlot()->flush();  // complete now, not at the next redraw tick
        updateDivergence();
    } else if (id == m_viewJob) {
        m_v.plot->flush();
        m_v.layers->addProbes(decodeProbes(r));
        m_v.image->setRun(r);
        showFailureOf(r);
        m_v.prompt->setStage(endedText(r));
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

void Studio::onDecodeFailed(int, const QString& message) {
    m_v.log->warning(tr("Decode failed: %1").arg(message), "decode");
}

void Studio::onDecodeStopped(int, int step) {
    m_v.prompt->setStage(tr("decoding step %1 stopped").arg(step));
    m_v.log->warning(tr("Decoding step %1 was stopped").arg(step), "decode");
}

void Studio::onSearchTrial(int, const hs::BisectionTrial& t) {
    m_v.fix->addTrial(t);
    m_v.log->info(tr("Trial %1 (%2): %3 — %4")
                      .arg(t.iteration)
                      .arg(qs(t.phase), t.passed ? tr("pass") : tr("fail"), qs(t.planText)),
                  "fix");
}

void Studio::onSearchRemedy(int, const hs::RemedyRow& r) {
    m_v.fix->addRemedy(r);
    m_v.log->info(tr("Remedy %1: %2 — %3")
                      .arg(engine_text::text(hs::remedyActionMessage(r.candidate),
                                             hs::remedyAction(r.candidate)),
                           r.passed ? tr("pass") : tr("fail"), qs(r.planText)),
                  "fix");
}

void Studio::onSearchFinished(int id, const hs::PrecisionSearch& s) {
    m_jobs.remove(id);
    m_lastSearch = s;
    m_v.prompt->setStage(tr("Find minimal fix ended"));
    if (!s.planFails) {
        m_v.fix->setMessage(engine_text::text(s.result.messageText, s.result.message));
    } else {
        m_v.fix->setResult(s.result);
    }
    if (s.remedies) m_v.fix->setRemedies(*s.remedies);
    m_v.log->info(engine_text::text(s.result.messageText, s.result.message), "fix");
    if (s.remedies && !s.remedies->message.empty())
        m_v.log->info(engine_text::text(s.remedies->messageText, s.remedies->message), "fix");
    emit busyChanged(isBusy());
}

void Studio::onIdle() {
    m_v.prompt->setRunning(false);
    emit busyChanged(false);
}
