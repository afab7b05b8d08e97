#include "history_table_model.h"

#include <QBrush>
#include <QColor>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QFont>
#include <algorithm>

namespace {

QString stateText(RunState s) {
    switch (s) {
        case RunState::Running:
            return HistoryTableModel::tr("running");
        case RunState::Finished:
            return HistoryTableModel::tr("finished");
        case RunState::Cancelled:
            return HistoryTableModel::tr("cancelled");
        case RunState::Interrupted:
            return HistoryTableModel::tr("interrupted");
    }
    return QString();
}

QString oneLine(const QString& s) {
    QString t = s.simplified();
    return t.size() > 80 ? t.left(79) + QChar(0x2026) : t;
}

}  // namespace

HistoryTableModel::HistoryTableModel(QObject* parent) : QAbstractTableModel(parent) {}

QString HistoryTableModel::displayName(const RunSummary& run) {
    return run.name.isEmpty() ? tr("Run %1").arg(run.id) : run.name;
}

QString HistoryTableModel::modelName(const QString& model) {
    if (model.isEmpty()) return QStringLiteral("\u2014");
    QString path = QDir::fromNativeSeparators(model);
    while (path.size() > 1 && path.endsWith('/')) path.chop(1);  // "/models/FLUX.1-dev/"
    const QString name = QFileInfo(path).fileName();
    return name.isEmpty() ? model : name;
}

bool HistoryTableModel::reload() {
    m_all.clear();
    m_error.clear();
    if (m_history) {
        m_all = m_history->list();
        if (!m_history->errorString().isEmpty()) m_error = m_history->errorString();
    }
    m_models.clear();
    for (const auto& r : m_all)
        if (!m_models.contains(r.model)) m_models << r.model;
    applyFilter();
    return m_error.isEmpty();
}

void HistoryTableModel::setModelFilter(const QString& model) {
    if (model == m_modelFilter) return;
    m_modelFilter = model;
    applyFilter();
}

void HistoryTableModel::applyFilter() {
    QVector<RunSummary> runs;
    for (const auto& r : m_all)
        if (m_modelFilter.isEmpty() || r.model == m_modelFilter) runs << r;
    beginResetModel();
    m_runs = runs;
    QSet<qint64> still;
    for (const auto& r : m_runs)
        if (m_checked.contains(r.id)) still.insert(r.id);
    const bool checksChangedNow = still != m_checked;
    m_checked = still;
    endResetModel();
    if (checksChangedNow) emit checksChanged();
}

int HistoryTableModel::rowOf(qint64 id) const {
    for (int i = 0; i < m_runs.size(); ++i)
        if (m_runs[i].id == id) return i;
    return -1;
}

QVector<qint64> HistoryTableModel::checkedIds() const {
    QVector<qint64> ids;
    for (const auto& r : m_runs)
        if (m_checked.contains(r.id)) ids << r.id;
    return ids;
}

bool HistoryTableModel::setChecked(qint64 id, bool checked) {
    const int row = rowOf(id);
    if (row < 0) return false;
    return setData(index(row, Compare), checked ? Qt::Checked : Qt::Unchecked, Qt::CheckStateRole);
}

bool HistoryTableModel::hasRunning() const {
    for (const auto& r : m_runs)
        if (r.state == RunState::Running) return true;
    return false;
}

int HistoryTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_runs.size());
}

int HistoryTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant HistoryTableModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal) return QVariant();
    if (role == Qt::ToolTipRole && section == Compare)
        return tr("Check 2 to %1 runs and press Compare").arg(kMaxCompare);
    if (role != Qt::DisplayRole) return QVariant();
    // The titles in Column order; tr() finds their translations in this class's context.
    static const char* const kTitles[ColumnCount] = {
        QT_TR_NOOP("Compare"), QT_TR_NOOP("Name"),   QT_TR_NOOP("Date"),
        QT_TR_NOOP("Model"),   QT_TR_NOOP("Prompt"), QT_TR_NOOP("Plan"),
        QT_TR_NOOP("Verdict"), QT_TR_NOOP("Steps"),  QT_TR_NOOP("State")};
    if (section < 0 || section >= ColumnCount) return QVariant();
    return tr(kTitles[section]);
}

QVariant HistoryTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= m_runs.size()) return QVariant();
    const RunSummary& r = m_runs[index.row()];
    const int col = index.column();
    if (role == Qt::CheckStateRole && col == Compare)
        return m_checked.contains(r.id) ? Qt::Checked : Qt::Unchecked;
    if (role == Qt::UserRole) return r.id;
    if (role == Qt::EditRole && col == Name) return displayName(r);
    if (role == Qt::DisplayRole) {
        switch (col) {
            case Name:
                return displayName(r);
            case Date:
                return r.created.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm"));
            case Model:
                return modelName(r.model);
            case Prompt:
                return r.prompt.isEmpty() ? tr("(empty prompt)") : oneLine(r.prompt);
            case Plan:
                return r.plan.isEmpty() ? tr("stored dtypes") : r.plan;
            case Verdict:
                if (!r.error.isEmpty()) return tr("error");
                // The engine's verdict name ("ok", "nan/inf"), in the studio's language through
                // the engine's catalogue (context "Engine", widgets/controls/engine_messages.cpp).
                return r.verdict.isEmpty()
                           ? QStringLiteral("\u2014")
                           : QCoreApplication::translate("Engine", r.verdict.toUtf8().constData());
            case Steps:
                // A PNDM/PLMS schedule calls the model once more than the run's steps: the
                // records hold one step more, the run still has its steps ("50 / 50").
                return tr("%1 / %2")
                    .arg(r.stepsTotal > 0 ? std::min(r.stepsDone, r.stepsTotal) : r.stepsDone)
                    .arg(r.stepsTotal);
            case State:
                return stateText(r.state);
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (col) {
            case Prompt:
                return r.prompt;
            case Model:
                return r.model.isEmpty() ? QVariant() : QVariant(QDir::toNativeSeparators(r.model));
            case Plan:
                return tr("Effective plan: %1").arg(r.effectivePlan);
            case Verdict:
                return r.error.isEmpty() ? QVariant() : QVariant(r.error);
            case Date:
                return r.created.toLocalTime().toString(Qt::ISODate);
            case State:
                if (r.state == RunState::Interrupted)
                    return tr(
                        "The run stopped without finishing (the program was closed or "
                        "crashed); its finished steps are kept.");
                break;
        }
    }
    if (role == Qt::FontRole && col == Name && r.name.isEmpty()) {
        QFont f;
        f.setItalic(true);
        return f;
    }
    if (role == Qt::ForegroundRole) {
        if (col == Verdict && (!r.error.isEmpty() || r.verdict == QLatin1String("nan/inf") ||
                               r.verdict == QLatin1String("black")))
            return QBrush(QColor(0xb0, 0x00, 0x20));
        if (col == Verdict && r.verdict == QLatin1String("ok"))
            return QBrush(QColor(0x1b, 0x7a, 0x2f));
        if (col == State && r.state == RunState::Interrupted)
            return QBrush(QColor(0xa0, 0x5a, 0x00));
    }
    if (role == Qt::TextAlignmentRole && col == Steps)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return QVariant();
}

Qt::ItemFlags HistoryTableModel::flags(const QModelIndex& index) const {
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.column() == Compare) f |= Qt::ItemIsUserCheckable;
    if (index.column() == Name) f |= Qt::ItemIsEditable;
    return f;
}

bool HistoryTableModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (!index.isValid() || index.row() >= m_runs.size()) return false;
    RunSummary& r = m_runs[index.row()];
    if (index.column() == Compare && role == Qt::CheckStateRole) {
        const bool on = value.toInt() == Qt::Checked;
        if (on == m_checked.contains(r.id)) return true;
        if (on && m_checked.size() >= kMaxCompare) {
            emit compareLimitReached();
            return false;
        }
        if (on)
            m_checked.insert(r.id);
        else
            m_checked.remove(r.id);
        emit dataChanged(index, index, {Qt::CheckStateRole});
        emit checksChanged();
        return true;
    }
    if (index.column() == Name && role == Qt::EditRole) {
        QString name = value.toString().trimmed();
        if (name == displayName(r)) return true;  // committed unchanged (also "Run 7")
        if (!m_history || !m_history->rename(r.id, name)) {
            m_error = m_history ? m_history->errorString() : tr("No run history is open.");
            emit errorOccurred(m_error);
            return false;
        }
        r.name = name;
        for (auto& kept : m_all)  // the unfiltered list too, so a filter change keeps the name
            if (kept.id == r.id) kept.name = name;
        emit dataChanged(index, index);
        return true;
    }
    return false;
}
