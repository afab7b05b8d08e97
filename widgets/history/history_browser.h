#pragma once
// The run history as a table: name, date, model, prompt, plan, verdict, steps, state; the Model
// box above it shows one model's runs only ("All models" by default). Open a run
// (double click, Return or the Open button: openRun), rename it in place (F2, the Rename button
// or a click on a selected name), delete the selected runs (after a confirmation that tests can
// replace), and check 2-4 runs for Compare (compareRequested). The browser reads and writes the
// RunHistory it is given (not owned; used in the GUI thread). While a listed run is running it
// refreshes itself every 2 s when visible; call refresh() after a run begins or ends.
#include <QVector>
#include <QWidget>
#include <functional>

#include "run_history.h"

class HistoryTableModel;
class QComboBox;
class QLabel;
class QPushButton;
class QTableView;
class QTimer;

class HistoryBrowser : public QWidget {
    Q_OBJECT
public:
    explicit HistoryBrowser(RunHistory* history = nullptr, QWidget* parent = nullptr);

    void setHistory(RunHistory* history);
    RunHistory* history() const { return m_history; }

    int rowCount() const;
    qint64 runAt(int row) const;
    QVector<qint64> checkedRuns() const;
    bool setChecked(qint64 id, bool checked);
    QVector<qint64> selectedRuns() const;
    void selectRun(qint64 id);
    QTableView* view() const { return m_view; }
    // The message line (errors, the compare limit); empty when hidden.
    QString message() const;

    // Asked before deleting; returns true to delete. Default: a QMessageBox question.
    using DeleteConfirmer = std::function<bool(QWidget* parent, const QVector<RunSummary>& runs)>;
    void setDeleteConfirmer(DeleteConfirmer confirmer) { m_confirm = std::move(confirmer); }

public slots:
    void refresh();
    void openSelected();
    void renameSelected();
    void deleteSelected();
    void compareChecked();

signals:
    void openRun(qint64 id);
    void compareRequested(const QVector<qint64>& ids);
    void runsDeleted(const QVector<qint64>& ids);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void updateButtons();
    // The Model box's entries from the models of the runs; keeps the model picked while it has
    // runs, else goes back to "All models".
    void fillModelFilter();
    void showMessage(const QString& text);

    RunHistory* m_history = nullptr;
    HistoryTableModel* m_model;
    QTableView* m_view;
    QPushButton* m_open;
    QPushButton* m_rename;
    QPushButton* m_delete;
    QPushButton* m_compare;
    QPushButton* m_refresh;
    QComboBox* m_modelFilter;
    QLabel* m_message;
    QTimer* m_live;
    DeleteConfirmer m_confirm;
    bool m_showingLimit = false;  // the message is the compare-limit note
};
