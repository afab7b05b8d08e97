#include "history_browser.h"

#include <QComboBox>
#include <QDir>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QKeyEvent>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>

#include "history_table_model.h"

namespace {

bool askBeforeDeleting(QWidget* parent, const QVector<RunSummary>& runs) {
    QStringList names;
    for (const auto& r : runs) names << HistoryTableModel::displayName(r);
    const QString text =
        runs.size() == 1
            ? HistoryBrowser::tr("Delete \"%1\" and its images? This cannot be undone.")
                  .arg(names.first())
            : HistoryBrowser::tr("Delete %1 runs (%2) and their images? This cannot be undone.")
                  .arg(runs.size())
                  .arg(names.join(QStringLiteral(", ")));
    return QMessageBox::question(parent, HistoryBrowser::tr("Delete runs"), text,
                                 QMessageBox::Yes | QMessageBox::No,
                                 QMessageBox::No) == QMessageBox::Yes;
}

}  // namespace

HistoryBrowser::HistoryBrowser(RunHistory* history, QWidget* parent)
    : QWidget(parent),
      m_model(new HistoryTableModel(this)),
      m_view(new QTableView(this)),
      m_open(new QPushButton(tr("Open"), this)),
      m_rename(new QPushButton(tr("Rename"), this)),
      m_delete(new QPushButton(tr("Delete\u2026"), this)),
      m_compare(new QPushButton(tr("Compare"), this)),
      m_refresh(new QPushButton(tr("Refresh"), this)),
      m_modelFilter(new QComboBox(this)),
      m_message(new QLabel(this)),
      m_live(new QTimer(this)),
      m_confirm(askBeforeDeleting) {
    m_view->setObjectName("runs");
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    // Double click opens; renaming is F2, the button, or a click on an already selected name.
    m_view->setEditTriggers(QAbstractItemView::EditKeyPressed | QAbstractItemView::SelectedClicked);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 8);
    m_view->setWordWrap(false);
    m_view->horizontalHeader()->setStretchLastSection(false);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_view->horizontalHeader()->setSectionResizeMode(HistoryTableModel::Compare,
                                                     QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setSectionResizeMode(HistoryTableModel::Prompt,
                                                     QHeaderView::Stretch);
    m_view->setColumnWidth(HistoryTableModel::Name, 140);
    m_view->setColumnWidth(HistoryTableModel::Date, 120);
    m_view->setColumnWidth(HistoryTableModel::Model, 140);
    m_view->setColumnWidth(HistoryTableModel::Plan, 160);
    m_view->setColumnWidth(HistoryTableModel::Verdict, 70);
    m_view->setColumnWidth(HistoryTableModel::Steps, 60);
    m_view->setColumnWidth(HistoryTableModel::State, 80);
    m_open->setObjectName("openRun");
    m_rename->setObjectName("renameRun");
    m_delete->setObjectName("deleteRuns");
    m_compare->setObjectName("compareRuns");
    m_compare->setToolTip(
        tr("Show the checked runs side by side (2 to %1)").arg(HistoryTableModel::kMaxCompare));
    m_refresh->setObjectName("refreshRuns");
    m_modelFilter->setObjectName("modelFilter");
    m_modelFilter->setToolTip(tr("Show the runs of one model only"));
    m_modelFilter->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_message->setObjectName("historyMessage");
    m_message->setWordWrap(true);
    m_message->setStyleSheet("color: #b00020;");
    m_message->hide();

    auto* buttons = new QHBoxLayout;
    for (QPushButton* b : {m_open, m_rename, m_delete}) buttons->addWidget(b);
    buttons->addSpacing(12);
    buttons->addWidget(m_compare);
    buttons->addStretch(1);
    buttons->addWidget(m_refresh);
    auto* filter = new QHBoxLayout;
    auto* filterLabel = new QLabel(tr("Model:"), this);
    filterLabel->setBuddy(m_modelFilter);
    filter->addWidget(filterLabel);
    filter->addWidget(m_modelFilter);
    filter->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(filter);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_message);
    layout->addLayout(buttons);

    connect(m_view, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        if (index.isValid() && index.column() != HistoryTableModel::Compare)
            emit openRun(m_model->run(index.row()).id);
    });
    m_view->installEventFilter(this);  // Return opens, Delete deletes
    connect(m_open, &QPushButton::clicked, this, &HistoryBrowser::openSelected);
    connect(m_rename, &QPushButton::clicked, this, &HistoryBrowser::renameSelected);
    connect(m_delete, &QPushButton::clicked, this, &HistoryBrowser::deleteSelected);
    connect(m_compare, &QPushButton::clicked, this, &HistoryBrowser::compareChecked);
    connect(m_refresh, &QPushButton::clicked, this, &HistoryBrowser::refresh);
    connect(m_modelFilter, &QComboBox::currentIndexChanged, this, [this] {
        m_model->setModelFilter(m_modelFilter->currentData().toString());
        updateButtons();
    });
    connect(m_model, &HistoryTableModel::checksChanged, this, &HistoryBrowser::updateButtons);
    connect(m_model, &HistoryTableModel::errorOccurred, this, &HistoryBrowser::showMessage);
    connect(m_model, &HistoryTableModel::compareLimitReached, this, [this] {
        showMessage(tr("Compare takes at most %1 runs; uncheck one first.")
                        .arg(HistoryTableModel::kMaxCompare));
        m_showingLimit = true;
    });
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &HistoryBrowser::updateButtons);
    // Steps of a running run change in the database (written by the worker's own RunHistory).
    m_live->setInterval(2000);
    connect(m_live, &QTimer::timeout, this, [this] {
        // Not while a name is being edited: a reset would close the editor.
        for (QWidget* w : m_view->viewport()->findChildren<QWidget*>(Qt::FindDirectChildrenOnly))
            if (w->isVisible()) return;
        if (isVisible()) refresh();
    });

    setHistory(history);
}

bool HistoryBrowser::eventFilter(QObject* watched, QEvent* event) {
    // Key presses reach the view only when it has the focus itself, not while a name editor
    // (a child of the viewport) has it, so Return in the editor still commits the new name.
    if (watched == m_view && event->type() == QEvent::KeyPress) {
        const int key = static_cast<QKeyEvent*>(event)->key();
        if (key == Qt::Key_Return || key == Qt::Key_Enter) {
            openSelected();
            return true;
        }
        if (key == Qt::Key_Delete) {
            deleteSelected();
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void HistoryBrowser::setHistory(RunHistory* history) {
    m_history = history;
    m_model->setHistory(history);
    refresh();
}

void HistoryBrowser::refresh() {
    const QVector<qint64> selected = selectedRuns();
    const bool ok = m_model->reload();
    fillModelFilter();
    if (!ok)
        showMessage(m_model->lastError());
    else if (m_history && !m_history->isOpen())
        showMessage(m_history->errorString());
    else
        showMessage(QString());
    for (qint64 id : selected) {
        const int row = m_model->rowOf(id);
        if (row >= 0)
            m_view->selectionModel()->select(
                m_model->index(row, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    }
    if (m_model->hasRunning())
        m_live->start();
    else
        m_live->stop();
    updateButtons();
}

void HistoryBrowser::fillModelFilter() {
    QStringList models = m_model->models();
    models.removeAll(QString());  // runs saved without a model show under "All models" only
    QString picked = m_model->modelFilter();
    if (!models.contains(picked)) picked.clear();
    // Two models of the same name in different folders show their paths.
    QStringList names;
    for (const QString& m : models) names << HistoryTableModel::modelName(m);
    {
        const QSignalBlocker quiet(m_modelFilter);
        m_modelFilter->clear();
        m_modelFilter->addItem(tr("All models"), QString());
        for (int i = 0; i < models.size(); ++i) {
            const QString path = QDir::toNativeSeparators(models[i]);
            m_modelFilter->addItem(names.count(names[i]) > 1 ? path : names[i], models[i]);
            m_modelFilter->setItemData(i + 1, path, Qt::ToolTipRole);
        }
        m_modelFilter->setCurrentIndex(std::max(0, m_modelFilter->findData(picked)));
    }
    m_model->setModelFilter(picked);
}

void HistoryBrowser::showMessage(const QString& text) {
    m_showingLimit = false;
    m_message->setText(text);
    m_message->setVisible(!text.isEmpty());
}

QString HistoryBrowser::message() const {
    return m_message->isHidden() ? QString() : m_message->text();
}

int HistoryBrowser::rowCount() const {
    return m_model->rowCount();
}

qint64 HistoryBrowser::runAt(int row) const {
    return row >= 0 && row < m_model->rowCount() ? m_model->run(row).id : -1;
}

QVector<qint64> HistoryBrowser::checkedRuns() const {
    return m_model->checkedIds();
}

bool HistoryBrowser::setChecked(qint64 id, bool checked) {
    return m_model->setChecked(id, checked);
}

QVector<qint64> HistoryBrowser::selectedRuns() const {
    QVector<qint64> ids;
    for (const QModelIndex& i : m_view->selectionModel()->selectedRows())
        ids << m_model->run(i.row()).id;
    std::sort(ids.begin(), ids.end(),
              [this](qint64 a, qint64 b) { return m_model->rowOf(a) < m_model->rowOf(b); });
    return ids;
}

void HistoryBrowser::selectRun(qint64 id) {
    const int row = m_model->rowOf(id);
    if (row < 0) return;
    m_view->selectionModel()->setCurrentIndex(
        m_model->index(row, HistoryTableModel::Name),
        QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

void HistoryBrowser::updateButtons() {
    const int selected = int(m_view->selectionModel()->selectedRows().size());
    const int checked = int(m_model->checkedIds().size());
    m_open->setEnabled(selected >= 1);
    m_rename->setEnabled(selected == 1);
    m_delete->setEnabled(selected >= 1);
    m_compare->setEnabled(checked >= 2 && checked <= HistoryTableModel::kMaxCompare);
    m_compare->setText(checked > 0 ? tr("Compare (%1)").arg(checked) : tr("Compare"));
    if (m_showingLimit && checked < HistoryTableModel::kMaxCompare) showMessage(QString());
}

void HistoryBrowser::openSelected() {
    const QVector<qint64> ids = selectedRuns();
    if (!ids.isEmpty()) emit openRun(ids.first());
}

void HistoryBrowser::renameSelected() {
    const QVector<qint64> ids = selectedRuns();
    if (ids.size() != 1) return;
    const QModelIndex index = m_model->index(m_model->rowOf(ids.first()), HistoryTableModel::Name);
    m_view->setCurrentIndex(index);
    m_view->edit(index);
}

void HistoryBrowser::deleteSelected() {
    const QVector<qint64> ids = selectedRuns();
    if (ids.isEmpty() || !m_history) return;
    QVector<RunSummary> runs;
    for (qint64 id : ids) runs << m_model->run(m_model->rowOf(id));
    if (m_confirm && !m_confirm(this, runs)) return;
    QVector<qint64> deleted;
    QStringList errors;
    for (qint64 id : ids) {
        if (m_history->remove(id))
            deleted << id;
        else
            errors << m_history->errorString();
    }
    refresh();
    if (!errors.isEmpty()) showMessage(errors.join('\n'));
    if (!deleted.isEmpty()) emit runsDeleted(deleted);
}

void HistoryBrowser::compareChecked() {
    const QVector<qint64> ids = m_model->checkedIds();
    if (ids.size() >= 2 && ids.size() <= HistoryTableModel::kMaxCompare) emit compareRequested(ids);
}
