#include "main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLayout>
#include <QMenuBar>
#include <QMessageBox>
#include <QScreen>
#include <QScrollArea>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>

#include "compare_view.h"
#include "ctl_bring_into_view.h"
#include "ctl_device_choice.h"
#include "ctl_wheel_guard.h"
#include "engine_text.h"
#include "failure_banner.h"
#include "fix_panel.h"
#include "history_browser.h"
#include "image_view.h"
#include "layer_heatmap.h"
#include "library_dialog.h"
#include "log_panel.h"
#include "model_panel.h"
#include "numerics/cpu_bf16.h"
#include "precision_panel.h"
#include "preview_strip.h"
#include "prompt_panel.h"
#include "reproduce_image.h"
#include "run_history.h"
#include "runtime/demo_location.h"
#include "runtime/devices.h"
#include "settings_dialog.h"
#include "step_plot.h"
#include "studio.h"
#include "studio_settings.h"
#include "ui_theme.h"
#include "view_heatmap_grid.h"
#include "welcome_dialog.h"

namespace {

QDockWidget* dock(QMainWindow* w, const QString& title, const QString& name, QWidget* content,
                  Qt::DockWidgetArea area) {
    auto* d = new QDockWidget(title, w);
    d->setObjectName(name);  // saveState() needs names
    d->setWidget(content);
    w->addDockWidget(area, d);
    return d;
}

QVector<DeviceChoice> deviceChoices() {
    QVector<DeviceChoice> d{DeviceChoice::cpu(QString::fromStdString(hs::cpuInfo().model),
                                              hs::cpuBf16Execution(),
                                              hs::cpuHasBf16Instructions())};
    for (const auto& c : hs::cudaDevices())
        d.push_back(DeviceChoice::cuda(c.index, QString::fromStdString(c.name), c.major, c.minor,
                                       c.memoryGiB));
    return d;
}

}  // namespace

MainWindow::MainWindow(const QString& historyDir, const QString& modelDir, QWidget* parent)
    : QMainWindow(parent), m_history(new RunHistory(historyDir)), m_views(new StudioViews) {
    setWindowTitle(tr("Halfscope"));
    StudioViews& v = *m_views;
    v.prompt = new PromptPanel;
    v.precision = new PrecisionPanel;
    v.model = new ModelPanel;
    v.plot = new StepPlot;
    v.previews = new PreviewStrip;
    v.layers = new LayerHeatmap;
    v.image = new ImageView;
    v.log = new LogPanel;
    v.compare = new CompareView;
    v.history = new HistoryBrowser(m_history.get());
    v.fix = new FixPanel;
    v.banner = new FailureBanner;
    // A wheel over a spin box or combo box scrolls the panel unless the box has the focus.
    ctl::guardWheel(QCoreApplication::instance());
    v.precision->setDevices(deviceChoices());
    v.image->setTitle(tr("Final image"));

    // Left: what to run. A scroll area keeps the panels usable on small screens; Generate, Stop
    // and the progress stay below it, in sight whatever the screen's height.
    auto* setup = new QWidget;
    auto* setupLayout = new QVBoxLayout(setup);
    setupLayout->addWidget(v.model);
    setupLayout->addWidget(v.prompt);
    setupLayout->addWidget(v.precision);
    setupLayout->addStretch(1);
    auto* scroll = new QScrollArea;
    scroll->setWidget(setup);
    scroll->setWidgetResizable(true);
    auto* setupDock = new QWidget;
    auto* setupDockLayout = new QVBoxLayout(setupDock);
    setupDockLayout->setContentsMargins(0, 0, 0, 0);
    setupDockLayout->setSpacing(0);
    setupDockLayout->addWidget(scroll, 1);
    QWidget* runBar = v.prompt->runBar();
    // The setup's and the prompt panel's margins together: the buttons line up with its fields.
    const QMargins outer = setupLayout->contentsMargins();
    const QMargins panel = v.prompt->layout()->contentsMargins();
    auto* runBarHolder = new QWidget;
    auto* runBarLayout = new QVBoxLayout(runBarHolder);
    runBarLayout->setContentsMargins(outer.left() + panel.left(), 4, outer.right() + panel.right(),
                                     4);
    runBarLayout->addWidget(runBar);
    setupDockLayout->addWidget(runBarHolder);
    dock(this, tr("Setup"), "setup", setupDock, Qt::LeftDockWidgetArea);

    // Centre: the run (curves beside the image, the previews, the layers) and the comparison.
    auto* top = new QSplitter(Qt::Horizontal);
    top->addWidget(v.plot);
    top->addWidget(v.image);
    top->setStretchFactor(0, 1);
    auto* run = new QSplitter(Qt::Vertical);
    run->addWidget(top);
    run->addWidget(v.previews);
    run->addWidget(v.layers);
    run->setStretchFactor(0, 2);
    run->setStretchFactor(2, 3);
    m_tabs = new QTabWidget;
    // A scroll area under the run too: on a short screen (1366x768) it scrolls instead of
    // squeezing the plot below its axis labels.
    auto* runScroll = new QScrollArea;
    runScroll->setWidget(run);
    runScroll->setWidgetResizable(true);
    runScroll->setFrameShape(QFrame::NoFrame);
    // The failure banner above the scroll area: in sight however far the run is scrolled.
    auto* runPage = new QWidget;
    auto* runPageLayout = new QVBoxLayout(runPage);
    runPageLayout->setContentsMargins(0, 0, 0, 0);
    runPageLayout->setSpacing(2);
    runPageLayout->addWidget(v.banner);
    runPageLayout->addWidget(runScroll, 1);
    m_tabs->addTab(runPage, tr("Run"));
    auto* compareScroll = new QScrollArea;  // four runs side by side need more than a screen
    compareScroll->setWidget(v.compare);
    compareScroll->setWidgetResizable(true);
    m_tabs->addTab(compareScroll, tr("Compare"));
    setCentralWidget(m_tabs);

    // Bottom: wide and short suits the log, the run table and the trial table alike.
    auto* log = dock(this, tr("Log"), "log", v.log, Qt::BottomDockWidgetArea);
    auto* history = dock(this, tr("History"), "history", v.history, Qt::BottomDockWidgetArea);
    auto* fixScroll = new QScrollArea;  // its options and tables scroll in a short dock
    fixScroll->setWidget(v.fix);
    fixScroll->setWidgetResizable(true);
    fixScroll->setFrameShape(QFrame::NoFrame);
    auto* fix = dock(this, tr("Find minimal fix"), "fix", fixScroll, Qt::BottomDockWidgetArea);
    tabifyDockWidget(log, history);
    tabifyDockWidget(history, fix);
    log->raise();

    // Default proportions, applied once the window has its size (a saved layout replaces the
    // dock sizes): the curves and the layers get the room, the strip its thumbnails' height.
    m_applyDefaultSizes = [this, run, top, log] {
        // The strip's legend wraps: its height for the actual width, plus the thumbnails.
        auto* strip = m_views->previews;
        const int stripHeight = strip->layout()->hasHeightForWidth()
                                    ? strip->layout()->totalHeightForWidth(strip->width())
                                    : strip->sizeHint().height();
        strip->setMaximumHeight(stripHeight);
        const int rest = run->height() - stripHeight;
        run->setSizes({rest * 2 / 5, stripHeight, rest * 3 / 5});
        top->setSizes({top->width() - 380, 380});
        if (m_restoredLayout) return;
        resizeDocks({findChild<QDockWidget*>("setup")}, {470}, Qt::Horizontal);
        // The log a sixth of a short window at most: the run above it keeps its room.
        resizeDocks({log}, {std::min(160, height() / 6)}, Qt::Vertical);
    };

    m_studio = new Studio(v, m_history.get(), this);
    connect(m_studio, &Studio::showCompare, this, [this] { m_tabs->setCurrentIndex(1); });
    connect(m_studio, &Studio::showRun, this, [this] { m_tabs->setCurrentIndex(0); });
    connect(m_studio, &Studio::modelLoaded, this, &MainWindow::onModelLoaded);
    connect(m_studio, &Studio::busyChanged, this,
            [this](bool busy) { statusBar()->showMessage(busy ? tr("Running...") : tr("Ready")); });
    connect(v.banner, &FailureBanner::showRequested, this, &MainWindow::showFailingPoint);
    connect(v.banner, &FailureBanner::findFixRequested, this, &MainWindow::findFix);
    buildMenus();
    statusBar()->showMessage(tr("Ready"));
    restoreSettings(modelDir);
}

MainWindow::~MainWindow() = default;

const StudioViews& MainWindow::views() const {
    return *m_views;
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open model folder..."), QKeySequence::Open, this, &MainWindow::openFolder);
    file->addAction(tr("Open model &files..."), this, [this] {
        const QStringList files = QFileDialog::getOpenFileNames(
            this, tr("Open model files: the model, its VAE and text encoders"), QString(),
            tr("Model files (*.safetensors)"));
        if (!files.isEmpty()) m_studio->openFiles(files);
    });
    file->addAction(tr("Open the &demo model"), this, [this] {
        const QString demo = QString::fromStdString(hs::findDemoModel());
        if (demo.isEmpty())
            QMessageBox::warning(this, tr("Halfscope"), tr("The embedded demo model is missing."));
        else
            m_studio->openModel(demo);
    });
    m_libraryAction =
        file->addAction(tr("Model &library..."), QKeySequence(tr("Ctrl+L")), this, [this] {
            // One window, made at first use (it scans when first shown); Close only hides it.
            auto* d = findChild<LibraryDialog*>();
            if (!d) d = new LibraryDialog(m_studio, this);
            d->show();
            d->raise();
            d->activateWindow();
        });
    m_libraryAction->setObjectName("modelLibraryAction");
    connect(m_views->model, &ModelPanel::libraryRequested, m_libraryAction, &QAction::trigger);
    // File > Reproduce image... and PNGs dropped on the window (reproduce_image.h).
    file->addAction((new ReproduceImage(*m_studio, *m_views, m_libraryAction, this))->action());
    file->addAction(tr("&Export report..."), QKeySequence(tr("Ctrl+E")), this,
                    &MainWindow::exportReport);
    file->addSeparator();
    file->addAction(tr("&Settings..."), this, &MainWindow::showSettings);
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    run->addAction(tr("&Generate"), QKeySequence(tr("Ctrl+Return")), m_studio, &Studio::generate);
    run->addAction(tr("&Stop"), QKeySequence(tr("Esc")), m_studio, &Studio::stop);
    run->addSeparator();
    run->addAction(tr("Compare: &bf16 vs fp16"), m_studio, &Studio::compareBf16VsFp16);
    run->addAction(tr("Compare: &one module at a time in fp16"), m_studio,
                   &Studio::compareOneModuleAtATime);
    run->addSeparator();
    run->addAction(tr("Find &minimal fix"), this, &MainWindow::findFix);
    run->addAction(tr("&Apply the fixed plan"), this, [this] {
        // The bisection's plan, else the best passing remedy.
        QString plan = m_views->fix->resultPlan();
        if (plan.isEmpty()) plan = m_views->fix->topPassingPlans(1).value(0);
        if (!plan.isEmpty()) m_studio->applyPlan(plan);
    });
    run->addAction(tr("Compare the &top remedies"), this,
                   [this] { m_studio->compareRemedies(m_views->fix->topPassingPlans(3)); });

    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (auto* d : findChildren<QDockWidget*>()) view->addAction(d->toggleViewAction());
    QAction* log = view->addAction(tr("&Log scale for |max|"));
    log->setCheckable(true);
    connect(log, &QAction::toggled, m_views->plot, &StepPlot::setLogScale);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Welcome..."), this, &MainWindow::showWelcome)
        ->setObjectName("welcomeAction");
    help->addAction(tr("&About Halfscope"), this, [this] {
        QMessageBox::about(this, tr("About Halfscope"),
                           tr("<b>Halfscope %1</b><p>Finds out why a diffusion model gives a black "
                              "image in half precision: which layer overflowed first, at which "
                              "step, and which precision plan fixes it at the lowest cost.</p>")
                               .arg(HALFSCOPE_VERSION));
    });
}

WelcomeDialog* MainWindow::showWelcome() {
    if (!m_welcome) m_welcome = new WelcomeDialog(*m_studio, *m_views, m_libraryAction, this);
    m_welcome->show();
    m_welcome->raise();
    m_welcome->activateWindow();
    return m_welcome;
}

WelcomeDialog* MainWindow::showWelcomeAtFirstLaunch() {
    StudioSettings settings;
    if (settings.welcomeShown()) return nullptr;
    settings.setWelcomeShown(true);
    return showWelcome();
}

void MainWindow::findFix() {
    m_studio->findMinimalFix(m_views->fix->settings());
    if (auto* d = findChild<QDockWidget*>("fix")) d->raise();
}

bool MainWindow::showFailingPoint() {
    const FailureBanner::Failure& f = m_views->banner->failure();
    if (!f.layer || m_studio->isBusy()) return false;
    // The grid in view (its minimum is 8 rows, so the selected row is seen whole among them),
    // then the row scrolled to the grid's middle.
    ctl::bringIntoView(m_views->layers->grid());
    return m_views->layers->selectLayer(f.point, f.step);
}

void MainWindow::fitToScreen() {
    // At most 90% of the room the screen leaves (panels, docks), centred on it; never below
    // what the window needs, never beyond the screen.
    const QRect room =
        (screen() ? screen() : QGuiApplication::primaryScreen())->availableGeometry();
    const QSize want = (QSizeF(room.size()) * 0.9).toSize().expandedTo(minimumSizeHint());
    resize(want.boundedTo(room.size()));
    move(room.center() - QPoint(width() / 2, height() / 2));
}

void MainWindow::openFolder() {
    const QString dir = QFileDialog::getExistingDirectory(
        this, tr("Open a diffusers pipeline folder (with model_index.json)"));
    if (!dir.isEmpty()) m_studio->openModel(dir);
}

void MainWindow::exportReport() {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export report"), "halfscope-report.html", tr("HTML report (*.html)"));
    if (path.isEmpty()) return;
    QString error;
    if (!m_studio->exportReport(path, &error))
        QMessageBox::warning(this, tr("Export report"), error);
}

void MainWindow::showSettings() {
    SettingsDialog dialog(nullptr, this);  // the application's settings
    dialog.setCpuHasBf16Instructions(hs::cpuHasBf16Instructions());
    connect(&dialog, &SettingsDialog::cpuBf16Changed, this, &MainWindow::applyCpuBf16);
    connect(&dialog, &SettingsDialog::themeChanged, this, &ui_theme::applySetting);
    dialog.exec();
}

void MainWindow::applyCpuBf16(const QString& mode) {
    const auto m = hs::parseCpuBf16(mode.toStdString());
    if (!m || *m == hs::cpuBf16Mode()) return;
    hs::setCpuBf16Mode(*m);
    m_views->precision->setDevices(deviceChoices());
    m_views->log->info(
        tr("bf16 on the CPU: %1")
            .arg(engine_text::text(hs::cpuBf16DescriptionMessage(), hs::cpuBf16Description())),
        "load");
    if (m_studio->model())  // weights convert at load
        m_studio->openModel(m_studio->model()->dir, m_studio->model()->files);
}

void MainWindow::onModelLoaded(const LoadedModel& m) {
    if (!m_pendingRunModel.isEmpty()) {
        // The steps and guidance saved with this model win over its defaults, once.
        if (m.dir == m_pendingRunModel) {
            hs::RunConfig cfg;
            m_views->prompt->applyTo(cfg);
            cfg.steps = m_pendingSteps;
            cfg.guidance = m_pendingGuidance;
            m_views->prompt->setFrom(cfg);
        }
        m_pendingRunModel.clear();
    }
    if (m_pendingPlan.isEmpty()) return;
    m_studio->applyPlan(m_pendingPlan);  // the plan saved with this model, once
    m_pendingPlan.clear();
}

namespace {

bool isModel(const QString& path) {
    const QFileInfo info(path);
    return info.isFile() || QFileInfo::exists(path + "/model_index.json") ||
           QFileInfo::exists(path + "/modular_model_index.json");
}

}  // namespace

void MainWindow::restoreSettings(const QString& modelDir) {
    const StudioSettings s;
    const StudioSettings::Window placement = s.window();
    restoreGeometry(placement.geometry);
    m_restoredLayout = restoreState(placement.state);
    m_fitAtShow = !placement.saved;  // sized for the screen it is shown on
    const StudioSettings::Run run = s.run();
    m_views->prompt->setFrom(run.config);
    m_pendingPlan = run.plan;
    m_views->precision->setTargetId(run.target);
    QString dir = modelDir;
    hs::ModelFiles files;
    const QString saved = s.modelDir();
    if (dir.isEmpty() && !saved.isEmpty()) {
        // The last model, with the files of its set; a set with a file gone is not reopened.
        dir = saved;
        files = s.modelFiles();
        for (const auto& slot : hs::modelFileSlots()) {
            const std::string& f = files.*slot.path;
            if (!f.empty() && !QFileInfo::exists(QString::fromStdString(f))) dir.clear();
        }
    }
    if (dir.isEmpty() || !isModel(dir)) {
        dir = QString::fromStdString(hs::findDemoModel());
        files = {};
    }
    if (run.stepsSaved && dir == saved) {
        m_pendingRunModel = dir;
        m_pendingSteps = run.config.steps;
        m_pendingGuidance = run.config.guidance;
    }
    if (!dir.isEmpty()) m_studio->openModel(dir, files);
}

void MainWindow::saveSettings() const {
    StudioSettings s;
    s.setWindow(saveGeometry(), saveState());
    hs::RunConfig cfg;
    m_views->prompt->applyTo(cfg);
    s.setRun(cfg, m_views->precision->planText(), m_views->precision->targetId());
    if (const auto& m = m_studio->model()) s.setModel(m->dir, m->files);
}

void MainWindow::setVisible(bool visible) {
    // Before the native window exists: sized and placed on the screen it will show on (the
    // one setScreen() named, else the primary), not moved there after a first frame elsewhere.
    if (visible && m_fitAtShow) {
        m_fitAtShow = false;
        fitToScreen();
    }
    QMainWindow::setVisible(visible);
}

void MainWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    if (m_applyDefaultSizes) {
        auto apply = std::move(m_applyDefaultSizes);
        m_applyDefaultSizes = nullptr;
        QTimer::singleShot(50, this, apply);  // after the first layout passes
    }
}

void MainWindow::closeEvent(QCloseEvent* event) {
    saveSettings();
    m_studio->stop();  // the controller's destructor then joins the worker
    event->accept();
}
