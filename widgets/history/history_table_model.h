#pragma once
// The rows of the history browser: one per run (RunHistory::list()), with a check box per run
// for Compare (at most kMaxCompare checked) and an editable name that renames the run in the
// RunHistory directly. A model filter keeps the rows of one model's runs only.
#include <QAbstractTableModel>
#include <QSet>
#include <QVector>

#include "run_history.h"

class HistoryTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Compare, Name, Date, Model, Prompt, Plan, Verdict, Steps, State, ColumnCount };
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

    // Only the runs of `model` (RunSummary::model, the path as saved); empty: every run. Checks
    // of runs the filter hides are dropped, so Compare takes only runs in view.
    void setModelFilter(const QString& model);
    QString modelFilter() const { return m_modelFilter; }
    // The models of every run in the history, filter or not, newest run's first, each once.
    QStringList models() const { return m_models; }

    static QString displayName(const RunSummary& run);
    // A model as the Model column shows it: its folder or file name ("FLUX.1-dev",
    // "flux1-dev.safetensors"); a dash for a run saved without one.
    static QString modelName(const QString& model);

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
    void applyFilter();  // m_all through the model filter into the rows

    RunHistory* m_history = nullptr;
    QVector<RunSummary> m_all;   // every run read, newest first
    QVector<RunSummary> m_runs;  // the rows: m_all through the model filter
    QStringList m_models;
    QString m_modelFilter;
    QSet<qint64> m_checked;
    QString m_error;
};
