#pragma once
// The rows of the history browser: one per run (RunHistory::list()), with a check box per run
// for Compare (at most kMaxCompare checked) and an editable name that renames the run in the
// RunHistory directly.
#include <QAbstractTableModel>
#include <QSet>
#include <QVector>

#include "run_history.h"

class HistoryTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Compare, Name, Date, Prompt, Plan, Verdict, Steps, State, ColumnCount };
    static constexpr int kMaxCompare = 4;

    explicit HistoryTableModel(QObject* parent = nullptr);
    void setHistory(RunHistory* history) { m_history = history; }
    // Rereads the runs; keeps the checks of runs still there. False (and lastError) on error.
    bool reload();
    QString lastError() const { return m_error; }

    const RunSummary& run(int row) const { return m_runs[row]; }
    int rowOf(qint64 id) const;
    QVector<qint64> checkedIds() const;  // in row order
    bool setChecked(qint64 id, bool checked);
    bool hasRunning() const;

    static QString displayName(const RunSummary& run);

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role) override;

signals:
    void checksChanged();
    void compareLimitReached();
    void errorOccurred(const QString& message);

private:
    RunHistory* m_history = nullptr;
    QVector<RunSummary> m_runs;
    QSet<qint64> m_checked;
    QString m_error;
};
