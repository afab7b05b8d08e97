#include "fix_panel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>

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

    auto* form = new QFormLayout;
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
    m_result =
        new QLabel(tr("Run a failing plan, then find the cheapest plan that fixes it."), this);
    m_result->setWordWrap(true);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);

    // Settings and result on the left, the trials on the right: the panel sits in a wide, short
    // dock beside the log.
    auto* left = new QVBoxLayout;
    left->addLayout(form);
    left->addLayout(buttons);
    left->addWidget(m_result);
    left->addStretch(1);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 2, 4, 2);
    layout->addLayout(left, 2);
    layout->addWidget(m_trials, 3);
    m_trials->setMinimumHeight(60);

    connect(m_find, &QPushButton::clicked, this, [this] { emit findRequested(settings()); });
    connect(m_apply, &QPushButton::clicked, this, [this] {
        if (!m_plan.isEmpty()) emit applyRequested(m_plan);
    });
}

FixSettings FixPanel::settings() const {
    FixSettings s;
    s.safeFormat = hs::Format(m_safe->currentData().toInt());
    s.trialSteps = m_steps->value();
    s.maxIterations = m_iterations->value();
    s.tolerance = m_tolerance->value();
    return s;
}

void FixPanel::setRunning(bool running) {
    m_find->setEnabled(!running);
    if (running) {
        m_trials->setRowCount(0);
        m_plan.clear();
        m_apply->setEnabled(false);
        m_result->setText(tr("Searching..."));
    }
}

void FixPanel::addTrial(const hs::BisectionTrial& t) {
    const int row = m_trials->rowCount();
    m_trials->insertRow(row);
    QString outcome = t.passed ? tr("pass") : tr("fail");
    if (!t.outcome.error.empty())
        outcome += " — " + QString::fromStdString(t.outcome.error);
    else if (!t.outcome.verdict.empty())
        outcome += " — " + QString::fromStdString(t.outcome.verdict);
    if (std::isfinite(t.outcome.difference))
        outcome += tr(", difference %1").arg(t.outcome.difference, 0, 'f', 3);
    QStringList blocks;
    for (const auto& b : t.safeBlocks) blocks << QString::fromStdString(b);
    const QStringList cells = {QString::number(t.iteration), QString::fromStdString(t.phase),
                               outcome, blocks.join(", ")};
    for (int c = 0; c < cells.size(); ++c) {
        auto* item = new QTableWidgetItem(cells[c]);
        item->setToolTip(QString::fromStdString(t.planText + "\n" + t.why));
        if (c == 2) item->setForeground(t.passed ? QColor(0, 120, 40) : QColor(190, 20, 20));
        m_trials->setItem(row, c, item);
    }
    m_trials->scrollToBottom();
}

void FixPanel::setResult(const hs::BisectionResult& r) {
    m_find->setEnabled(true);
    m_plan = r.found ? QString::fromStdString(r.planText) : QString();
    m_apply->setEnabled(r.found);
    QString text = QString::fromStdString(r.message);
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
