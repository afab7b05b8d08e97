#include "fix_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "diagnosis/image_verdict.h"
#include "engine_text.h"

namespace {

// Apply comes second: it stays in view when the long cost text needs the horizontal scroll bar.
enum RemedyColumn { Rank, Apply, Action, Result, Changes, Difference, Psnr, SecondsPerStep, Cost };

// The remedy kinds the panel offers, in the order of their check boxes, with each box's label
// and tooltip (translated in FixPanel's context).
struct RemedyKindText {
    hs::RemedyKind kind;
    const char* label;
    const char* tip;
};
const RemedyKindText kRemedyKinds[] = {
    {hs::RemedyKind::Format, QT_TRANSLATE_NOOP("FixPanel", "format"),
     QT_TRANSLATE_NOOP("FixPanel", "The failing blocks in bf16, and in fp32 (bisection first)")},
    {hs::RemedyKind::Clamp, QT_TRANSLATE_NOOP("FixPanel", "clamp"),
     QT_TRANSLATE_NOOP("FixPanel",
                       "PATH=clamp: outputs and residual sums clipped to fp16's range, "
                       "as diffusers does")},
    {hs::RemedyKind::Scale, QT_TRANSLATE_NOOP("FixPanel", "scale"),
     QT_TRANSLATE_NOOP("FixPanel",
                       "PATH=scale:K: activations scaled by 2^-K inside the module, K "
                       "from the reference run's largest value there")},
    {hs::RemedyKind::Fp32Residual, QT_TRANSLATE_NOOP("FixPanel", "fp32 residual"),
     QT_TRANSLATE_NOOP("FixPanel",
                       "PATH=fp32-residual: the residual stream summed in fp32, as "
                       "ComfyUI does for Cosmos and Anima")},
};

QString number(double v, int decimals) {
    if (std::isnan(v)) return QStringLiteral("—");
    if (std::isinf(v)) return v > 0 ? QStringLiteral("∞") : QStringLiteral("-∞");
    return QString::number(v, 'f', decimals);
}

}  // namespace

FixPanel::FixPanel(QWidget* parent) : QWidget(parent) {
    qRegisterMetaType<FixSettings>();
    m_safe = new QComboBox(this);
    m_safe->addItem(tr("bf16"), int(hs::Format::BF16));
    m_safe->addItem(tr("fp32"), int(hs::Format::FP32));
    m_safe->setToolTip(tr("bf16 has fp32's range at half the memory; fp32 also its precision"));
    m_steps = new QSpinBox(this);
    m_steps->setRange(1, 200);
    m_steps->setValue(8);
    m_steps->setToolTip(tr("Sampling steps of each trial run: fewer steps make the search faster"));
    m_iterations = new QSpinBox(this);
    m_iterations->setRange(1, 200);
    m_iterations->setValue(24);
    m_tolerance = new QDoubleSpinBox(this);
    m_tolerance->setRange(0.0, 1.0);
    m_tolerance->setDecimals(3);
    m_tolerance->setSingleStep(0.01);
    m_tolerance->setValue(0.05);
    m_tolerance->setToolTip(tr("Largest mean pixel difference to the reference run that passes"));

    auto* kinds = new QHBoxLayout;
    kinds->setSpacing(6);
    for (const RemedyKindText& k : kRemedyKinds) {
        auto* box = new QCheckBox(tr(k.label), this);
        box->setObjectName(QString::fromStdString("remedy-" + hs::remedyKindName(k.kind)));
        box->setToolTip(tr(k.tip));
        box->setChecked(true);
        kinds->addWidget(box);
        m_kinds.emplace_back(k.kind, box);
    }
    kinds->addStretch(1);

    auto* form = new QFormLayout;
    form->addRow(tr("Remedies to try"), kinds);
    form->addRow(tr("Blocks leave fp16 for"), m_safe);
    form->addRow(tr("Steps per trial"), m_steps);
    form->addRow(tr("Most trials"), m_iterations);
    form->addRow(tr("Tolerance"), m_tolerance);

    m_find = new QPushButton(tr("Find minimal fix"), this);
    m_find->setToolTip(
        tr("Bisect over the blocks of the fp16 components, as Polygraphy does, "
           "for the fewest that must run in the safe format"));
    m_apply = new QPushButton(tr("Apply plan"), this);
    m_apply->setEnabled(false);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_find);
    buttons->addWidget(m_apply);
    buttons->addStretch(1);

    m_trials = new QTableWidget(0, 4, this);
    m_trials->setHorizontalHeaderLabels(
        {tr("#"), tr("Phase"), tr("Outcome"), tr("Blocks kept safe")});
    m_trials->horizontalHeader()->setStretchLastSection(true);
    m_trials->verticalHeader()->hide();
    m_trials->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_remedies = new QTableWidget(0, Cost + 1, this);
    m_remedies->setObjectName("remedies");
    m_remedies->setHorizontalHeaderLabels({tr("#"), QString(), tr("Remedy"), tr("Result"),
                                           tr("Changes"), tr("Image difference"), tr("PSNR dB"),
                                           tr("s/step here"), tr("Cost on the target")});
    m_remedies->verticalHeader()->hide();
    m_remedies->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_remedies->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_remedies->setSelectionMode(QAbstractItemView::SingleSelection);
    m_remedies->setWordWrap(false);
    m_remedies->setTextElideMode(Qt::ElideNone);
    // Every column as wide as its text (nothing elided); a long cost scrolls sideways.
    auto* header = m_remedies->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setStretchLastSection(true);
    header->setMinimumSectionSize(24);
    m_remedies->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_applyRow = new QPushButton(tr("Apply selected"), this);
    m_applyRow->setObjectName("applyRemedy");
    m_applyRow->setEnabled(false);
    m_compare = new QPushButton(tr("Compare top rows"), this);
    m_compare->setObjectName("compareRemedies");
    m_compare->setToolTip(
        tr("Run the best passing plans (2 or 3) side by side in the compare tab"));
    m_compare->setEnabled(false);
    auto* remedyButtons = new QHBoxLayout;
    remedyButtons->addWidget(m_applyRow);
    remedyButtons->addWidget(m_compare);
    remedyButtons->addStretch(1);
    auto* remedyPage = new QWidget(this);
    auto* remedyLayout = new QVBoxLayout(remedyPage);
    remedyLayout->setContentsMargins(0, 0, 0, 0);
    remedyLayout->addWidget(m_remedies, 1);
    remedyLayout->addLayout(remedyButtons);

    m_tabs = new QTabWidget(this);
    m_tabs->addTab(remedyPage, tr("Ranked remedies"));
    m_tabs->addTab(m_trials, tr("Bisection trials"));
    m_tabs->setCurrentIndex(1);

    m_result =
        new QLabel(tr("Run a failing plan, then find the cheapest plan that fixes it."), this);
    m_result->setWordWrap(true);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);

    // Settings and result on the left, the trials on the right: the panel sits in a wide, short
    // dock beside the log.
    // The settings keep to a column of their own width; the tables get the rest of the dock.
    auto* settingsBox = new QWidget(this);
    settingsBox->setMaximumWidth(440);
    auto* left = new QVBoxLayout(settingsBox);
    left->setContentsMargins(0, 0, 0, 0);
    left->addLayout(form);
    left->addLayout(buttons);
    left->addWidget(m_result);
    left->addStretch(1);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 2, 4, 2);
    layout->addWidget(settingsBox, 1);
    layout->addWidget(m_tabs, 3);
    m_trials->setMinimumHeight(60);
    m_remedies->setMinimumHeight(60);

    connect(m_find, &QPushButton::clicked, this, [this] { emit findRequested(settings()); });
    connect(m_apply, &QPushButton::clicked, this, [this] {
        if (!m_plan.isEmpty()) emit applyRequested(m_plan);
    });
    connect(m_remedies, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        if (row >= 0 && row < int(m_rows.size())) emit applyRequested(remedyPlan(row));
    });
    connect(m_remedies, &QTableWidget::itemSelectionChanged, this,
            [this] { updateRemedyButtons(); });
    connect(m_applyRow, &QPushButton::clicked, this, [this] {
        const int row = m_remedies->currentRow();
        if (row >= 0 && row < int(m_rows.size())) emit applyRequested(remedyPlan(row));
    });
    connect(m_compare, &QPushButton::clicked, this, [this] {
        const QStringList plans = topPassingPlans(3);
        if (plans.size() >= 2) emit compareRequested(plans);
    });
}

FixSettings FixPanel::settings() const {
    FixSettings s;
    s.safeFormat = hs::Format(m_safe->currentData().toInt());
    s.trialSteps = m_steps->value();
    s.maxIterations = m_iterations->value();
    s.tolerance = m_tolerance->value();
    for (const auto& [kind, box] : m_kinds)
        if (box->isChecked()) s.remedies.push_back(kind);
    return s;
}

void FixPanel::setRunning(bool running) {
    m_find->setEnabled(!running);
    if (running) {
        m_trials->setRowCount(0);
        m_remedies->setRowCount(0);
        m_rows.clear();
        updateRemedyButtons();
        m_tabs->setCurrentIndex(1);
        m_plan.clear();
        m_apply->setEnabled(false);
        m_result->setText(tr("Searching..."));
    }
}

namespace {

// A trial's verdict name ("ok", "nan/inf") in the studio's language.
QString verdictText(const std::string& verdict) {
    return engine_text::text(hs::verdictNameMessage(verdict));
}

}  // namespace

void FixPanel::addTrial(const hs::BisectionTrial& t) {
    const int row = m_trials->rowCount();
    m_trials->insertRow(row);
    QString outcome = t.passed ? tr("pass") : tr("fail");
    if (!t.outcome.error.empty())
        outcome += " — " + QString::fromStdString(t.outcome.error);
    else if (!t.outcome.verdict.empty())
        outcome += " — " + verdictText(t.outcome.verdict);
    if (std::isfinite(t.outcome.difference))
        outcome += tr(", difference %1").arg(t.outcome.difference, 0, 'f', 3);
    QStringList blocks;
    for (const auto& b : t.safeBlocks) blocks << QString::fromStdString(b);
    const QStringList cells = {QString::number(t.iteration), engine_text::name(t.phase), outcome,
                               blocks.join(", ")};
    for (int c = 0; c < cells.size(); ++c) {
        auto* item = new QTableWidgetItem(cells[c]);
        item->setToolTip(QString::fromStdString(t.planText) + "\n" +
                         engine_text::text(t.whyMessage, t.why));
        if (c == 2) item->setForeground(t.passed ? QColor(0, 120, 40) : QColor(190, 20, 20));
        m_trials->setItem(row, c, item);
    }
    m_trials->scrollToBottom();
}

void FixPanel::setResult(const hs::BisectionResult& r) {
    m_find->setEnabled(true);
    m_plan = r.found ? QString::fromStdString(r.planText) : QString();
    m_apply->setEnabled(r.found);
    QString text = engine_text::text(r.messageText, r.message);
    if (r.found) text += "\n" + tr("Plan: %1").arg(m_plan);
    m_result->setText(text);
}

void FixPanel::setMessage(const QString& text) {
    m_find->setEnabled(true);
    m_result->setText(text);
}

int FixPanel::trialCount() const {
    return m_trials->rowCount();
}

QString FixPanel::resultText() const {
    return m_result->text();
}

void FixPanel::addRemedy(const hs::RemedyRow& r) {
    const int row = m_remedies->rowCount();
    m_remedies->insertRow(row);
    m_rows.push_back(r);
    showRemedyRow(row, r);
    m_tabs->setCurrentIndex(0);
    m_remedies->scrollToBottom();
    updateRemedyButtons();
}

void FixPanel::setRemedies(const hs::RemedyTable& table) {
    m_remedies->setRowCount(0);
    m_rows = table.rows;
    m_remedies->setRowCount(int(m_rows.size()));
    for (int i = 0; i < int(m_rows.size()); ++i) showRemedyRow(i, m_rows[size_t(i)]);
    if (!m_rows.empty()) m_tabs->setCurrentIndex(0);
    m_find->setEnabled(true);
    QString text = m_result->text();
    if (text == tr("Searching...")) text.clear();
    if (!table.message.empty())
        text += (text.isEmpty() ? "" : "\n") + engine_text::text(table.messageText, table.message);
    if (!table.target.empty())
        text += "\n" + tr("Costs for: %1").arg(QString::fromStdString(table.target));
    m_result->setText(text);
    updateRemedyButtons();
}

void FixPanel::showRemedyRow(int row, const hs::RemedyRow& r) {
    QString result = r.passed ? tr("pass") : tr("fail");
    if (!r.outcome.error.empty())
        result += " — " + QString::fromStdString(r.outcome.error);
    else if (!r.outcome.verdict.empty())
        result += " — " + verdictText(r.outcome.verdict);
    const QString tip =
        QString::fromStdString(r.planText) + "\n" + engine_text::text(r.whyMessage, r.why);
    const QStringList cells = {
        r.rank > 0 ? QString::number(r.rank) : QStringLiteral("…"),
        QString(),
        engine_text::text(hs::remedyActionMessage(r.candidate), hs::remedyAction(r.candidate)),
        result,
        QString::number(r.candidate.changes),
        number(r.outcome.difference, 4),
        number(r.psnr, 1),
        r.secondsPerStep > 0 ? QString::number(r.secondsPerStep, 'f', 3) : QStringLiteral("—"),
        engine_text::text(r.costMessage, r.cost)};
    for (int c = 0; c < cells.size(); ++c) {
        auto* item = new QTableWidgetItem(cells[c]);
        item->setToolTip(tip);
        if (c == Result) item->setForeground(r.passed ? QColor(0, 120, 40) : QColor(190, 20, 20));
        if (c == Rank || c == Changes || c == Difference || c == Psnr || c == SecondsPerStep)
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_remedies->setItem(row, c, item);
    }
    auto* apply = new QPushButton(tr("Apply"), m_remedies);
    apply->setToolTip(tr("Set the precision plan to %1").arg(QString::fromStdString(r.planText)));
    const QString plan = QString::fromStdString(r.planText);
    connect(apply, &QPushButton::clicked, this, [this, plan] { emit applyRequested(plan); });
    m_remedies->setCellWidget(row, Apply, apply);
}

void FixPanel::updateRemedyButtons() {
    const int row = m_remedies->currentRow();
    m_applyRow->setEnabled(row >= 0 && row < int(m_rows.size()));
    m_compare->setEnabled(topPassingPlans(3).size() >= 2);
}

int FixPanel::remedyCount() const {
    return m_remedies->rowCount();
}

QString FixPanel::remedyPlan(int row) const {
    if (row < 0 || row >= int(m_rows.size())) return {};
    return QString::fromStdString(m_rows[size_t(row)].planText);
}

QPushButton* FixPanel::remedyApplyButton(int row) const {
    return qobject_cast<QPushButton*>(m_remedies->cellWidget(row, Apply));
}

QStringList FixPanel::topPassingPlans(int count) const {
    // Rows as they come in are unranked: order by rank when the table has them.
    std::vector<const hs::RemedyRow*> passing;
    for (const auto& r : m_rows)
        if (r.passed) passing.push_back(&r);
    std::stable_sort(passing.begin(), passing.end(), [](const auto* a, const auto* b) {
        return (a->rank > 0 ? a->rank : 1 << 30) < (b->rank > 0 ? b->rank : 1 << 30);
    });
    QStringList plans;
    for (const auto* r : passing) {
        const QString plan = QString::fromStdString(r->planText);
        if (!plans.contains(plan)) plans << plan;
        if (plans.size() == count) break;
    }
    return plans;
}
