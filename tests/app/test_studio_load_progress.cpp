// The studio's worker shows a model's loading progress as the job's stage, the line the prompt
// panel shows while a job runs: "Loading transformer: 12/12 MB, done in 0.0 s" for every
// component of the demo model, before the run's own stages.
#include <gtest/gtest.h>

#include <QSignalSpy>
#include <QTest>

#include "run_controller.h"
#include "runtime/demo_location.h"

TEST(StudioLoadProgress, AJobsLoadReportsEachComponentAsItsStage) {
    ASSERT_FALSE(hs::findDemoModel().empty()) << "resources/demo-model is missing";
    RunController c;
    QStringList stages;
    int job = -1;
    QObject::connect(&c, &RunController::stage, [&](int id, const QString& s) {
        if (id == job) stages << s;
    });
    QSignalSpy finished(&c, &RunController::jobFinished);
    hs::RunConfig cfg;
    cfg.modelDir = hs::findDemoModel();
    cfg.steps = 1;
    job = c.start(cfg);
    ASSERT_TRUE(QTest::qWaitFor([&] { return finished.count() > 0; }, 120000));
    for (const char* component : {"text_encoder", "transformer", "vae"}) {
        const QString start = QString("Loading %1: 0/").arg(component);
        const QString done = QString("Loading %1: ").arg(component);
        bool sawStart = false, sawDone = false;
        for (const auto& s : stages) {
            sawStart |= s.startsWith(start);
            sawDone |= s.startsWith(done) && s.contains("done in");
        }
        EXPECT_TRUE(sawStart) << component << "\n" << stages.join('\n').toStdString();
        EXPECT_TRUE(sawDone) << component << "\n" << stages.join('\n').toStdString();
    }
    // The load's lines come before the run's own stages.
    ASSERT_FALSE(stages.isEmpty());
    EXPECT_TRUE(stages.first().startsWith("Loading ")) << stages.first().toStdString();
}
