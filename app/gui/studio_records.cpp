// Studio: runs from the history back into the views, and reports of what the views show.
#include <QDir>
#include <QFileInfo>
#include <algorithm>

#include "compare_view.h"
#include "diagnosis/first_failure.h"
#include "diagnosis/image_verdict.h"
#include "engine_text.h"
#include "failure_banner.h"
#include "history_browser.h"
#include "image_view.h"
#include "layer_heatmap.h"
#include "log_panel.h"
#include "precision_panel.h"
#include "preview_strip.h"
#include "report/report_bundle.h"
#include "run_history.h"
#include "runtime/report_environment.h"
#include "step_plot.h"
#include "studio.h"
#include "studio_text.h"
#include "view_number.h"

namespace {

// A run's name in an exported report: a plan, the same in every language.
// A compared history run: its name, else what its plan changes against the others (`title`,
// planTitles()) and its number in the history.
QString runLabel(const RunSummary& s, const QString& title) {
    if (!s.name.isEmpty()) return s.name;
    //: A compared run from the history: %1 what its plan changes ("transformer fp16"), %2 its id.
    return Studio::tr("%1 (run %2)").arg(title).arg(s.id);
}

}  // namespace

void Studio::showRecord(const hs::RunRecord& r) {
    // A PLMS schedule makes one step more than asked.
    const int steps = std::max(r.config.steps, int(r.steps.size()));
    m_v.plot->clear();
    m_v.plot->setRunLabels({planLabel(r.config.plan)});
    m_v.plot->setStepCount(steps);
    for (const auto& s : r.steps) m_v.plot->addStep(0, s);
    m_v.plot->flush();  // a whole record at once: draw it now, not at the next tick
    m_v.previews->clear();
    m_v.previews->setStepCount(steps);
    for (const auto& p : r.previews) m_v.previews->addPreview(p);
    m_v.layers->clear();
    m_v.layers->setStepCount(steps);
    m_v.layers->setComponents(r.components);
    m_v.layers->addProbes(r.probes);
    if (r.firstNonFinite) m_v.layers->setFirstNonFinite(*r.firstNonFinite);
    m_v.image->setRun(r);
    showFailureOf(r);
    m_lastRun = r;
    m_lastWasCompare = false;
    m_viewJob = 0;  // no live job behind the views now
}

void Studio::showFailureOf(const hs::RunRecord& r) {
    if (!m_v.banner) return;
    if (const auto f = hs::findFirstFailure(r)) {
        FailureBanner::Failure b;
        b.point = qs(f->point);
        b.component = qs(f->component);
        b.step = f->step;
        b.stage = FailureBanner::stageName(f->step, f->component == "vae");
        //: The value a failing point held: %1 its kind (+Inf, -Inf, NaN), then the counts.
        b.value = tr("%1 (%2 NaN, %3 +Inf, %4 -Inf of %5 values)")
                      .arg(qs(hs::nonFiniteKindName(f->kind)), viewCount(f->nan),
                           viewCount(f->posInf), viewCount(f->negInf), viewCount(f->count));
        b.layer = f->fromProbe;
        m_v.banner->showFailure(b);
    } else if (!r.cancelled && !r.verdict.empty() && r.verdict != "ok") {
        m_v.banner->showVerdict(engine_text::text(r.verdictMessage, r.verdictExplanation));
    } else {
        m_v.banner->clear();
    }
}

void Studio::openHistoryRun(qint64 id) {
    if (!m_history) return;
    const auto r = m_history->load(id);
    if (!r) {
        m_v.log->error(tr("Could not open run %1: %2").arg(id).arg(m_history->errorString()),
                       "history");
        return;
    }
    if (!m_history->errorString().isEmpty()) m_v.log->warning(m_history->errorString(), "history");
    showRecord(*r);
    m_v.log->info(tr("Opened run %1 from the history").arg(id), "history");
    emit showRun();
}

void Studio::compareHistoryRuns(const QVector<qint64>& ids) {
    if (!m_history || ids.size() < 2 || ids.size() > 4) return;
    QVector<hs::RunRecord> runs;
    QVector<RunSummary> summaries;
    QStringList labels, plans;
    for (qint64 id : ids) {
        const auto r = m_history->load(id);
        const auto s = m_history->summary(id);
        if (!r || !s) {
            m_v.log->error(tr("Could not open run %1: %2").arg(id).arg(m_history->errorString()),
                           "history");
            return;
        }
        runs.push_back(*r);
        summaries.push_back(*s);
        plans << (s->plan.isEmpty() ? tr("stored dtypes") : s->plan);
    }
    QVector<hs::PrecisionPlan> runPlans;
    for (const auto& r : runs) runPlans.push_back(r.config.plan);
    const QStringList titles = planTitles(runPlans);
    for (int i = 0; i < summaries.size(); ++i) labels << runLabel(summaries[i], titles[i]);
    m_v.compare->setRuns(labels, plans);
    int steps = 0;
    for (const auto& r : runs) steps = std::max({steps, r.config.steps, int(r.steps.size())});
    m_v.compare->setStepCount(steps);
    for (int i = 0; i < runs.size(); ++i) {
        for (const auto& s : runs[i].steps) m_v.compare->addStep(i, s);
        for (const auto& p : runs[i].previews) m_v.compare->addPreview(i, p);
        m_v.compare->setFinal(i, runs[i]);
    }
    m_compareRuns = runs;
    m_compareJobs.clear();
    m_lastWasCompare = true;
    updateDivergence();
    emit showCompare();
}

bool Studio::exportReport(const QString& htmlPath, QString* error) {
    std::vector<hs::ReportRun> runs;
    bool comparison = false;
    if (!m_compareRuns.isEmpty() && m_lastWasCompare) {
        comparison = true;
        for (int i = 0; i < m_compareRuns.size(); ++i)
            if (!m_compareRuns[i].steps.empty())
                runs.push_back(hs::makeReportRun(
                    planLabel(m_compareRuns[i].config.plan).toStdString(), m_compareRuns[i]));
    } else if (m_lastRun) {
        runs.push_back(
            hs::makeReportRun(planLabel(m_lastRun->config.plan).toStdString(), *m_lastRun));
    }
    if (runs.empty() && m_lastSearch) {
        if (!m_lastSearch->referenceRun.steps.empty())
            runs.push_back(hs::makeReportRun(
                tr("reference %1").arg(qs(m_lastSearch->referencePlan)).toStdString(),
                m_lastSearch->referenceRun));
        runs.push_back(hs::makeReportRun(tr("failing").toStdString(), m_lastSearch->failingRun));
    }
    if (runs.empty()) {
        if (error) *error = tr("Nothing to report yet: generate an image first.");
        return false;
    }
    const std::string device = runs.front().record.config.device;
    hs::Report report = hs::makeReport(std::move(runs), hs::reportEnvironment(device));
    const std::string prompt = report.runs.front().record.config.prompt;
    const QString shown = prompt.empty() ? tr("(empty prompt)") : qs(prompt);
    report.title = (comparison ? tr("Halfscope comparison: %1") : tr("Halfscope run: %1"))
                       .arg(shown)
                       .toStdString();
    if (m_lastSearch && m_lastSearch->planFails) {
        report.bisection = m_lastSearch->result;
        report.remedies = m_lastSearch->remedies;
    }
    QString base = htmlPath;
    if (base.endsWith(".html", Qt::CaseInsensitive)) base.chop(5);
    try {
        // The precision panel's target GPU, else the device the runs used.
        const auto target = m_v.precision->targetGpu();
        hs::addAdvice(report, target ? *target : hs::deviceInfoFor(device));
        // The engine's sentences and the section headings in the studio's language.
        hs::HtmlReportOptions html;
        html.translate = engine_text::translator();
        html.language = engine_text::languageTag();
        const hs::ReportFiles f = hs::writeReportFiles(base.toStdString(), report, html);
        m_v.log->info(tr("Report written: %1 (with %2 and the CSV files)")
                          .arg(qs(f.html), QFileInfo(qs(f.json)).fileName()),
                      "report");
    } catch (const std::exception& e) {
        if (error) *error = qs(e.what());
        m_v.log->error(qs(e.what()), "report");
        return false;
    }
    return true;
}
