#include "welcome_dialog.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QTextDocument>
#include <QTimer>
#include <QVBoxLayout>

#include "ctl_bring_into_view.h"
#include "diagnosis/image_verdict.h"
#include "engine_text.h"
#include "failure_banner.h"
#include "layer_heatmap.h"
#include "prompt_panel.h"
#include "runtime/demo_location.h"
#include "studio.h"
#include "studio_text.h"
#include "view_heatmap_grid.h"

namespace {

QLabel* wrapped(const QString& html) {
    auto* l = new QLabel(html);
    l->setWordWrap(true);
    l->setTextFormat(Qt::RichText);
    return l;
}

// A run's verdict in a few words; the engine's explanation goes into the tooltip.
QString verdictWords(const hs::RunRecord& r) {
    if (r.verdict == "ok") return WelcomeDialog::tr("the image is fine");
    if (r.verdict == "black") return WelcomeDialog::tr("a black image");
    if (r.verdict == "nan/inf") return WelcomeDialog::tr("NaN/Inf in the image, black once saved");
    if (r.verdict == "flat") return WelcomeDialog::tr("a flat image");
    return engine_text::text(hs::verdictNameMessage(r.verdict));
}

}  // namespace

WelcomeDialog::WelcomeDialog(Studio& studio, const StudioViews& views, QAction* openLibrary,
                             QWidget* window)
    : QDialog(window),
      m_studio(studio),
      m_prompt(views.prompt),
      m_layers(views.layers),
      m_openLibrary(openLibrary),
      m_compare(new QPushButton(tr("Compare bf16 and fp16 on the demo model"))),
      m_progress(new QProgressBar),
      m_result(wrapped(tr("The result appears here when the comparison ends."))),
      m_showLayer(new QPushButton(tr("Show this layer"))),
      m_library(new QPushButton(tr("Open the model library"))) {
    setObjectName("welcome");
    setWindowTitle(tr("Welcome to Halfscope"));
    setModal(false);
    m_compare->setObjectName("welcomeCompare");
    m_showLayer->setObjectName("welcomeShowLayer");
    m_library->setObjectName("welcomeLibrary");
    m_showLayer->setEnabled(false);
    m_showLayer->setToolTip(
        tr("The fp16 run in the Run tab, with this layer selected in the "
           "layer heatmap"));
    m_progress->setVisible(false);
    m_progress->setTextVisible(true);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(wrapped(
        tr("<b>Halfscope finds out why a diffusion model gives a black image in half "
           "precision.</b> It runs the model step by step, watches every layer against fp16's "
           "limit of 65504 and names the first layer that overflowed.")));
    layout->addSpacing(6);
    layout->addWidget(
        wrapped(tr("<b>1.</b> See it happen on the small demo model, trained in "
                   "bf16 (seconds on a CPU):")));
    layout->addWidget(m_compare);
    layout->addWidget(m_progress);
    layout->addSpacing(6);
    layout->addWidget(wrapped(tr("<b>2.</b> What the two runs gave:")));
    layout->addWidget(m_result);
    layout->addWidget(m_showLayer);
    layout->addSpacing(6);
    layout->addWidget(
        wrapped(tr("<b>3.</b> Open the model library to diagnose your own models: "
                   "it lists those already on disk (Hugging Face cache, ComfyUI, "
                   "A1111/Forge) and folders you add.")));
    layout->addWidget(m_library);
    layout->addSpacing(6);
    auto* note = wrapped(tr("Help > Welcome shows this window again."));
    note->setEnabled(false);  // greyed: a footnote
    layout->addWidget(note);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    layout->addWidget(buttons);
    setMinimumWidth(440);

    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_compare, &QPushButton::clicked, this, &WelcomeDialog::startComparison);
    connect(m_showLayer, &QPushButton::clicked, this, &WelcomeDialog::showFirstFailure);
    connect(m_library, &QPushButton::clicked, this, &WelcomeDialog::openLibrary);

    RunController& c = m_studio.controller();
    connect(&m_studio, &Studio::busyChanged, this, &WelcomeDialog::updateBusy);
    connect(&m_studio, &Studio::modelLoaded, this, &WelcomeDialog::onModelLoaded);
    connect(&c, &RunController::loadFailed, this, [this](const QString& message) {
        if (m_state != State::Loading) return;
        fail(tr("The demo model could not be opened: %1").arg(message));
    });
    connect(&c, &RunController::stepDone, this, [this] {
        if (m_state != State::Comparing) return;
        m_progress->setValue(std::min(++m_stepsDone, m_progress->maximum()));
    });
    connect(&c, &RunController::jobFailed, this, [this](int, const QString& message) {
        if (m_state == State::Comparing && m_jobError.isEmpty()) m_jobError = message;
    });
    connect(&c, &RunController::idle, this, [this] {
        if (m_state == State::Comparing) onComparisonEnded();
        updateBusy();
    });
    updateBusy();
}

QString WelcomeDialog::resultText() const {
    QTextDocument doc;
    doc.setHtml(m_result->text());
    return doc.toPlainText();
}

void WelcomeDialog::startComparison() {
    if (m_state == State::Loading || m_state == State::Comparing) return;
    if (m_studio.isBusy()) {
        m_result->setText(
            tr("Halfscope is busy: start the comparison when the current work "
               "ends, or stop it (Run > Stop)."));
        return;
    }
    m_failure.reset();
    m_fp16.reset();
    m_jobError.clear();
    m_showLayer->setEnabled(false);
    if (m_studio.model() && m_studio.model()->isDemo) return compareNow();
    m_state = State::Loading;
    m_progress->setRange(0, 0);  // busy indicator: a load reports no steps here
    m_progress->setVisible(true);
    updateBusy();
    openDemo();
}

void WelcomeDialog::openDemo() {
    const QString demo = qs(hs::findDemoModel());
    if (demo.isEmpty())
        return fail(
            tr("The embedded demo model is missing from this installation: reinstall "
               "Halfscope, or open one of your own models from the model library."));
    m_result->setText(tr("Opening the demo model..."));
    m_studio.openModel(demo);
}

void WelcomeDialog::onModelLoaded(const LoadedModel& model) {
    // Another model's load (one queued before the demo's) ends first: wait for the demo.
    if (m_state != State::Loading || !model.isDemo) return;
    // After the window's own handlers (the saved steps and plan of this model).
    QTimer::singleShot(0, this, &WelcomeDialog::compareNow);
}

void WelcomeDialog::compareNow() {
    // The window closed meanwhile: nothing starts.
    if (parentWidget() && !parentWidget()->isVisible()) return;
    if (!m_studio.model() || !m_studio.model()->isDemo) {
        fail(tr("The demo model is not open."));
        return;
    }
    hs::RunConfig cfg;
    m_prompt->applyTo(cfg);
    m_state = State::Comparing;
    m_stepsDone = 0;
    m_progress->setRange(0, std::max(1, 2 * cfg.steps));
    m_progress->setValue(0);
    m_progress->setFormat(tr("%v of %m steps"));
    m_progress->setVisible(true);
    m_result->setText(tr("Comparing: the bf16 run, then the fp16 run, same prompt and seed..."));
    updateBusy();
    m_studio.compareBf16VsFp16();
    if (!m_studio.isBusy()) fail(tr("The comparison did not start; the log says why."));
}

void WelcomeDialog::onComparisonEnded() {
    m_progress->setVisible(false);
    const QVector<hs::RunRecord>& runs = m_studio.compareRuns();
    if (!m_jobError.isEmpty()) return fail(tr("The comparison failed: %1").arg(m_jobError));
    // A run stopped midway is marked cancelled; one that never started has no verdict.
    if (runs.size() < 2 || runs[0].cancelled || runs[1].cancelled || runs[0].verdict.empty() ||
        runs[1].verdict.empty())
        return fail(
            tr("The comparison was stopped before it ended. Click the button above to "
               "run it again."));
    const hs::RunRecord& bf16 = runs[0];
    const hs::RunRecord& fp16 = runs[1];
    m_state = State::Done;
    m_fp16 = fp16;
    m_failure = hs::findFirstFailure(fp16);
    QString html = tr("<b>bf16</b>: %1.<br><b>fp16</b>: %2.")
                       .arg(verdictWords(bf16).toHtmlEscaped(), verdictWords(fp16).toHtmlEscaped());
    if (m_failure && m_failure->fromProbe)
        html +=
            "<br>" +
            tr("First failing layer in fp16: <b>%1</b> (component %2, %3), where %4 "
               "first appeared.")
                .arg(qs(m_failure->point).toHtmlEscaped(), qs(m_failure->component).toHtmlEscaped(),
                     FailureBanner::stageName(m_failure->step, m_failure->component == "vae"),
                     qs(hs::nonFiniteKindName(m_failure->kind)));
    else if (m_failure)  // probing off: the run's own statistics say where, not which layer
        html += "<br>" +
                tr("fp16 first failed in the %1 (%2); the layers were not recorded.")
                    .arg(qs(m_failure->point).toHtmlEscaped(),
                         FailureBanner::stageName(m_failure->step, m_failure->component == "vae"));
    else
        html += "<br>" + tr("No layer overflowed in fp16 on this run.");
    m_result->setText(html);
    m_result->setToolTip(QString("bf16: %1\nfp16: %2")
                             .arg(engine_text::text(bf16.verdictMessage, bf16.verdictExplanation),
                                  engine_text::text(fp16.verdictMessage, fp16.verdictExplanation)));
    updateBusy();
}

void WelcomeDialog::fail(const QString& message) {
    m_state = State::Failed;
    m_progress->setVisible(false);
    m_result->setText("<span style='color:#c00000'>" + message.toHtmlEscaped() + "</span>");
    m_result->setToolTip(QString());
    m_showLayer->setEnabled(false);
    updateBusy();
}

void WelcomeDialog::showFirstFailure() {
    if (!m_fp16 || !m_failure || !m_failure->fromProbe || m_studio.isBusy()) return;
    m_studio.showRecord(*m_fp16);
    ctl::bringIntoView(m_layers->grid());
    if (!m_layers->selectLayer(qs(m_failure->point), m_failure->step))
        m_result->setText(m_result->text() + "<br><span style='color:#c00000'>" +
                          tr("The layer heatmap has no cell for this layer.") + "</span>");
    stepAsideFrom(m_layers);
}

void WelcomeDialog::stepAsideFrom(const QWidget* target) {
    if (!isVisible()) return;
    const QRect avoid(target->mapToGlobal(QPoint(0, 0)), target->size());
    const QSize size = frameGeometry().size();
    // A corner of the main window, then of the screen, that leaves the target in sight.
    QList<QRect> areas;
    if (parentWidget()) areas << parentWidget()->window()->frameGeometry();
    if (QScreen* s = screen()) areas << s->availableGeometry();
    for (const QRect& a : areas) {
        for (const QPoint& corner :
             {a.topLeft(), QPoint(a.right() - size.width() + 1, a.top()),
              QPoint(a.left(), a.bottom() - size.height() + 1),
              QPoint(a.right() - size.width() + 1, a.bottom() - size.height() + 1)}) {
            if (QRect(corner, size).intersects(avoid)) continue;
            move(corner);
            return;
        }
    }
    hide();  // no room beside it: Help > Welcome brings the window back
}

void WelcomeDialog::openLibrary() {
    if (m_openLibrary) m_openLibrary->trigger();
}

void WelcomeDialog::updateBusy() {
    const bool mine = m_state == State::Loading || m_state == State::Comparing;
    const bool busy = m_studio.isBusy();
    m_compare->setEnabled(!mine && !busy);
    // Showing a record takes over the single-run views, which a running job feeds.
    m_showLayer->setEnabled(m_state == State::Done && m_failure && m_failure->fromProbe && !busy);
    m_compare->setToolTip(mine ? tr("The comparison is running")
                          : m_compare->isEnabled()
                              ? QString()
                              : tr("Halfscope is busy; this is possible again when it ends"));
}
