// The first-launch welcome, offscreen, on the embedded demo model: real window, worker thread,
// pipeline and history. One click runs the bf16 vs fp16 comparison and names the fp16 run's first
// failing layer as its record does; "Show this layer" selects it in the heatmap; the library
// button opens the model library; Help > Welcome shows it again; a close mid-comparison is clean.
#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <cstdio>

#include "diagnosis/first_failure.h"
#include "layer_heatmap.h"
#include "library_dialog.h"
#include "log_panel.h"
#include "main_window.h"
#include "model_panel.h"
#include "prompt_panel.h"
#include "runtime/demo_location.h"
#include "studio.h"
#include "studio_settings.h"
#include "studio_test_fixture.h"
#include "view_heatmap_grid.h"
#include "welcome_dialog.h"

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

// The model library scans the test's empty folders, never the user's (StudioFixture).
class WelcomeTest : public StudioFixture {
protected:
    // A window on `model` (the demo when empty), loaded, with short runs set.
    std::unique_ptr<MainWindow> open(const QString& model = QString()) {
        return openStudio(model, [](MainWindow& w) {
            // Every load (the welcome's own too) gets the short run: 4 steps, seed 3.
            QObject::connect(&w.studio(), &Studio::modelLoaded, &w,
                             [w = &w] { setDemoRun(*w, m_steps, panelRun(*w)); });
        });
    }
    static bool waitEnded(WelcomeDialog& d) {
        return QTest::qWaitFor(
            [&] {
                return d.state() == WelcomeDialog::State::Done ||
                       d.state() == WelcomeDialog::State::Failed;
            },
            300000);
    }
    static inline int m_steps = 4;
};

// Copies a folder tree (the demo model, to open it as "another model").
bool copyTree(const QString& from, const QString& to) {
    QDirIterator it(from, QDir::Files | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString src = it.next();
        const QString dst = to + "/" + QDir(from).relativeFilePath(src);
        if (!QDir().mkpath(QFileInfo(dst).path()) || !QFile::copy(src, dst)) return false;
    }
    return true;
}

}  // namespace

TEST_F(WelcomeTest, ShowsAtTheFirstLaunchOnlyAndNotFromTheConstructor) {
    {
        auto w = open();
        EXPECT_EQ(w->findChild<WelcomeDialog*>(), nullptr);  // tests and --screenshot stay bare
        WelcomeDialog* d = w->showWelcomeAtFirstLaunch();
        ASSERT_NE(d, nullptr);
        EXPECT_TRUE(d->isVisible());
        EXPECT_FALSE(d->isModal());
        EXPECT_TRUE(QSettings().value(StudioSettings::kWelcomeShownKey).toBool());
    }
    auto w = open();  // the second launch
    EXPECT_EQ(w->showWelcomeAtFirstLaunch(), nullptr);
    EXPECT_EQ(w->findChild<WelcomeDialog*>(), nullptr);
}

TEST_F(WelcomeTest, OneClickComparesAndNamesTheFp16RunsFirstFailingLayer) {
    auto w = open();
    WelcomeDialog* d = w->showWelcome();
    ASSERT_TRUE(d->compareButton()->isEnabled());
    d->compareButton()->click();
    EXPECT_EQ(d->state(), WelcomeDialog::State::Comparing);
    EXPECT_FALSE(d->compareButton()->isEnabled());  // no second comparison on top
    EXPECT_TRUE(d->findChild<QProgressBar*>()->isVisible());
    ASSERT_TRUE(waitEnded(*d));
    ASSERT_EQ(d->state(), WelcomeDialog::State::Done) << d->resultText().toStdString();
    EXPECT_TRUE(d->compareButton()->isEnabled());
    EXPECT_FALSE(d->findChild<QProgressBar*>()->isVisible());

    const auto& runs = w->studio().compareRuns();
    ASSERT_EQ(runs.size(), 2);
    EXPECT_EQ(runs[0].verdict, "ok");
    EXPECT_NE(runs[1].verdict, "ok");
    const auto expected = hs::findFirstFailure(runs[1]);  // what the report and the log name
    ASSERT_TRUE(expected.has_value());
    ASSERT_TRUE(expected->fromProbe);
    ASSERT_TRUE(d->firstFailure().has_value());
    EXPECT_EQ(d->firstFailure()->point, expected->point);
    EXPECT_EQ(d->firstFailure()->step, expected->step);
    ASSERT_TRUE(runs[1].firstNonFinite.has_value());  // the heatmap's mark: the same point
    EXPECT_EQ(runs[1].firstNonFinite->at.name, expected->point);

    const QString text = d->resultText();
    std::printf("welcome: %s\n", qPrintable(text));
    EXPECT_TRUE(text.contains("bf16: the image is fine")) << text.toStdString();
    EXPECT_FALSE(text.contains("fp16: the image is fine")) << text.toStdString();
    EXPECT_TRUE(text.contains(qs(expected->point))) << text.toStdString();
    EXPECT_TRUE(text.contains("component " + qs(expected->component))) << text.toStdString();
    if (expected->step >= 0)
        EXPECT_TRUE(text.contains(QString("step %1").arg(expected->step))) << text.toStdString();

    // While another run feeds the single-run views, they are not taken over.
    w->studio().generate();
    EXPECT_FALSE(d->showLayerButton()->isEnabled());
    w->studio().stop();
    ASSERT_TRUE(QTest::qWaitFor([&] { return !w->studio().isBusy(); }, 60000));
    w->centralTabs()->setCurrentIndex(1);

    // "Show this layer": the fp16 run in the Run tab, that layer's cell selected and in view.
    LayerHeatmap* layers = w->views().layers;
    ASSERT_NE(w->centralTabs()->currentWidget(), nullptr);
    ASSERT_FALSE(w->centralTabs()->currentWidget()->isAncestorOf(layers));  // Compare is in front
    ASSERT_TRUE(d->showLayerButton()->isEnabled());
    QSignalSpy clicked(layers, &LayerHeatmap::cellClicked);
    d->showLayerButton()->click();
    EXPECT_TRUE(w->centralTabs()->currentWidget()->isAncestorOf(layers));
    QApplication::processEvents();
    EXPECT_FALSE(layers->grid()->visibleRegion().isEmpty());  // scrolled into the window
    ASSERT_EQ(clicked.count(), 1);
    EXPECT_EQ(clicked[0][0].toString(), qs(expected->point));
    EXPECT_EQ(clicked[0][1].toInt(), expected->step);
    EXPECT_TRUE(layers->detailsText().contains(qs(expected->point)));
    EXPECT_TRUE(layers->detailsText().contains("First non-finite point of the run."))
        << layers->detailsText().toStdString();
    int row = -1;
    for (int r = 0; r < layers->rowCount(); ++r)
        if (layers->rowName(r) == qs(expected->point)) row = r;
    ASSERT_GE(row, 0);
    QApplication::processEvents();
    const int column = layers->data().columnOfStep(expected->step);
    EXPECT_TRUE(
        layers->grid()->viewport()->rect().intersects(layers->grid()->cellRect(row, column)));
    // The welcome steps aside from the heatmap it points at (moved, else hidden).
    const QRect heatmap(layers->mapToGlobal(QPoint(0, 0)), layers->size());
    EXPECT_TRUE(!d->isVisible() || !d->frameGeometry().intersects(heatmap))
        << "the welcome at " << d->frameGeometry().x() << "," << d->frameGeometry().y()
        << " covers the heatmap at " << heatmap.x() << "," << heatmap.y();
}

TEST_F(WelcomeTest, WithAnotherModelOpenTheClickOpensTheDemoFirst) {
    const QString copy = m_dir.filePath("my-model");
    ASSERT_TRUE(copyTree(qs(hs::findDemoModel()), copy));
    auto w = open(copy);
    ASSERT_FALSE(w->studio().model()->isDemo);
    WelcomeDialog* d = w->showWelcome();
    d->compareButton()->click();
    EXPECT_EQ(d->state(), WelcomeDialog::State::Loading);
    EXPECT_TRUE(d->resultText().contains("Opening the demo model"))
        << d->resultText().toStdString();
    EXPECT_FALSE(d->compareButton()->isEnabled());
    ASSERT_TRUE(waitEnded(*d));
    ASSERT_EQ(d->state(), WelcomeDialog::State::Done) << d->resultText().toStdString();
    ASSERT_TRUE(w->studio().model()->isDemo);
    ASSERT_EQ(w->studio().compareRuns().size(), 2);
    EXPECT_EQ(qs(w->studio().compareRuns()[1].config.modelDir), qs(hs::findDemoModel()));
}

TEST_F(WelcomeTest, TheButtonWaitsForTheWindowsOwnLoadAndLoadsNothingTwice) {
    auto w = std::make_unique<MainWindow>(m_dir.filePath("history"), qs(hs::findDemoModel()));
    QObject::connect(&w->studio(), &Studio::modelLoaded, w.get(), [w = w.get()] {
        hs::RunConfig cfg;
        w->views().prompt->applyTo(cfg);
        cfg.steps = 4;
        w->views().prompt->setFrom(cfg);
    });
    w->show();
    WelcomeDialog* d = w->showWelcome();         // as at the first launch
    ASSERT_TRUE(w->views().model->isLoading());  // the window opens the demo
    EXPECT_FALSE(d->compareButton()->isEnabled());
    ASSERT_TRUE(QTest::qWaitFor([&] { return d->compareButton()->isEnabled(); }, 60000));
    ASSERT_TRUE(w->studio().model() && w->studio().model()->isDemo);
    d->compareButton()->click();
    EXPECT_EQ(d->state(), WelcomeDialog::State::Comparing) << d->resultText().toStdString();
    ASSERT_TRUE(waitEnded(*d));
    ASSERT_EQ(d->state(), WelcomeDialog::State::Done) << d->resultText().toStdString();
    const QString log = w->views().log->toPlainText();
    EXPECT_EQ(log.count("Loaded "), 1) << log.toStdString();
}

TEST_F(WelcomeTest, StoppedComparisonIsSaidAndTheButtonWaitsWhileTheStudioIsBusy) {
    m_steps = 300;
    auto w = open();
    m_steps = 4;
    WelcomeDialog* d = w->showWelcome();
    // Busy with the user's own run: the button waits for it.
    w->studio().generate();
    EXPECT_FALSE(d->compareButton()->isEnabled());
    w->studio().stop();
    ASSERT_TRUE(QTest::qWaitFor([&] { return !w->studio().isBusy(); }, 60000));
    EXPECT_TRUE(d->compareButton()->isEnabled());

    QSignalSpy steps(&w->studio().controller(), &RunController::stepDone);
    d->compareButton()->click();
    ASSERT_TRUE(QTest::qWaitFor([&] { return steps.count() >= 1; }, 60000));
    EXPECT_GE(d->findChild<QProgressBar*>()->value(), 1);
    w->studio().stop();
    ASSERT_TRUE(waitEnded(*d));
    EXPECT_EQ(d->state(), WelcomeDialog::State::Failed);
    EXPECT_TRUE(d->resultText().contains("stopped before it ended"))
        << d->resultText().toStdString();
    EXPECT_FALSE(d->showLayerButton()->isEnabled());
    EXPECT_TRUE(d->compareButton()->isEnabled());
}

TEST_F(WelcomeTest, TheLibraryButtonOpensTheModelLibrary) {
    auto w = open();
    WelcomeDialog* d = w->showWelcome();
    EXPECT_EQ(w->findChild<LibraryDialog*>(), nullptr);
    d->libraryButton()->click();
    auto* library = w->findChild<LibraryDialog*>();
    ASSERT_NE(library, nullptr);
    EXPECT_TRUE(library->isVisible());
    ASSERT_TRUE(QTest::qWaitFor([&] { return !library->isScanning(); }, 60000));
}

TEST_F(WelcomeTest, HelpWelcomeShowsItAgain) {
    auto w = open();
    QSettings().setValue(StudioSettings::kWelcomeShownKey, true);  // not the first launch
    EXPECT_EQ(w->showWelcomeAtFirstLaunch(), nullptr);
    auto* action = w->findChild<QAction*>("welcomeAction");
    ASSERT_NE(action, nullptr);
    action->trigger();
    auto* d = w->findChild<WelcomeDialog*>();
    ASSERT_NE(d, nullptr);
    EXPECT_TRUE(d->isVisible());
    d->reject();  // Close
    EXPECT_FALSE(d->isVisible());
    action->trigger();
    EXPECT_EQ(w->findChild<WelcomeDialog*>(), d);  // the same window, shown again
    EXPECT_TRUE(d->isVisible());
}

TEST_F(WelcomeTest, ClosingTheWindowMidComparisonIsClean) {
    m_steps = 300;
    auto w = open();
    m_steps = 4;
    QPointer<WelcomeDialog> d = w->showWelcome();
    QSignalSpy steps(&w->studio().controller(), &RunController::stepDone);
    d->compareButton()->click();
    ASSERT_TRUE(QTest::qWaitFor([&] { return steps.count() >= 1; }, 60000));
    QElapsedTimer t;
    t.start();
    w->close();
    w.reset();
    std::printf("close during the welcome's comparison: %.3f s\n", t.elapsed() / 1000.0);
    EXPECT_LT(t.elapsed(), 2000);
    EXPECT_TRUE(d.isNull());  // gone with its window
}
