#pragma once
// The studio's window: lays out the panels and views in docks and tabs and builds the menus.
// Behaviour lives in Studio; settings (last model, plan, prompt, layout) persist in
// StudioSettings.
#include <QMainWindow>
#include <QPointer>
#include <functional>
#include <memory>

#include "run_meta.h"

class QAction;
class QTabWidget;
class RunHistory;
class Studio;
class WelcomeDialog;
struct StudioViews;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // `historyDir` empty: the default data folder. `modelDir` empty: the last model, else the
    // embedded demo model.
    explicit MainWindow(const QString& historyDir = QString(), const QString& modelDir = QString(),
                        QWidget* parent = nullptr);
    ~MainWindow() override;

    Studio& studio() { return *m_studio; }
    const StudioViews& views() const;
    QTabWidget* centralTabs() const { return m_tabs; }
    // Sets how bf16 runs on the CPU ("emulated", "native", "auto"): the engine's mode, the
    // precision panel's device note, and a reload of the open model (weights convert at load).
    void applyCpuBf16(const QString& mode);
    // The window's welcome (made at first use), shown and raised: Help > Welcome.
    WelcomeDialog* showWelcome();
    // showWelcome() when the welcome has never been shown, and records that it has; else
    // nullptr. main() calls it at start-up without command-line actions.
    WelcomeDialog* showWelcomeAtFirstLaunch();
    // The Run tab's failure banner's Show: the Run tab, the layer heatmap scrolled into view and
    // the failing point's row selected. False when the run shown named no layer.
    bool showFailingPoint();
    // Starts the precision search with the fix panel's settings and raises its dock.
    void findFix();

    void setVisible(bool visible) override;

protected:
    void showEvent(QShowEvent* event) override;
    void closeEvent(QCloseEvent* event) override;

private:
    void buildMenus();
    // The first size: about 90% of the screen's available area, centred on it.
    void fitToScreen();
    void restoreSettings(const QString& modelDir);
    void saveSettings() const;
    void exportReport();
    void openFolder();
    void showSettings();
    void onModelLoaded(const LoadedModel& m);

    std::unique_ptr<RunHistory> m_history;
    std::unique_ptr<StudioViews> m_views;
    Studio* m_studio = nullptr;
    QTabWidget* m_tabs = nullptr;
    QAction* m_libraryAction = nullptr;  // File > Model library
    QPointer<WelcomeDialog> m_welcome;
    QString m_pendingPlan;  // the saved plan, applied once its model has loaded
    // The saved steps and guidance, applied over the model's defaults once the saved model (and
    // not another) has loaded; empty when there is none.
    QString m_pendingRunModel;
    int m_pendingSteps = 0;
    double m_pendingGuidance = 0;
    std::function<void()> m_applyDefaultSizes;  // run once, at the first show
    bool m_restoredLayout = false;
    bool m_fitAtShow = false;  // no saved placement: fitToScreen() at the first show
};
