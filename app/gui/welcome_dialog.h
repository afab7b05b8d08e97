#pragma once
// The first-launch welcome, a small non-modal window in three steps: (1) what Halfscope does and
// one button that runs the bf16 vs fp16 comparison on the embedded demo model (opening it first
// when another model, or none, is loaded); (2) when it ends, both verdicts and the fp16 run's
// first failing layer as its record names it (hs::findFirstFailure: component, probe point,
// step), with a button that shows that layer in the Run tab's heatmap; (3) a pointer to the
// model library. The main window makes it at first use: main() shows it at the first launch
// without command-line actions, Help > Welcome at any time.
#include <QDialog>
#include <optional>

#include "diagnosis/first_failure.h"
#include "records/run_types.h"

class LayerHeatmap;
class PromptPanel;
class QAction;
class QLabel;
class QProgressBar;
class QPushButton;
class Studio;
struct LoadedModel;
struct StudioViews;

class WelcomeDialog : public QDialog {
    Q_OBJECT
public:
    // A welcome over `window` (its parent) that runs on `studio`: it reads the run's steps from
    // the views' prompt panel, shows the failing layer in their heatmap, and triggers
    // `openLibrary` (the window's File > Model library) for step 3.
    WelcomeDialog(Studio& studio, const StudioViews& views, QAction* openLibrary, QWidget* window);

    enum class State { Ready, Loading, Comparing, Done, Failed };
    State state() const { return m_state; }
    // The fp16 run's first failure, once a comparison has ended with one.
    const std::optional<hs::FirstFailure>& firstFailure() const { return m_failure; }
    // Plain text of step 2 (progress, verdicts, the failing layer or what went wrong).
    QString resultText() const;

    QPushButton* compareButton() const { return m_compare; }
    QPushButton* showLayerButton() const { return m_showLayer; }
    QPushButton* libraryButton() const { return m_library; }

    // What the buttons do.
    void startComparison();
    void showFirstFailure();
    void openLibrary();

private:
    void openDemo();
    void onModelLoaded(const LoadedModel& model);
    void compareNow();
    void onComparisonEnded();
    void fail(const QString& message);
    void updateBusy();
    // Moves out of the way of `target` (what it just pointed at), hidden when nothing fits.
    void stepAsideFrom(const QWidget* target);

    Studio& m_studio;
    PromptPanel* m_prompt;
    LayerHeatmap* m_layers;
    QAction* m_openLibrary;
    QPushButton* m_compare;
    QProgressBar* m_progress;
    QLabel* m_result;
    QPushButton* m_showLayer;
    QPushButton* m_library;
    State m_state = State::Ready;
    int m_stepsDone = 0;
    QString m_jobError;  // a comparison run that failed, in the engine's words
    std::optional<hs::FirstFailure> m_failure;
    std::optional<hs::RunRecord> m_fp16;  // the run the failing layer is shown from
};
