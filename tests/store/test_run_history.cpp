// RunHistory on a real SQLite file in a temporary folder: round trip through a restart, a crash
// mid-run, concurrent writers, damaged files.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QDir>
#include <QFile>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <cmath>
#include <thread>

#include "../records/record_equality.h"
#include "history_test_records.h"
#include "run_history.h"

namespace {

using hs::test::expectSameStats;

// Writes a run the way the run controller does: begin, steps with probes, previews.
qint64 writeSteps(RunHistory& h, int steps, const std::string& prompt = "a red fox") {
    const qint64 id =
        h.beginRun(testrec::config(prompt), "transformer=fp16", testrec::components());
    EXPECT_GT(id, 0) << h.errorString().toStdString();
    for (int i = 0; i < steps; ++i) {
        EXPECT_TRUE(h.addStep(id, testrec::step(i), testrec::probesOf(i)))
            << h.errorString().toStdString();
        EXPECT_TRUE(h.addPreview(id, testrec::preview(12, 8, i, i == steps - 1)))
            << h.errorString().toStdString();
    }
    return id;
}

// Turns the history in `dir` back into format `version`: runs `statements`, drops the columns
// formats 4 (the runs' estimates, below 4) and 5 (the previews' projection) added and sets
// user_version.
void downgrade(const QTemporaryDir& dir, int version, const QStringList& statements) {
    {
        QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", "downgrade");
        db.setDatabaseName(dir.filePath("history.sqlite"));
        ASSERT_TRUE(db.open());
        QSqlQuery q(db);
        QStringList all = statements;
        for (const char* c : {"estimate_seconds", "estimate_bytes", "estimate_weight_bytes",
                              "estimate_activation_bytes"})
            if (version < 4) all << QStringLiteral("ALTER TABLE runs DROP COLUMN ") + c;
        all << QStringLiteral("ALTER TABLE previews DROP COLUMN projection");
        all << QStringLiteral("PRAGMA user_version = %1").arg(version);
        for (const QString& sql : all) ASSERT_TRUE(q.exec(sql)) << sql.toStdString();
        db.close();
    }
    QSqlDatabase::removeDatabase("downgrade");
}

TEST(RunHistory, EverythingComesBackAfterARestart) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const hs::RunConfig cfg = testrec::config("a red fox, \xE7\x8B\x90\xE7\x8B\xB8");
    const hs::RunRecord rec = testrec::outcome(cfg, 4);
    qint64 id = -1;
    {
        RunHistory h(dir.path());
        ASSERT_TRUE(h.isOpen()) << h.errorString().toStdString();
        id = h.beginRun(cfg, "will be replaced", testrec::components());
        ASSERT_GT(id, 0);
        for (int i = 0; i < 4; ++i) {
            ASSERT_TRUE(h.addStep(id, rec.steps[i], testrec::probesOf(i)));
            ASSERT_TRUE(h.addPreview(id, testrec::preview(12, 8, i, i == 3, i % 2 == 1)));
        }
        ASSERT_TRUE(h.finishRun(id, rec)) << h.errorString().toStdString();
    }
    RunHistory h(dir.path());  // a restart: new instance, new connection
    ASSERT_TRUE(h.isOpen()) << h.errorString().toStdString();
    const auto runs = h.list();
    ASSERT_EQ(runs.size(), 1);
    EXPECT_EQ(runs[0].id, id);
    EXPECT_EQ(runs[0].state, RunState::Finished);
    EXPECT_EQ(runs[0].stepsDone, 4);
    EXPECT_EQ(runs[0].stepsTotal, 4);
    EXPECT_EQ(runs[0].verdict, "nan/inf");
    EXPECT_EQ(runs[0].prompt.toStdString(), cfg.prompt);
    EXPECT_EQ(runs[0].plan.toStdString(), cfg.plan.toString());
    EXPECT_EQ(runs[0].effectivePlan.toStdString(), rec.effectivePlan);
    EXPECT_EQ(runs[0].seed, cfg.seed);
    EXPECT_LT(std::abs(runs[0].created.secsTo(QDateTime::currentDateTimeUtc())), 60);

    const auto back = h.load(id);
    ASSERT_TRUE(back.has_value()) << h.errorString().toStdString();
    EXPECT_TRUE(h.errorString().isEmpty()) << h.errorString().toStdString();
    const hs::RunConfig& c = back->config;
    EXPECT_EQ(c.modelDir, cfg.modelDir);
    EXPECT_EQ(c.prompt, cfg.prompt);
    EXPECT_EQ(c.negativePrompt, cfg.negativePrompt);
    EXPECT_EQ(c.seed, cfg.seed);
    EXPECT_EQ(c.steps, cfg.steps);
    EXPECT_EQ(c.guidance, cfg.guidance);
    EXPECT_EQ(c.width, cfg.width);
    EXPECT_EQ(c.height, cfg.height);
    EXPECT_EQ(c.shift, cfg.shift);
    EXPECT_EQ(c.plan, cfg.plan);
    EXPECT_EQ(c.device, cfg.device);
    EXPECT_EQ(c.probeLevel, cfg.probeLevel);
    EXPECT_EQ(c.decodeEvery, cfg.decodeEvery);
    EXPECT_EQ(c.keepLatents, cfg.keepLatents);
    EXPECT_EQ(back->effectivePlan, rec.effectivePlan);
    ASSERT_EQ(back->components.size(), 3u);
    EXPECT_EQ(back->components[1].className, "FluxTransformer2DModel");
    EXPECT_EQ(back->components[1].parameters, 9876543);
    EXPECT_EQ(back->components[1].format, hs::Format::FP16);
    EXPECT_EQ(back->components[1].execution, hs::Execution::Emulated);
    EXPECT_EQ(back->components[1].role, hs::Role::Denoiser);
    EXPECT_EQ(back->components[2].role, hs::Role::Vae);
    ASSERT_EQ(back->steps.size(), 4u);
    for (int i = 0; i < 4; ++i) {
        const auto& a = back->steps[i];
        const auto& b = rec.steps[i];
        EXPECT_EQ(a.step, b.step);
        EXPECT_EQ(a.sigma, b.sigma);
        EXPECT_EQ(a.timestep, b.timestep);
        EXPECT_EQ(a.seconds, b.seconds);
        expectSameStats(a.latent, b.latent, "latent");
        expectSameStats(a.velocity, b.velocity, "velocity");
        expectSameStats(a.denoised, b.denoised, "denoised");
        EXPECT_EQ(a.latentValues, b.latentValues);
    }
    // The record's longer probe list (text encoder first) replaced the per-step ones.
    ASSERT_EQ(back->probes.size(), rec.probes.size());
    for (size_t i = 0; i < rec.probes.size(); ++i)
        hs::test::expectSameProbe(back->probes[i], rec.probes[i]);
    ASSERT_EQ(back->previews.size(), 4u);
    for (int i = 0; i < 4; ++i)
        hs::test::expectSamePreview(back->previews[i],
                                    testrec::preview(12, 8, i, i == 3, i % 2 == 1));
    ASSERT_TRUE(back->finalImage && back->savedImage);
    hs::test::expectSamePreview(*back->finalImage, *rec.finalImage);
    hs::test::expectSamePreview(*back->savedImage, *rec.savedImage);
    ASSERT_TRUE(back->firstNonFinite.has_value());
    hs::test::expectSameProbe(back->firstNonFinite->at, rec.firstNonFinite->at);
    ASSERT_TRUE(back->firstNonFinite->input.has_value());
    hs::test::expectSameProbe(*back->firstNonFinite->input, *rec.firstNonFinite->input);
    EXPECT_EQ(back->firstNonFinite->index, rec.firstNonFinite->index);
    expectSameStats(back->textEmbedding, rec.textEmbedding, "text");
    expectSameStats(back->image, rec.image, "image");
    EXPECT_EQ(back->verdict, rec.verdict);
    EXPECT_EQ(back->verdictExplanation, rec.verdictExplanation);
    EXPECT_EQ(back->seconds, rec.seconds);
    ASSERT_TRUE(back->estimate.has_value());
    EXPECT_EQ(back->estimate->seconds, 14.0);
    EXPECT_EQ(back->estimate->bytes, 3.5e9);
    EXPECT_EQ(back->estimate->weightBytes, 3.0e9);
    EXPECT_EQ(back->estimate->activationBytes, -1);
    EXPECT_FALSE(back->cancelled);
    EXPECT_TRUE(back->error.empty());
}

// A history written before components had roles (format 1) opens, gains the column, and its old
// runs read their roles back from their components' names.
TEST(RunHistory, AVersionOneHistoryIsUpgradedInPlace) {
    QTemporaryDir dir;
    qint64 id = 0;
    {
        RunHistory h(dir.path());
        id = writeSteps(h, 1);
    }
    // Back to format 1: no role, streaming or file-set columns.
    downgrade(
        dir, 1,
        {"ALTER TABLE components DROP COLUMN role", "ALTER TABLE components DROP COLUMN streamed",
         "ALTER TABLE runs DROP COLUMN model_files"});
    RunHistory h(dir.path());
    ASSERT_TRUE(h.isOpen()) << h.errorString().toStdString();
    // The model column of format 1 names the run's model in the list.
    ASSERT_EQ(h.list().size(), 1);
    EXPECT_EQ(h.list()[0].model, "/models/demo");
    auto back = h.load(id);
    ASSERT_TRUE(back.has_value());
    ASSERT_EQ(back->components.size(), 3u);
    EXPECT_EQ(back->components[0].role, hs::Role::TextEncoder);
    EXPECT_EQ(back->components[2].role, hs::Role::Vae);
    // New runs store their roles again.
    const qint64 next = writeSteps(h, 1);
    EXPECT_EQ(h.load(next)->components[1].role, hs::Role::Denoiser);
}

// A run of a file set (a single-file model with its VAE and encoders) and a streamed component
// come back as they were; a format-2 history gains the columns, its runs read as folders loaded
// whole.
TEST(RunHistory, FileSetsAndStreamingComeBackAndFormatTwoIsUpgraded) {
    QTemporaryDir dir;
    hs::RunConfig cfg = testrec::config("a fox");
    cfg.modelDir = "/models/flux1-dev.safetensors";
    cfg.modelFiles = {"/models/ae.safetensors", "/models/clip_l.safetensors",
                      "/models/t5xxl_fp16.safetensors", "", "/models/FLUX.1-dev/tokenizer_2"};
    auto components = testrec::components();
    components[1].streamed = true;
    qint64 old = 0, id = 0;
    {
        RunHistory h(dir.path());
        old = writeSteps(h, 1);
        id = h.beginRun(cfg, "flux", components);
        ASSERT_GT(id, 0);
        auto back = h.load(id);
        ASSERT_TRUE(back.has_value());
        EXPECT_TRUE(back->config.modelFiles == cfg.modelFiles);
        EXPECT_TRUE(back->components[1].streamed);
        EXPECT_FALSE(back->components[0].streamed);
    }
    downgrade(dir, 2,
              {"DELETE FROM runs WHERE id = " + QString::number(id),
               "DELETE FROM components WHERE run_id = " + QString::number(id),
               "ALTER TABLE components DROP COLUMN streamed",
               "ALTER TABLE runs DROP COLUMN model_files"});
    RunHistory h(dir.path());
    ASSERT_TRUE(h.isOpen()) << h.errorString().toStdString();
    auto back = h.load(old);
    ASSERT_TRUE(back.has_value());
    EXPECT_TRUE(back->config.modelFiles.empty());
    EXPECT_FALSE(back->components[1].streamed);
    const qint64 again = h.beginRun(cfg, "flux again", components);
    EXPECT_TRUE(h.load(again)->config.modelFiles == cfg.modelFiles);
}

// A format-3 history gains the estimate columns; its runs read back without an estimate, new
// runs keep theirs.
TEST(RunHistory, FormatThreeIsUpgradedAndOldRunsHaveNoEstimate) {
    QTemporaryDir dir;
    qint64 old = 0;
    {
        RunHistory h(dir.path());
        old = writeSteps(h, 1);
    }
    downgrade(dir, 3, {});
    RunHistory h(dir.path());
    ASSERT_TRUE(h.isOpen()) << h.errorString().toStdString();
    ASSERT_TRUE(h.load(old).has_value());
    EXPECT_FALSE(h.load(old)->estimate.has_value());
    const hs::RunConfig cfg = testrec::config("a fox");
    const qint64 id = h.beginRun(cfg, "plan", testrec::components());
    ASSERT_TRUE(h.finishRun(id, testrec::outcome(cfg, 2))) << h.errorString().toStdString();
    ASSERT_TRUE(h.load(id)->estimate.has_value());
    EXPECT_EQ(h.load(id)->estimate->seconds, 14.0);
}

// A step preview keeps the origin of its latent-to-RGB map; a format-4 history gains the column,
// its previews read back without one.
TEST(RunHistory, PreviewsKeepTheirProjectionAndFormatFourIsUpgraded) {
    QTemporaryDir dir;
    hs::PreviewImage p = testrec::preview(12, 8, 0, false);
    p.projection = "published: ComfyUI's SDXL latent_rgb_factors";
    qint64 old = 0, id = 0;
    {
        RunHistory h(dir.path());
        old = writeSteps(h, 1);
        id = h.beginRun(testrec::config("a fox"), "plan", testrec::components());
        ASSERT_TRUE(h.addPreview(id, p)) << h.errorString().toStdString();
        ASSERT_EQ(h.load(id)->previews.size(), 1u);
        EXPECT_EQ(h.load(id)->previews[0].projection, p.projection);
    }
    downgrade(dir, 4, {"DELETE FROM previews WHERE run_id = " + QString::number(id)});
    RunHistory h(dir.path());
    ASSERT_TRUE(h.isOpen()) << h.errorString().toStdString();
    const auto back = h.load(old);
    ASSERT_TRUE(back.has_value());
    ASSERT_EQ(back->previews.size(), 1u);
    EXPECT_EQ(back->previews[0].projection, "");
    const qint64 again = h.beginRun(testrec::config("a fox"), "plan", testrec::components());
    ASSERT_TRUE(h.addPreview(again, p)) << h.errorString().toStdString();
    EXPECT_EQ(h.load(again)->previews[0].projection, p.projection);
}

// A summary names the model the run used and the plan it ran: the plan saved when it began (a
// later run with another plan leaves it alone), and the effective plan the finished run reported
// in place of the one estimated at its start.
TEST(RunHistory, SummariesNameTheModelAndThePlanTheRunRan) {
    QTemporaryDir dir;
    RunHistory h(dir.path());
    hs::RunConfig cfg = testrec::config("a fox");
    cfg.modelDir = "/models/flux1-dev.safetensors";
    const qint64 first = h.beginRun(cfg, "transformer=fp16", testrec::components());
    hs::RunConfig other = cfg;
    other.modelDir = "/models/FLUX.1-schnell";
    other.plan = hs::PrecisionPlan::parse("vae=fp16");
    const qint64 second = h.beginRun(other, "vae=fp16", testrec::components());
    ASSERT_TRUE(h.finishRun(first, testrec::outcome(cfg, 2))) << h.errorString().toStdString();
    const auto a = h.summary(first), b = h.summary(second);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->model, "/models/flux1-dev.safetensors");
    EXPECT_EQ(b->model, "/models/FLUX.1-schnell");
    EXPECT_EQ(a->plan, "transformer=fp16,transformer.transformer_blocks.2=bf16");
    EXPECT_EQ(b->plan, "vae=fp16");
    EXPECT_EQ(a->effectivePlan, "text_encoder=bf16,transformer=fp16,vae=fp32");
    EXPECT_EQ(b->effectivePlan, "vae=fp16");
    const auto runs = h.list();
    ASSERT_EQ(runs.size(), 2);
    EXPECT_EQ(runs[0].model, b->model);
    EXPECT_EQ(runs[1].model, a->model);
}

TEST(RunHistory, UnsetStatisticsStayNaN) {
    QTemporaryDir dir;
    RunHistory h(dir.path());
    const qint64 id = h.beginRun(hs::RunConfig{}, "", {});
    hs::StepRecord s;  // default stats: min..std are NaN, SQLite stores them as NULL
    ASSERT_TRUE(h.addStep(id, s, {}));
    const auto back = h.load(id);
    ASSERT_TRUE(back && back->steps.size() == 1);
    EXPECT_TRUE(std::isnan(back->steps[0].latent.min));
    EXPECT_TRUE(std::isnan(back->steps[0].velocity.std));
    EXPECT_FALSE(back->config.shift.has_value());
    EXPECT_TRUE(back->steps[0].latentValues.empty());
    EXPECT_FALSE(back->firstNonFinite.has_value());
    EXPECT_FALSE(back->finalImage.has_value());
}

TEST(RunHistory, ACrashMidRunKeepsTheFinishedStepsAndShowsInterrupted) {
    QTemporaryDir dir;
    { RunHistory warm(dir.path()); }  // schema and driver plugin loaded; no connection open at fork
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        rlimit none{0, 0};
        setrlimit(RLIMIT_CORE, &none);
        RunHistory h(dir.path());
        const qint64 id =
            h.beginRun(testrec::config("crash"), "transformer=fp16", testrec::components());
        for (int i = 0; i < 3; ++i) {
            h.addStep(id, testrec::step(i), testrec::probesOf(i));
            h.addPreview(id, testrec::preview(12, 8, i, false));
        }
        abort();  // no finishRun, no destructor: what a segfault in the engine leaves behind
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status));
    EXPECT_EQ(WTERMSIG(status), SIGABRT);

    RunHistory h(dir.path());
    ASSERT_TRUE(h.isOpen()) << h.errorString().toStdString();
    const auto runs = h.list();
    ASSERT_EQ(runs.size(), 1);
    EXPECT_EQ(runs[0].state, RunState::Interrupted);
    EXPECT_EQ(runs[0].stepsDone, 3);
    EXPECT_EQ(runs[0].prompt, "crash");
    const auto back = h.load(runs[0].id);
    ASSERT_TRUE(back.has_value());
    ASSERT_EQ(back->steps.size(), 3u);
    expectSameStats(back->steps[2].velocity, testrec::step(2).velocity, "velocity");
    EXPECT_EQ(back->probes.size(), 9u);
    ASSERT_EQ(back->previews.size(), 3u);
    hs::test::expectSamePreview(back->previews[2], testrec::preview(12, 8, 2, false));
    EXPECT_TRUE(back->verdict.empty());
}

TEST(RunHistory, RunningRunsAreRunningUntilTheirWriterGoes) {
    QTemporaryDir dir;
    RunHistory reader(dir.path());
    qint64 id = -1;
    {
        RunHistory writer(dir.path());
        id = writeSteps(writer, 2);
        const auto runs = reader.list();  // another instance of this process sees it running
        ASSERT_EQ(runs.size(), 1);
        EXPECT_EQ(runs[0].state, RunState::Running);
        EXPECT_EQ(runs[0].stepsDone, 2);
        EXPECT_FALSE(reader.remove(id));  // refused while it runs
        EXPECT_TRUE(reader.errorString().contains("still running"));
    }
    const auto runs = reader.list();
    ASSERT_EQ(runs.size(), 1);
    EXPECT_EQ(runs[0].state, RunState::Interrupted);
}

// A second studio on the same history sees the first one's live run as running (not
// interrupted) and cannot delete it; once that process is gone, the run is interrupted.
TEST(RunHistory, AnotherProcesssLiveRunIsRunningAndCannotBeDeleted) {
    QTemporaryDir dir;
    { RunHistory warm(dir.path()); }
    int ready[2], done[2];
    ASSERT_EQ(pipe(ready), 0);
    ASSERT_EQ(pipe(done), 0);
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        RunHistory h(dir.path());
        writeSteps(h, 2);
        char c = 1;
        if (write(ready[1], &c, 1) != 1) _exit(3);
        if (read(done[0], &c, 1) != 1) _exit(4);  // the parent has looked
        _exit(0);  // gone without finishing: what a killed studio leaves
    }
    char c = 0;
    ASSERT_EQ(read(ready[0], &c, 1), 1);
    {
        RunHistory other(dir.path());
        const auto runs = other.list();
        ASSERT_EQ(runs.size(), 1);
        EXPECT_EQ(runs[0].state, RunState::Running);
        EXPECT_FALSE(other.remove(runs[0].id));
        EXPECT_TRUE(other.errorString().contains("another Halfscope window"))
            << other.errorString().toStdString();
    }
    ASSERT_EQ(write(done[1], &c, 1), 1);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    RunHistory after(dir.path());
    const auto runs = after.list();
    ASSERT_EQ(runs.size(), 1);
    EXPECT_EQ(runs[0].state, RunState::Interrupted);
    EXPECT_TRUE(after.remove(runs[0].id)) << after.errorString().toStdString();
    for (int fd : {ready[0], ready[1], done[0], done[1]}) close(fd);
}

TEST(RunHistory, CancelledAndFailedRunsKeepTheirState) {
    QTemporaryDir dir;
    RunHistory h(dir.path());
    const qint64 a = writeSteps(h, 1);
    hs::RunRecord cancelled;
    cancelled.cancelled = true;
    ASSERT_TRUE(h.finishRun(a, cancelled));
    const qint64 b = writeSteps(h, 1);
    hs::RunRecord failed;
    failed.error = "out of memory";
    ASSERT_TRUE(h.finishRun(b, failed));
    const auto runs = h.list();
    ASSERT_EQ(runs.size(), 2);
    EXPECT_EQ(runs[0].id, b);  // newest first
    EXPECT_EQ(runs[0].state, RunState::Finished);
    EXPECT_EQ(runs[0].error, "out of memory");
    EXPECT_EQ(runs[1].state, RunState::Cancelled);
    EXPECT_EQ(runStateName(runs[1].state), "cancelled");
    EXPECT_TRUE(h.load(a)->cancelled);
    EXPECT_EQ(h.load(a)->steps.size(), 1u);  // the empty record did not wipe the saved steps
}

TEST(RunHistory, FinishRunAloneSavesTheWholeRecord) {
    QTemporaryDir dir;
    RunHistory h(dir.path());
    const hs::RunRecord rec = testrec::outcome(testrec::config("late"), 3);
    const qint64 id = h.beginRun(rec.config, rec.effectivePlan, rec.components);
    ASSERT_TRUE(h.finishRun(id, rec));
    const auto back = h.load(id);
    ASSERT_TRUE(back);
    EXPECT_EQ(back->steps.size(), 3u);
    EXPECT_EQ(back->probes.size(), rec.probes.size());
    EXPECT_EQ(h.summary(id)->stepsDone, 3);
}

TEST(RunHistory, RenameAndRemoveDeleteRowsAndFiles) {
    QTemporaryDir dir;
    RunHistory h(dir.path());
    const qint64 keep = writeSteps(h, 2, "keep");
    ASSERT_TRUE(h.finishRun(keep, testrec::outcome(testrec::config("keep"), 2)));
    const qint64 gone = writeSteps(h, 2, "gone");
    ASSERT_TRUE(h.finishRun(gone, testrec::outcome(testrec::config("gone"), 2)));
    ASSERT_TRUE(h.rename(keep, "  fp16 baseline "));
    EXPECT_EQ(h.summary(keep)->name, "fp16 baseline");
    EXPECT_FALSE(h.rename(999, "x"));
    EXPECT_TRUE(h.errorString().contains("999"));

    ASSERT_TRUE(QDir(h.imageDir(gone)).exists());
    ASSERT_FALSE(QDir(h.imageDir(gone)).entryList(QDir::Files).isEmpty());
    ASSERT_TRUE(h.remove(gone)) << h.errorString().toStdString();
    EXPECT_FALSE(QDir(h.imageDir(gone)).exists());
    EXPECT_FALSE(h.load(gone).has_value());
    EXPECT_FALSE(h.remove(gone));
    const auto runs = h.list();
    ASSERT_EQ(runs.size(), 1);
    EXPECT_EQ(runs[0].id, keep);
    EXPECT_TRUE(QDir(h.imageDir(keep)).exists());
    // No orphan rows of the removed run in any table.
    QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", "inspect-remove");
    db.setDatabaseName(h.databasePath());
    ASSERT_TRUE(db.open());
    for (const char* t : {"steps", "probes", "previews", "components", "first_non_finite"}) {
        QSqlQuery q(db);
        ASSERT_TRUE(q.exec(QString("SELECT count(*) FROM %1 WHERE run_id = %2").arg(t).arg(gone)));
        ASSERT_TRUE(q.next());
        EXPECT_EQ(q.value(0).toInt(), 0) << t;
    }
    db.close();
    db = QSqlDatabase();
    QSqlDatabase::removeDatabase("inspect-remove");
}

TEST(RunHistory, TheFinalPreviewIsTheFinalImage) {
    QTemporaryDir dir;
    RunHistory h(dir.path());
    const qint64 id = writeSteps(h, 2);
    ASSERT_TRUE(h.addPreview(id, testrec::preview(24, 16, -1, true, true)));
    auto back = h.load(id);
    ASSERT_TRUE(back && back->finalImage);
    EXPECT_EQ(back->previews.size(), 2u);  // the step previews only
    hs::test::expectSamePreview(*back->finalImage, testrec::preview(24, 16, -1, true, true));
    // finishRun's final image replaces it, and the old files go.
    hs::RunRecord rec = testrec::outcome(testrec::config("a red fox"), 2);
    rec.previews.clear();
    ASSERT_TRUE(h.finishRun(id, rec));
    back = h.load(id);
    ASSERT_TRUE(back && back->finalImage && back->savedImage) << h.errorString().toStdString();
    EXPECT_TRUE(h.errorString().isEmpty()) << h.errorString().toStdString();
    EXPECT_EQ(back->previews.size(), 2u);
    hs::test::expectSamePreview(*back->finalImage, *rec.finalImage);
    hs::test::expectSamePreview(*back->savedImage, *rec.savedImage);
    // The replaced final image's files are gone: one final (png + mask) and one saved image.
    EXPECT_EQ(QDir(h.imageDir(id)).entryList({"final_*"}, QDir::Files).size(), 2);
    EXPECT_EQ(QDir(h.imageDir(id)).entryList({"saved_*"}, QDir::Files).size(), 1);
    // A second finishRun (the same record) keeps exactly one set of final images too.
    ASSERT_TRUE(h.finishRun(id, rec));
    back = h.load(id);
    ASSERT_TRUE(back && back->finalImage && back->savedImage) << h.errorString().toStdString();
    EXPECT_EQ(QDir(h.imageDir(id)).entryList({"final_*"}, QDir::Files).size(), 2);
    EXPECT_EQ(QDir(h.imageDir(id)).entryList({"saved_*"}, QDir::Files).size(), 1);
}

TEST(RunHistory, MissingImageFilesAreNamedNotFatal) {
    QTemporaryDir dir;
    RunHistory h(dir.path());
    const qint64 id = writeSteps(h, 2);
    const QStringList files = QDir(h.imageDir(id)).entryList({"step_0000*.png"}, QDir::Files);
    ASSERT_EQ(files.size(), 1);
    ASSERT_TRUE(QFile::remove(h.imageDir(id) + "/" + files[0]));
    const auto back = h.load(id);
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(back->previews.size(), 1u);
    EXPECT_EQ(back->steps.size(), 2u);
    EXPECT_TRUE(h.errorString().contains(files[0])) << h.errorString().toStdString();
}

TEST(RunHistory, ADamagedDatabaseGivesAClearError) {
    QTemporaryDir dir;
    QFile f(dir.filePath("history.sqlite"));
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(QByteArray(4096, 'x'));  // not an SQLite file at all
    f.close();
    RunHistory h(dir.path());
    EXPECT_FALSE(h.isOpen());
    EXPECT_TRUE(h.errorString().contains("damaged")) << h.errorString().toStdString();
    EXPECT_TRUE(h.errorString().contains("history.sqlite"));
    EXPECT_TRUE(h.list().isEmpty());
    EXPECT_EQ(h.beginRun(hs::RunConfig{}, "", {}), -1);
    EXPECT_FALSE(h.load(1).has_value());
    EXPECT_FALSE(h.errorString().isEmpty());
    EXPECT_EQ(QFileInfo(dir.filePath("history.sqlite")).size(), 4096);  // left as it was
}

TEST(RunHistory, AnotherProgramsDatabaseIsRefused) {
    QTemporaryDir dir;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", "foreign");
        db.setDatabaseName(dir.filePath("history.sqlite"));
        ASSERT_TRUE(db.open());
        QSqlQuery q(db);
        ASSERT_TRUE(q.exec("CREATE TABLE contacts (name TEXT)"));
        db.close();
    }
    QSqlDatabase::removeDatabase("foreign");
    RunHistory h(dir.path());
    EXPECT_FALSE(h.isOpen());
    EXPECT_TRUE(h.errorString().contains("another program")) << h.errorString().toStdString();
}

TEST(RunHistory, AnUnwritableFolderGivesAClearError) {
    QTemporaryDir dir;
    QFile f(dir.filePath("plain-file"));
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.close();
    RunHistory h(dir.filePath("plain-file/runs"));  // a folder below a file cannot exist
    EXPECT_FALSE(h.isOpen());
    EXPECT_TRUE(h.errorString().contains("Cannot create the run history folder"))
        << h.errorString().toStdString();
    EXPECT_EQ(h.beginRun(hs::RunConfig{}, "", {}), -1);
    EXPECT_FALSE(h.addStep(1, hs::StepRecord{}, {}));
}

TEST(RunHistory, BadInputIsRefusedWithAReason) {
    QTemporaryDir dir;
    RunHistory h(dir.path());
    EXPECT_FALSE(h.addStep(42, testrec::step(0), {}));
    EXPECT_TRUE(h.errorString().contains("42"));
    const qint64 id = h.beginRun(hs::RunConfig{}, "", {});
    hs::PreviewImage bad = testrec::preview(4, 4, 0, false);
    bad.rgb.resize(10);
    EXPECT_FALSE(h.addPreview(id, bad));
    EXPECT_TRUE(h.errorString().contains("inconsistent"));
    EXPECT_TRUE(QDir(h.imageDir(id)).entryList(QDir::Files).isEmpty());
    EXPECT_TRUE(h.addPreview(id, testrec::preview(4, 4, 0, false)));  // still usable afterwards
}

TEST(RunHistory, TwoThreadsWriteAtTheSameTime) {
    QTemporaryDir dir;
    // Both threads open the new, empty folder at the same moment: creating the file, switching
    // it to WAL and creating the tables race too.
    auto work = [&](const std::string& prompt, qint64* id, QString* error) {
        RunHistory h(dir.path());  // one instance per thread
        *id = h.beginRun(testrec::config(prompt), "", testrec::components());
        bool ok = *id > 0;
        for (int i = 0; i < 15; ++i)
            ok = h.addStep(*id, testrec::step(i % 4), testrec::probesOf(i, 5)) && ok;
        ok = h.finishRun(*id, hs::RunRecord{}) && ok;
        if (!ok) *error = h.errorString();
    };
    qint64 a = -1, b = -1;
    QString errorA, errorB;
    std::thread t1(work, "first", &a, &errorA), t2(work, "second", &b, &errorB);
    t1.join();
    t2.join();
    EXPECT_TRUE(errorA.isEmpty()) << errorA.toStdString();
    EXPECT_TRUE(errorB.isEmpty()) << errorB.toStdString();
    RunHistory h(dir.path());
    const auto runs = h.list();
    ASSERT_EQ(runs.size(), 2);
    for (const auto& r : runs) {
        EXPECT_EQ(r.stepsDone, 15) << r.prompt.toStdString();
        EXPECT_EQ(r.state, RunState::Finished);
        EXPECT_EQ(h.load(r.id)->probes.size(), 75u);
    }
    EXPECT_NE(a, b);
}

TEST(RunHistory, UseFromAnotherThreadFailsCleanly) {
    QTemporaryDir dir;
    RunHistory h(dir.path());
    bool ok = true;
    QString error;
    std::thread t([&] {
        ok = h.beginRun(hs::RunConfig{}, "", {}) > 0;
        error = h.errorString();
    });
    t.join();
    EXPECT_FALSE(ok);
    EXPECT_TRUE(error.contains("thread"));
    EXPECT_GT(h.beginRun(hs::RunConfig{}, "", {}), 0);  // its own thread still works
}

TEST(RunHistory, UsesWriteAheadLogging) {
    QTemporaryDir dir;
    RunHistory h(dir.path());
    writeSteps(h, 1);
    EXPECT_TRUE(QFileInfo::exists(h.databasePath() + "-wal"));
}

}  // namespace
