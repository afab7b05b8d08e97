#pragma once
// "Find minimal fix": the settings of a precision search, its trials as they come in (plan,
// outcome, pass/fail) and the resulting plan with an Apply button.
#include <QWidget>

#include "diagnosis/bisection.h"

class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QDoubleSpinBox;
class QTableWidget;

struct FixSettings {
    hs::Format safeFormat = hs::Format::BF16;
    int trialSteps = 8;  // sampling steps per trial run
    int maxIterations = 24;
    double tolerance = 0.05;  // mean |pixel difference| to the reference, levels in [0, 1]
};

class FixPanel : public QWidget {
    Q_OBJECT
public:
    explicit FixPanel(QWidget* parent = nullptr);

    FixSettings settings() const;
    void setRunning(bool running);  // disables Find, clears the table when a search starts
    void addTrial(const hs::BisectionTrial& trial);
    void setResult(const hs::BisectionResult& result);
    void setMessage(const QString& text);  // e.g. "the plan does not fail"

    int trialCount() const;
    QString resultPlan() const { return m_plan; }  // empty until a passing plan was found
    QString resultText() const;
    QPushButton* findButton() const { return m_find; }
    QPushButton* applyButton() const { return m_apply; }

signals:
    void findRequested(const FixSettings& settings);
    void applyRequested(const QString& planText);

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
};
Q_DECLARE_METATYPE(FixSettings)
