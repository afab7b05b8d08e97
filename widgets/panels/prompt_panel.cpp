#include "prompt_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QShortcut>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>

#include "ctl_seed_edit.h"
#include "ctl_snap_spin_box.h"
#include "ctl_style.h"

namespace {

QPlainTextEdit* textEdit(const QString& name, const QString& placeholder, int lines,
                         QWidget* parent) {
    auto* e = new QPlainTextEdit(parent);
    e->setObjectName(name);
    e->setPlaceholderText(placeholder);
    e->setTabChangesFocus(true);
    const int h = e->fontMetrics().lineSpacing() * lines + 12;
    e->setMinimumHeight(h);
    e->setMaximumHeight(h * 2);
    return e;
}

QString secondsText(double s) {
    if (s < 0.1) return PromptPanel::tr("%1 ms/step").arg(s * 1000.0, 0, 'f', 0);
    if (s < 60) return PromptPanel::tr("%1 s/step").arg(s, 0, 'f', 2);
    return PromptPanel::tr("%1 min/step").arg(s / 60.0, 0, 'f', 1);
}

}  // namespace

PromptPanel::PromptPanel(QWidget* parent)
    : QWidget(parent),
      m_prompt(textEdit("prompt", tr("Prompt (may be empty: the model then draws unconditionally)"),
                        3, this)),
      m_negative(
          textEdit("negativePrompt", tr("Negative prompt (used when guidance > 1)"), 2, this)),
      m_note(new QLabel(this)),
      m_seed(new SeedEdit(this)),
      m_steps(new QSpinBox(this)),
      m_guidance(new QDoubleSpinBox(this)),
      m_width(new SnapSpinBox(this)),
      m_height(new SnapSpinBox(this)),
      m_sizeHint(new QLabel(this)),
      m_sampler(new QComboBox(this)),
      m_samplerLabel(new QLabel(tr("Sampler"), this)),
      m_shiftOn(new QCheckBox(tr("Override"), this)),
      m_shift(new QDoubleSpinBox(this)),
      m_decodeEvery(new QSpinBox(this)),
      m_probeLevel(new QComboBox(this)),
      m_generate(new QPushButton(tr("Generate"), this)),
      m_stop(new QPushButton(tr("Stop"), this)),
      m_progress(new QProgressBar(this)),
      m_forecast(new QLabel(this)) {
    m_note->setObjectName("promptNote");
    m_note->setWordWrap(true);
    m_note->setStyleSheet("color: #a05a00;");
    m_note->hide();

    m_steps->setObjectName("steps");
    m_steps->setRange(1, 1000);
    m_steps->setValue(20);
    m_guidance->setObjectName("guidance");
    m_guidance->setRange(0.0, 30.0);
    m_guidance->setSingleStep(0.5);
    m_guidance->setDecimals(2);
    m_guidance->setValue(4.0);
    m_guidance->setToolTip(
        tr("Classifier-free guidance scale. 1 or less turns guidance off: "
           "one model pass per step and the negative prompt is not used."));
    m_width->setObjectName("width");
    m_height->setObjectName("height");
    m_sizeHint->setObjectName("sizeHint");
    ctl::setSubtle(m_sizeHint);
    setSizeConstraints(16, 16, 2048);
    m_width->setValue(64);
    m_height->setValue(64);
    m_sampler->setObjectName("sampler");
    m_sampler->setToolTip(
        tr("The scheduler of the run. The model's own is what its files name; the others keep "
           "its training schedule and prediction type, as diffusers' from_config does."));
    setSamplers({}, {});
    m_shiftOn->setObjectName("shiftOverride");
    m_shiftOn->setToolTip(tr("Replace the scheduler's shift from the model's configuration"));
    m_shift->setObjectName("shift");
    m_shift->setRange(0.01, 100.0);
    m_shift->setDecimals(2);
    m_shift->setSingleStep(0.25);
    m_shift->setValue(3.0);
    m_shift->setEnabled(false);
    m_decodeEvery->setObjectName("decodeEvery");
    m_decodeEvery->setRange(0, 1000);
    m_decodeEvery->setSpecialValueText(tr("never"));
    m_decodeEvery->setPrefix(tr("every "));
    m_decodeEvery->setSuffix(tr(" steps"));
    m_decodeEvery->setToolTip(
        tr("Run the full VAE decode of the current estimate every k steps "
           "(slow; the cheap latent preview is shown at every step)"));
    m_probeLevel->setObjectName("probeLevel");
    m_probeLevel->addItem(tr("Off"), int(hs::ProbeLevel::Off));
    m_probeLevel->addItem(tr("Modules"), int(hs::ProbeLevel::Module));
    m_probeLevel->addItem(tr("Layers"), int(hs::ProbeLevel::Layer));
    m_probeLevel->addItem(tr("Every op"), int(hs::ProbeLevel::Op));
    m_probeLevel->setCurrentIndex(2);
    m_probeLevel->setToolTip(
        tr("How finely activations are recorded. Layers finds the first "
           "layer that overflows; every op is slower."));

    m_generate->setObjectName("generate");
    m_generate->setDefault(true);
    m_generate->setToolTip(tr("Start a run (Ctrl+Return)"));
    m_stop->setObjectName("stop");
    m_stop->setEnabled(false);
    m_progress->setObjectName("progress");
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_progress->setTextVisible(true);
    m_progress->setFormat(tr("idle"));
    m_forecast->setObjectName("forecast");
    m_forecast->setWordWrap(true);
    ctl::setSubtle(m_forecast);
    m_forecast->hide();

    auto* size = new QHBoxLayout;
    size->addWidget(m_width, 1);
    size->addWidget(new QLabel(QStringLiteral("\u00d7"), this));
    size->addWidget(m_height, 1);
    auto* shift = new QHBoxLayout;
    shift->addWidget(m_shiftOn);
    shift->addWidget(m_shift, 1);
    auto* form = new QFormLayout;
    form->addRow(tr("Seed"), m_seed);
    form->addRow(tr("Steps"), m_steps);
    form->addRow(tr("Guidance"), m_guidance);
    form->addRow(tr("Size"), size);
    form->addRow(QString(), m_sizeHint);
    form->addRow(m_samplerLabel, m_sampler);
    form->addRow(tr("Shift"), shift);
    form->addRow(tr("Full decode"), m_decodeEvery);
    form->addRow(tr("Probes"), m_probeLevel);
    // Generate, Stop, the progress and the forecast: one widget the window may keep in sight.
    m_runBar = new QWidget(this);
    m_runBar->setObjectName("runBar");
    auto* runBar = new QVBoxLayout(m_runBar);
    runBar->setContentsMargins(0, 0, 0, 0);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_generate, 1);
    buttons->addWidget(m_stop);
    runBar->addLayout(buttons);
    runBar->addWidget(m_progress);
    runBar->addWidget(m_forecast);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(tr("Prompt"), this));
    layout->addWidget(m_prompt, 2);
    layout->addWidget(new QLabel(tr("Negative prompt"), this));
    layout->addWidget(m_negative, 1);
    layout->addWidget(m_note);
    layout->addLayout(form);
    layout->addWidget(m_runBar);
    layout->addStretch(0);

    connect(m_prompt, &QPlainTextEdit::textChanged, this, &PromptPanel::updateNote);
    connect(m_negative, &QPlainTextEdit::textChanged, this, &PromptPanel::updateNote);
    connect(m_shiftOn, &QCheckBox::toggled, m_shift, &QWidget::setEnabled);
    connect(m_generate, &QPushButton::clicked, this, &PromptPanel::requestGenerate);
    connect(m_stop, &QPushButton::clicked, this, [this] {
        if (m_running) emit stopRequested();
    });
    // What a forecast of the next run depends on.
    auto changed = [this] { emit runSettingsChanged(); };
    connect(m_steps, &QSpinBox::valueChanged, this, changed);
    connect(m_guidance, &QDoubleSpinBox::valueChanged, this, changed);
    connect(m_width, &QSpinBox::valueChanged, this, changed);
    connect(m_height, &QSpinBox::valueChanged, this, changed);
    connect(m_decodeEvery, &QSpinBox::valueChanged, this, changed);
    auto* shortcut = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return), this);
    shortcut->setContext(Qt::WidgetWithChildrenShortcut);
    connect(shortcut, &QShortcut::activated, this, &PromptPanel::requestGenerate);
}

void PromptPanel::requestGenerate() {
    if (m_running) return;
    // A size typed but not yet confirmed (Ctrl+Return from the field) counts.
    m_width->interpretText();
    m_height->interpretText();
    emit generateRequested();
}

void PromptPanel::applyTo(hs::RunConfig& c) const {
    c.prompt = m_prompt->toPlainText().toStdString();
    c.negativePrompt =
        m_negativeSupported ? m_negative->toPlainText().toStdString() : std::string();
    c.seed = m_seed->value();
    c.steps = m_steps->value();
    c.guidance = m_guidance->value();
    c.width = m_width->snapped(m_width->value());
    c.height = m_height->snapped(m_height->value());
    c.scheduler = m_sampler->currentData().toString().toStdString();
    if (m_shiftOn->isChecked())
        c.shift = m_shift->value();
    else
        c.shift.reset();
    c.decodeEvery = m_decodeEvery->value();
    c.probeLevel = hs::ProbeLevel(m_probeLevel->currentData().toInt());
}

void PromptPanel::setFrom(const hs::RunConfig& c) {
    m_prompt->setPlainText(QString::fromStdString(c.prompt));
    if (m_negativeSupported)
        m_negative->setPlainText(QString::fromStdString(c.negativePrompt));
    else if (!c.negativePrompt.empty())
        m_negativeKept = QString::fromStdString(c.negativePrompt);
    m_seed->setValue(c.seed);
    m_steps->setValue(c.steps);
    m_guidance->setValue(c.guidance);
    m_width->setValue(m_width->snapped(c.width));
    m_height->setValue(m_height->snapped(c.height));
    const int sampler = m_sampler->findData(QString::fromStdString(c.scheduler));
    m_sampler->setCurrentIndex(sampler >= 0 ? sampler : 0);
    m_shiftOn->setChecked(c.shift.has_value());
    if (c.shift) m_shift->setValue(*c.shift);
    m_decodeEvery->setValue(c.decodeEvery);
    const int i = m_probeLevel->findData(int(c.probeLevel));
    if (i >= 0) m_probeLevel->setCurrentIndex(i);
}

void PromptPanel::setNegativePromptSupported(bool supported, const QString& why) {
    if (supported == m_negativeSupported) {
        if (!supported) m_negative->setToolTip(why);
        return;
    }
    m_negativeSupported = supported;
    if (supported) {
        m_negative->setPlainText(m_negativeKept);
        m_negativeKept.clear();
        m_negative->setPlaceholderText(tr("Negative prompt (used when guidance > 1)"));
        m_negative->setToolTip(QString());
    } else {
        m_negativeKept = m_negative->toPlainText();
        m_negative->clear();
        m_negative->setPlaceholderText(tr("This model takes no negative prompt"));
        m_negative->setToolTip(why);
    }
    m_negative->setEnabled(supported);
}

void PromptPanel::setSamplers(const QStringList& ids, const QStringList& labels) {
    const QString current = m_sampler->currentData().toString();
    m_sampler->clear();
    m_sampler->addItem(tr("The model's own"), QString());
    for (int i = 0; i < ids.size(); ++i)
        m_sampler->addItem(i < labels.size() ? labels[i] : ids[i], ids[i]);
    const int kept = m_sampler->findData(current);
    m_sampler->setCurrentIndex(kept >= 0 ? kept : 0);
    m_sampler->setVisible(!ids.isEmpty());
    m_samplerLabel->setVisible(!ids.isEmpty());
}

void PromptPanel::setSizeConstraints(int multiple, int minSize, int maxSize) {
    m_width->setConstraints(multiple, minSize, maxSize);
    m_height->setConstraints(multiple, minSize, maxSize);
    m_sizeHint->setText(tr("multiples of %1, from %2 to %3 pixels")
                            .arg(m_width->multiple())
                            .arg(m_width->minimum())
                            .arg(m_width->maximum()));
}

void PromptPanel::setPromptLimits(int noteAboveChars, int maxTokens) {
    m_noteAboveChars = noteAboveChars;
    m_maxTokens = maxTokens;
    updateNote();
}

bool PromptPanel::truncationNoteShown() const {
    return !m_note->isHidden();
}

void PromptPanel::setVocabulary(const QStringList& words) {
    m_vocabulary = QSet<QString>(words.begin(), words.end());
    updateNote();
}

QStringList PromptPanel::wordsNotUnderstood() const {
    QStringList unknown;
    if (m_vocabulary.isEmpty()) return unknown;
    // Words as the CLIP tokenizer splits them: letter runs, single digits, punctuation runs.
    static const QRegularExpression word(R"([\p{L}]+|\p{N}|[^\s\p{L}\p{N}]+)");
    for (const QString& text : {m_prompt->toPlainText(), m_negative->toPlainText()})
        for (auto it = word.globalMatch(text.toLower()); it.hasNext();) {
            const QString w = it.next().captured();
            if (!m_vocabulary.contains(w) && !unknown.contains(w)) unknown << w;
        }
    return unknown;
}

void PromptPanel::updateNote() {
    const int p = m_prompt->toPlainText().size();
    const int n = m_negative->toPlainText().size();
    QStringList notes;
    if (p > m_noteAboveChars)
        notes << tr("The prompt has %1 characters. The text encoder reads at most %2 tokens; "
                    "the rest will be cut off.")
                     .arg(p)
                     .arg(m_maxTokens);
    if (n > m_noteAboveChars)
        notes << tr("The negative prompt has %1 characters. The text encoder reads at most %2 "
                    "tokens; the rest will be cut off.")
                     .arg(n)
                     .arg(m_maxTokens);
    const QStringList unknown = wordsNotUnderstood();
    if (!unknown.isEmpty())
        notes << tr("Not understood by the demo model: %1. It knows only the words of its "
                    "shapes, colours, sizes, positions and backgrounds; other words are ignored "
                    "at best.")
                     .arg(unknown.join(", "));
    ctl::setShownText(m_note, notes.join('\n'));
}

void PromptPanel::setRunning(bool running) {
    m_running = running;
    m_generate->setEnabled(!running);
    m_stop->setEnabled(running);
    if (running) {
        m_progress->setRange(0, 0);  // busy until the first step reports
        m_progress->setFormat(tr("starting\u2026"));
    } else if (m_lastSteps > 0) {
        m_progress->setRange(0, m_lastSteps);
        m_progress->setValue(m_lastStep);
    } else if (m_stageShown) {
        // Work without steps (a load, a decode): its last stage stays readable, the bar stops.
        m_progress->setRange(0, 1);
        m_progress->setValue(0);
    } else {
        m_progress->setRange(0, 1);
        m_progress->setValue(0);
        m_progress->setFormat(tr("idle"));
    }
    if (running) {
        m_stageShown = false;
        m_lastStep = m_lastSteps = 0;
        m_estimate.clear();
    }
}

void PromptPanel::setProgress(int step, int steps, double secondsPerStep, const QString& run) {
    m_lastStep = std::clamp(step, 0, std::max(steps, 0));
    m_lastSteps = std::max(steps, 0);
    m_progress->setRange(0, std::max(m_lastSteps, 1));
    m_progress->setValue(m_lastStep);
    // Steps are numbered from 0 as in the log, the heatmap, the CLI and the reports; the count
    // done beside it ("step 2 (3/20 done)").
    QString text =
        m_lastStep > 0
            ? tr("step %1 (%2/%3 done)").arg(m_lastStep - 1).arg(m_lastStep).arg(m_lastSteps)
            : tr("%1/%2 done").arg(0).arg(m_lastSteps);
    if (!run.isEmpty()) text = run + QStringLiteral(": ") + text;
    if (secondsPerStep > 0) text += QStringLiteral(" \u00b7 ") + secondsText(secondsPerStep);
    if (!m_estimate.isEmpty()) text += QStringLiteral(" \u00b7 ") + m_estimate;
    m_progress->setFormat(text);
}

void PromptPanel::setEstimate(const QString& estimate) {
    m_estimate = estimate;
    QString text = m_progress->format();
    if (m_lastSteps > 0 && !text.contains(estimate))
        m_progress->setFormat(text + QStringLiteral(" \u00b7 ") + estimate);
}

void PromptPanel::setForecast(const QString& forecast) {
    ctl::setShownText(m_forecast, forecast);
}

QString PromptPanel::forecastText() const {
    return ctl::shownText(m_forecast);
}

QString PromptPanel::progressText() const {
    return m_progress->format();
}

void PromptPanel::setStage(const QString& stage) {
    m_stageShown = true;
    if (m_lastSteps == 0 && m_running) m_progress->setRange(0, 0);
    m_progress->setFormat(stage);
}
