#pragma once
// "Find minimal fix": the settings of a precision search (which remedies to try), its trials as
// they come in (plan, outcome, pass/fail), the resulting plan with an Apply button, and the
// ranked remedy table (diagnosis/remedies.h) with an Apply button on every row and "Compare top
// rows" for the best passing plans side by side.
#include <QStringList>
#include <QVector>
#include <QWidget>
#include <vector>

#include "diagnosis/bisection.h"
#include "diagnosis/remedies.h"
#include "fix_settings.h"

class QCheckBox;
class QComboBox;
class QTabWidget;
class QLabel;
class QPushButton;
class QSpinBox;
class QDoubleSpinBox;
class QTableWidget;

class FixPanel : public QWidget {
    Q_OBJECT
public:
    explicit FixPanel(QWidget* parent = nullptr);

    FixSettings settings() const;
    void setRunning(bool running);  // disables Find, clears the table when a search starts
    void addTrial(const hs::BisectionTrial& trial);
    void setResult(const hs::BisectionResult& result);
    void setMessage(const QString& text);  // e.g. "the plan does not fail"

    // Remedy rows as the search tries them (unranked), then the ranked table replacing them.
    void addRemedy(const hs::RemedyRow& row);
    void setRemedies(const hs::RemedyTable& table);
    int remedyCount() const;
    QString remedyPlan(int row) const;  // the plan text of the table's row `row`
    QPushButton* remedyApplyButton(int row) const;
    QPushButton* compareButton() const { return m_compare; }
    QTableWidget* remedyTable() const { return m_remedies; }
    // The plans of the best passing rows (at most `count`), best first.
    QStringList topPassingPlans(int count = 3) const;

    int trialCount() const;
    QString resultPlan() const { return m_plan; }  // empty until a passing plan was found
    QString resultText() const;
    QPushButton* findButton() const { return m_find; }
    QPushButton* applyButton() const { return m_apply; }

signals:
    void findRequested(const FixSettings& settings);
    void applyRequested(const QString& planText);
    void compareRequested(const QStringList& planTexts);  // 2 or 3 plans, best first

private:
    QComboBox* m_safe;
    QSpinBox* m_steps;
    QSpinBox* m_iterations;
    QDoubleSpinBox* m_tolerance;
    QPushButton* m_find;
    QPushButton* m_apply;
    QTableWidget* m_trials;
    QLabel* m_result;
    QString m_plan;
    std::vector<std::pair<hs::RemedyKind, QCheckBox*>> m_kinds;
    QTabWidget* m_tabs;
    QTableWidget* m_remedies;
    QPushButton* m_applyRow;  // applies the selected remedy row
    QPushButton* m_compare;
    std::vector<hs::RemedyRow> m_rows;  // as shown, row by row

    void showRemedyRow(int row, const hs::RemedyRow& r);
    void updateRemedyButtons();
};
