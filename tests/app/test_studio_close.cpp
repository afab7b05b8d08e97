// Closing the studio while it works, and a history database that another program holds locked:
// the window closes within a second whatever runs (a run, a comparison, a search, a load), the
// runs saved before stay as they were, the stopped run is saved as cancelled, and a locked
// database gives a message instead of a frozen window.
#include <gtest/gtest.h>

#include <QElapsedTimer>
#include <QSettings>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>

#include "history_browser.h"
#include "history_table_model.h"
#include "log_panel.h"
#include "main_window.h"
#include "precision_panel.h"
#include "prompt_panel.h"
#include "run_history.h"
#include "runtime/demo_location.h"
#include "studio.h"
#include "studio_test_fixture.h"

namespace {

class StudioCloseTest : public StudioFixture {
protected:
    std::unique_ptr<MainWindow> open() { return openStudio(); }
    static void setSteps(MainWindow& w, int steps) { setDemoRun(w, steps, panelRun(w)); }
    // With `steps` steps set, `start` begins work; after `afterSteps` of its steps the window is
    // closed as the user does: it is gone within a second.
    static void expectQuickCloseDuring(std::unique_ptr<MainWindow>& w, int steps, int afterSteps,
                                       const char* what, const std::function<void()>& start) {
        setSteps(*w, steps);
        QSignalSpy done(&w->studio().controller(), &RunController::stepDone);
        start();
        ASSERT_TRUE(QTest::qWaitFor([&] { return done.count() >= afterSteps; }, 60000));
        const double seconds = closeSeconds(w);
        std::printf("close during %s: %.3f s\n", what, seconds);
        EXPECT_LT(seconds, 1.0);
    }
    // Closes the window as the user does and destroys it; returns the seconds it took.
    static double closeSeconds(std::unique_ptr<MainWindow>& w) {
        QElapsedTimer t;
        t.start();
        w->close();
        w.reset();
        return t.elapsed() / 1000.0;
    }
    // A run of `steps` steps that calls `afterStep(steps done)` after each of its steps (the tests
    // lock and unlock the history there); returns once the studio is idle again.
    static void runCalling(MainWindow& w, int steps, const std::function<void(int)>& afterStep) {
        setSteps(w, steps);
        QSignalSpy done(&w.studio().controller(), &RunController::stepDone);
        const auto c = QObject::connect(&w.studio().controller(), &RunController::stepDone,
                                        [&] { afterStep(done.count()); });
        w.studio().generate();
        const bool idle = waitIdle(w);
        QObject::disconnect(c);
        ASSERT_TRUE(idle);
    }
    // A finished run of `steps` steps; returns its history id.
    qint64 finishedRun(MainWindow& w, int steps) {
        setSteps(w, steps);
        w.studio().generate();
        EXPECT_TRUE(waitIdle(w));
        RunHistory h(historyDir());
        const auto runs = h.list();
        return runs.isEmpty() ? -1 : runs.first().id;
    }
    // After the window closed: the history holds one run, finished with `steps` steps, and
    // `record` is its record as loaded.
    void loadTheOneFinishedRun(int steps, std::optional<hs::RunRecord>& record) {
        RunHistory h(historyDir());
        const auto runs = h.list();
        ASSERT_EQ(runs.size(), 1);
        EXPECT_EQ(runs[0].state, RunState::Finished);
        EXPECT_EQ(runs[0].stepsDone, steps);
        record = h.load(runs[0].id);
        ASSERT_TRUE(record.has_value()) << h.errorString().toStdString();
    }
    QString historyDir() const { return m_dir.filePath("history"); }
};

// Another program's connection to the history database: lock() holds an exclusive write
// transaction open, as a program that keeps the database busy does.
class AnotherProgram {
public:
    explicit AnotherProgram(const QString& historyDir) {
        m_db = QSqlDatabase::addDatabase("QSQLITE", kName);
        m_db.setDatabaseName(historyDir + "/history.sqlite");
        m_open = m_db.open();
        m_query = QSqlQuery(m_db);
    }
    ~AnotherProgram() { close(); }
    AnotherProgram(const AnotherProgram&) = delete;
    AnotherProgram& operator=(const AnotherProgram&) = delete;

    bool isOpen() const { return m_open; }
    bool lock() {
        return m_query.exec("BEGIN EXCLUSIVE") &&
               m_query.exec("UPDATE runs SET name = 'held' WHERE id = -1");
    }
    bool unlock() { return m_query.exec("ROLLBACK"); }
    std::string error() const { return m_query.lastError().text().toStdString(); }
    // Lets the database go, so that the connection's name is free again.
    void close() {
        if (!m_db.isValid()) return;
        m_query.finish();
        m_query = QSqlQuery();
        m_db.close();
        m_db = QSqlDatabase();
        QSqlDatabase::removeDatabase(kName);
    }

private:
    static constexpr const char* kName = "another-program";
    QSqlDatabase m_db;
    QSqlQuery m_query;
    bool m_open = false;
};

// The longest time the GUI thread's event loop went without a 10 ms timer tick.
class TickGap {
public:
    TickGap() {
        m_timer.setInterval(10);
        QObject::connect(&m_timer, &QTimer::timeout,
                         [this] { m_longest = std::max(m_longest, m_since.restart()); });
        m_since.start();
        m_timer.start();
    }
    double longestSeconds() {
        m_longest = std::max(m_longest, m_since.restart());
        return m_longest / 1000.0;
    }

private:
    QTimer m_timer;
    QElapsedTimer m_since;
    qint64 m_longest = 0;
};

}  // namespace

TEST_F(StudioCloseTest, ClosingDuringARunReturnsAtOnceAndSavesItAsCancelled) {
    auto w = open();
    const qint64 before = finishedRun(*w, 2);
    ASSERT_GE(before, 0);

    ASSERT_NO_FATAL_FAILURE(
        expectQuickCloseDuring(w, 500, 2, "a run", [&] { w->studio().generate(); }));

    RunHistory h(historyDir());
    const auto runs = h.list();
    ASSERT_EQ(runs.size(), 2);
    const RunSummary& stopped = runs[0];
    EXPECT_EQ(stopped.state, RunState::Cancelled) << runStateName(stopped.state).toStdString();
    EXPECT_GE(stopped.stepsDone, 2);
    EXPECT_LT(stopped.stepsDone, 500);
    const RunSummary& kept = runs[1];
    EXPECT_EQ(kept.id, before);
    EXPECT_EQ(kept.state, RunState::Finished);
    EXPECT_EQ(kept.stepsDone, 2);
    const auto record = h.load(before);
    ASSERT_TRUE(record.has_value()) << h.errorString().toStdString();
    EXPECT_TRUE(record->finalImage.has_value());
    EXPECT_EQ(record->steps.size(), 2u);
}

TEST_F(StudioCloseTest, ClosingDuringAComparisonASearchOrALoadReturnsAtOnce) {
    {
        auto w = open();
        ASSERT_NO_FATAL_FAILURE(expectQuickCloseDuring(w, 300, 1, "a comparison",
                                                       [&] { w->studio().compareBf16VsFp16(); }));
        RunHistory h(historyDir());
        const auto runs = h.list();
        ASSERT_EQ(runs.size(), 1);  // the second plan never started
        EXPECT_EQ(runs[0].state, RunState::Cancelled);
    }
    {
        // A search's runs are long (the failing run, the reference run and each trial run 100
        // steps here): the close stops the one running within a block.
        auto w = open();
        setSteps(*w, 100);
        w->views().precision->applyPreset(PrecisionPanel::Preset::TransformerFp16);
        QSignalSpy stages(&w->studio().controller(), &RunController::stage);
        FixSettings s;
        s.trialSteps = 100;
        w->studio().findMinimalFix(s);
        ASSERT_TRUE(QTest::qWaitFor(
            [&] {
                for (const auto& args : stages)
                    if (args.at(1).toString() == "failing run") return true;
                return false;
            },
            60000));
        QTest::qWait(100);  // inside the failing run (about 2 s long)
        const double seconds = closeSeconds(w);
        std::printf("close during a precision search: %.3f s\n", seconds);
        EXPECT_LT(seconds, 1.0);
    }
    {
        // The window opens the demo model as it starts: close while that load runs.
        auto w =
            std::make_unique<MainWindow>(historyDir(), QString::fromStdString(hs::findDemoModel()));
        w->show();
        QTest::qWait(20);
        const double seconds = closeSeconds(w);  // the load stops at its next tensor
        std::printf("close during a load: %.3f s\n", seconds);
        EXPECT_LT(seconds, 1.0);
    }
}

TEST_F(StudioCloseTest, ALockedHistoryGivesAMessageInsteadOfFreezingTheWindow) {
    auto w = open();
    const qint64 saved = finishedRun(*w, 2);
    ASSERT_GE(saved, 0);

    // Another program holds the database: an exclusive write transaction that it keeps open.
    AnotherProgram other(historyDir());
    ASSERT_TRUE(other.isOpen());
    ASSERT_TRUE(other.lock()) << other.error();

    {
        TickGap gap;
        setSteps(*w, 3);
        w->studio().generate();  // the run works; its history row cannot be written
        ASSERT_TRUE(waitIdle(*w));
        const double longest = gap.longestSeconds();
        std::printf("longest event-loop gap during a run with the history locked: %.3f s\n",
                    longest);
        EXPECT_LT(longest, 1.0);  // was the 5 s busy timeout (at least once per write)
        EXPECT_TRUE(w->studio().lastRun().has_value());
    }
    const QString log = w->views().log->toPlainText();
    EXPECT_TRUE(log.contains("is locked by another program")) << log.toStdString();

    HistoryBrowser* browser = w->views().history;
    browser->refresh();
    int row = -1;
    for (int r = 0; r < browser->rowCount(); ++r)
        if (browser->runAt(r) == saved) row = r;
    ASSERT_GE(row, 0);
    {
        QElapsedTimer t;
        t.start();
        auto* model = browser->view()->model();
        EXPECT_FALSE(
            model->setData(model->index(row, HistoryTableModel::Name), "renamed", Qt::EditRole));
        std::printf("rename with the history locked: %.3f s\n", t.elapsed() / 1000.0);
        EXPECT_LT(t.elapsed(), 1000);
        EXPECT_TRUE(browser->message().contains("locked")) << browser->message().toStdString();
    }
    {
        browser->selectRun(saved);
        browser->setDeleteConfirmer([](QWidget*, const QVector<RunSummary>&) { return true; });
        QElapsedTimer t;
        t.start();
        browser->deleteSelected();
        std::printf("delete with the history locked: %.3f s\n", t.elapsed() / 1000.0);
        EXPECT_LT(t.elapsed(), 1000);
        EXPECT_TRUE(browser->message().contains("locked")) << browser->message().toStdString();
    }
    other.unlock();
    other.close();

    EXPECT_LT(closeSeconds(w), 1.0);
    RunHistory h(historyDir());
    const auto runs = h.list();
    ASSERT_EQ(runs.size(), 1);  // nothing was deleted; the locked-out run has no row
    EXPECT_EQ(runs[0].id, saved);
    EXPECT_TRUE(runs[0].name.isEmpty());  // the rename did not happen
    EXPECT_EQ(runs[0].state, RunState::Finished);
}

TEST_F(StudioCloseTest, StepsThatMeetALockedHistoryAreSavedWhenTheRunEnds) {
    auto w = open();
    AnotherProgram other(historyDir());
    ASSERT_TRUE(other.isOpen());

    // The lock arrives after the run's row is written and goes before the run ends.
    TickGap gap;
    bool locked = false, released = false;
    ASSERT_NO_FATAL_FAILURE(runCalling(*w, 30, [&](int done) {
        if (!locked && done >= 2) {
            locked = other.lock();
        } else if (locked && !released && done >= 12) {
            released = other.unlock();
        }
    }));
    ASSERT_TRUE(locked) << other.error();
    ASSERT_TRUE(released) << other.error();
    const double longest = gap.longestSeconds();
    std::printf("longest event-loop gap with the history locked mid-run: %.3f s\n", longest);
    EXPECT_LT(longest, 1.0);  // one short wait, not a 5 s wait per step
    const QString log = w->views().log->toPlainText();
    EXPECT_TRUE(log.contains("saved when the run ends")) << log.toStdString();
    other.close();

    EXPECT_LT(closeSeconds(w), 1.0);
    // The steps held back were written with the record.
    std::optional<hs::RunRecord> record;
    ASSERT_NO_FATAL_FAILURE(loadTheOneFinishedRun(30, record));
    EXPECT_EQ(record->steps.size(), 30u);
}

TEST_F(StudioCloseTest, ARunFinishedWhileTheHistoryIsLockedIsSavedOnceTheLockGoes) {
    auto w = open();
    AnotherProgram other(historyDir());
    ASSERT_TRUE(other.isOpen());

    bool locked = false;
    ASSERT_NO_FATAL_FAILURE(runCalling(*w, 10, [&](int done) {
        if (!locked && done >= 2) locked = other.lock();
    }));
    ASSERT_TRUE(locked) << other.error();
    const QString log = w->views().log->toPlainText();
    EXPECT_TRUE(log.contains("is not saved yet")) << log.toStdString();
    other.unlock();
    other.close();

    EXPECT_LT(closeSeconds(w), 1.0);  // the close makes the last try (or the timer did)
    std::optional<hs::RunRecord> record;
    ASSERT_NO_FATAL_FAILURE(loadTheOneFinishedRun(10, record));
    EXPECT_TRUE(record->finalImage.has_value());
}
