// The studio end to end, offscreen, on the embedded demo model and a tiny FLUX.1 (a file set and
// a folder): real window, real worker thread, real pipeline, real SQLite history.
// LibTorch (through the tiny FLUX.1 fixture) before any Qt header: see torch_include.h.
// clang-format off
#include "torch_include.h"
#include "anima_fixture.h"
#include "qwenimage_fixture.h"
#include "flux1_fixture.h"
#include "sd_fixture.h"
// clang-format on

#include <gtest/gtest.h>
#include <qcustomplot.h>
#include <unistd.h>

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <cstdio>
#include <limits>

#include "compare_view.h"
#include "fix_panel.h"
#include "history_browser.h"
#include "image_view.h"
#include "log_panel.h"
#include "main_window.h"
#include "model_panel.h"
#include "precision_panel.h"
#include "preview_strip.h"
#include "prompt_panel.h"
#include "run_history.h"
#include "runtime/demo_location.h"
#include "step_plot.h"
#include "studio.h"
#include "studio_test_fixture.h"

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

// The components the precision panel has a row for, in its order.
QStringList precisionRows(MainWindow& w) {
    QStringList rows;
    for (auto* c : w.views().precision->findChildren<QComboBox*>())
        if (c->objectName().startsWith("format_")) rows << c->objectName().mid(7);
    return rows;
}

class StudioTest : public StudioFixture {
protected:
    // The plot draws a zero count as a gap (NaN), so gaps add nothing.
    static double seriesSum(StepPlot* plot, StepPlot::Series s) {
        double sum = 0;
        for (auto it = plot->graph(0, s)->data()->constBegin();
             it != plot->graph(0, s)->data()->constEnd(); ++it)
            if (!std::isnan(it->value)) sum += it->value;
        return sum;
    }
    // Opens `files` through the model panel's "Open files…" button, as a user picks them.
    static void pickFiles(MainWindow& w, const QStringList& files) {
        w.views().model->setFilesChooser([files](QWidget*, const QString&) { return files; });
        auto* button = w.views().model->findChild<QPushButton*>("openFiles");
        ASSERT_NE(button, nullptr);
        button->click();
    }
    static bool waitModel(MainWindow& w, const QString& path) {
        return QTest::qWaitFor(
            [&] { return w.studio().model() && w.studio().model()->dir == path; }, 120000);
    }
    // Whether the model at `path` is loaded within two minutes; a failure quotes the log and the
    // model panel's error line.
    static ::testing::AssertionResult loaded(MainWindow& w, const QString& path) {
        if (waitModel(w, path)) return ::testing::AssertionSuccess();
        return ::testing::AssertionFailure() << w.views().log->toPlainText().toStdString()
                                             << w.views().model->errorText().toStdString();
    }
    // Starts a run and waits for its end: `r` is its record, made without an error.
    static void generateAndWait(MainWindow& w, hs::RunRecord& r) {
        w.studio().generate();
        ASSERT_TRUE(waitIdle(w));
        ASSERT_TRUE(w.studio().lastRun()) << w.views().log->toPlainText().toStdString();
        r = *w.studio().lastRun();
        EXPECT_TRUE(r.error.empty()) << r.error;
    }
    // A short run of the tiny FLUX.1 model: `steps` steps at 16x16 (or the next size it takes).
    static void setTinyRun(MainWindow& w, int steps) {
        hs::RunConfig cfg;
        w.views().prompt->applyTo(cfg);
        const int m = w.studio().model()->sizeMultiple;
        cfg.width = cfg.height = (16 + m - 1) / m * m;
        cfg.steps = steps;
        cfg.seed = 7;
        cfg.prompt = "a large red circle in the centre, blue background";
        w.views().prompt->setFrom(cfg);
    }
    // A two-step run of the loaded tiny model: `r` is its record, with two steps and a finite
    // image.
    static void runTwoSteps(MainWindow& w, hs::RunRecord& r) {
        setTinyRun(w, 2);
        ASSERT_NO_FATAL_FAILURE(generateAndWait(w, r));
        ASSERT_EQ(r.steps.size(), 2u);
        EXPECT_TRUE(r.image.allFinite());
    }
    // Opens the model folder `folder` in `w`: the precision panel gets a row for each of `rows`
    // and the prompt panel proposes the model's defaults, 50 steps at `guidance`.
    static void openFolderWithDefaults(MainWindow& w, const std::string& folder,
                                       const QStringList& rows, double guidance) {
        w.studio().openModel(qs(folder));
        ASSERT_TRUE(loaded(w, qs(folder)));
        EXPECT_EQ(precisionRows(w), rows);
        const hs::RunConfig cfg = panelRun(w);
        EXPECT_EQ(cfg.steps, 50);
        EXPECT_DOUBLE_EQ(cfg.guidance, guidance);
    }
};

// Resident memory of this process in MiB (Linux).
double residentMiB() {
    long pages = 0, resident = 0;
    if (FILE* f = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
        std::fclose(f);
    }
    return double(resident) * double(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

bool hasColour(const QImage& img, QRgb c) {
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x)
            if ((img.pixel(x, y) & 0xFFFFFF) == (c & 0xFFFFFF)) return true;
    return false;
}

}  // namespace

TEST_F(StudioTest, ARunFillsThePlotPreviewsAndVerdict) {
    auto w = openDemo();
    w->studio().generate();
    ASSERT_TRUE(waitIdle(*w));
    const auto& v = w->views();
    EXPECT_EQ(v.plot->graph(0, StepPlot::AbsMax)->dataCount(), 4);
    for (int s = 0; s < 4; ++s) EXPECT_TRUE(v.previews->hasPreview(s)) << s;
    EXPECT_EQ(v.image->verdict(), ImageView::Verdict::Ok) << v.image->explanation().toStdString();
    EXPECT_EQ(seriesSum(v.plot, StepPlot::NanCount), 0);
}

TEST_F(StudioTest, Fp16TransformerShowsNaNAndAMagentaPreview) {
    auto w = openDemo();
    w->views().precision->applyPreset(PrecisionPanel::Preset::TransformerFp16);
    w->studio().generate();
    ASSERT_TRUE(waitIdle(*w));
    const auto& v = w->views();
    EXPECT_GT(seriesSum(v.plot, StepPlot::NanCount), 0);
    EXPECT_TRUE(hasColour(v.previews->canvas()->grab().toImage(), qRgb(255, 0, 255)));
    EXPECT_EQ(v.image->verdict(), ImageView::Verdict::NonFinite);
    ASSERT_TRUE(w->studio().lastRun());
    ASSERT_TRUE(w->studio().lastRun()->firstNonFinite);
    EXPECT_EQ(w->studio().lastRun()->firstNonFinite->at.name.rfind("transformer.", 0), 0u);
}

// Settings > bf16 on the CPU: the engine's mode, the precision panel and the loaded weights follow.
TEST_F(StudioTest, SwitchingCpuBf16ModeReloadsTheModelAndThePanelSaysSo) {
    auto w = openDemo();
    // The panel rebuilds its rows when a model loads: look the label up each time.
    auto execText = [&] {
        auto* te = w->findChild<QLabel*>("exec_text_encoder");
        return te ? te->text().toStdString() : std::string("(no label)");
    };
    EXPECT_NE(execText().find("bf16, emulated"), std::string::npos) << execText();
    w->applyCpuBf16("native");
    ASSERT_TRUE(QTest::qWaitFor([&] { return w->views().log->toPlainText().count("Loaded ") == 2; },
                                60000));
    EXPECT_NE(execText().find("bf16, native"), std::string::npos) << execText();
    hs::RunConfig cfg = panelRun(*w);
    cfg.steps = 2;  // native bf16 is ~13x slower than fp32 on a CPU without bf16 instructions
    w->views().prompt->setFrom(cfg);
    w->studio().generate();
    ASSERT_TRUE(waitIdle(*w));
    ASSERT_TRUE(w->studio().lastRun());
    EXPECT_EQ(w->studio().lastRun()->components[0].execution, hs::Execution::Native);
    w->applyCpuBf16("emulated");
    EXPECT_NE(execText().find("bf16, emulated"), std::string::npos) << execText();
}

// A plan change keeps the loaded model: only the transformer is converted again.
TEST_F(StudioTest, APlanChangeConvertsOnlyTheComponentItTouches) {
    auto w = openDemo();
    w->views().precision->applyPreset(PrecisionPanel::Preset::TransformerFp16);
    w->studio().generate();
    ASSERT_TRUE(waitIdle(*w));
    w->views().precision->setPlan(hs::PrecisionPlan());
    w->studio().generate();
    ASSERT_TRUE(waitIdle(*w));
    const QString log = w->views().log->toPlainText();
    EXPECT_TRUE(log.contains("converted transformer again, kept the other components"))
        << log.toStdString();
    EXPECT_EQ(log.count("Loaded "), 1) << log.toStdString();  // the model was opened once
    EXPECT_EQ(w->views().image->verdict(), ImageView::Verdict::Ok);
}

TEST_F(StudioTest, CompareGivesTwoColumns) {
    auto w = openDemo();
    w->studio().compareBf16VsFp16();
    ASSERT_TRUE(waitIdle(*w));
    const auto& v = w->views();
    ASSERT_NE(v.compare->imageView(0), nullptr);
    ASSERT_NE(v.compare->imageView(1), nullptr);
    EXPECT_EQ(v.compare->imageView(2), nullptr);
    EXPECT_EQ(v.compare->imageView(0)->verdict(), ImageView::Verdict::Ok);
    EXPECT_NE(v.compare->imageView(1)->verdict(), ImageView::Verdict::Ok);
    EXPECT_EQ(w->centralTabs()->currentIndex(), 1);
}

// Compare's titles name what differs ("bf16" / "fp16"), not the whole plan, in the strips, the
// difference pair, the final images and the plot's legend; the whole plan stays with each run.
TEST_F(StudioTest, HistorySurvivesARestart) {
    qint64 id = -1;
    {
        auto w = openDemo();
        w->studio().generate();
        ASSERT_TRUE(waitIdle(*w));
        const auto runs = RunHistory(m_dir.filePath("history")).list();
        ASSERT_EQ(runs.size(), 1);
        id = runs.front().id;
        EXPECT_EQ(runs.front().state, RunState::Finished);
    }
    auto w = openDemo();  // a new window, controller and history connection on the same folder
    EXPECT_EQ(w->views().history->rowCount(), 1);
    w->studio().openHistoryRun(id);
    EXPECT_EQ(w->views().plot->graph(0, StepPlot::AbsMax)->dataCount(), 4);
    EXPECT_EQ(w->views().image->verdict(), ImageView::Verdict::Ok);
}

TEST_F(StudioTest, StopTakesEffectWithinAStepAndClosingMidRunIsClean) {
    auto w = openDemo();
    hs::RunConfig cfg = panelRun(*w);
    cfg.steps = 200;
    w->views().prompt->setFrom(cfg);
    w->studio().generate();
    ASSERT_TRUE(QTest::qWaitFor(
        [&] { return w->views().plot->graph(0, StepPlot::AbsMax)->dataCount() >= 2; }, 60000));
    w->studio().stop();
    ASSERT_TRUE(waitIdle(*w));
    ASSERT_TRUE(w->studio().lastRun());
    EXPECT_TRUE(w->studio().lastRun()->cancelled);
    EXPECT_LT(w->studio().lastRun()->steps.size(), 200u);
    // Close while running: the window goes away, the worker is joined, nothing hangs.
    w->studio().generate();
    ASSERT_TRUE(QTest::qWaitFor([&] { return w->studio().isBusy(); }, 10000));
    w->close();
    w.reset();
}

TEST_F(StudioTest, TwoHundredStartStopCyclesKeepMemoryFlat) {
    auto w = openDemo();
    hs::RunConfig cfg = panelRun(*w);
    cfg.steps = 50;
    w->views().prompt->setFrom(cfg);
    double after20 = 0;
    for (int i = 0; i < 200; ++i) {
        w->studio().generate();
        // Stop at a different moment each time: before the first step, after a few steps.
        const int wait = i % 4;
        (void)QTest::qWaitFor(
            [&] { return w->views().plot->graph(0, StepPlot::AbsMax)->dataCount() >= wait; },
            10000);
        w->studio().stop();
        ASSERT_TRUE(waitIdle(*w)) << "cycle " << i;
        if (i == 19) after20 = residentMiB();
    }
    const double after200 = residentMiB();
    std::printf("  resident memory after 20 cycles %.1f MiB, after 200 %.1f MiB\n", after20,
                after200);
    EXPECT_LT(after200 - after20, 64.0);
    EXPECT_EQ(RunHistory(m_dir.filePath("history")).list().size(), 200);
}

TEST_F(StudioTest, ExportsAReportAndFindsAndAppliesTheMinimalFix) {
    auto w = openDemo();
    w->views().precision->applyPreset(PrecisionPanel::Preset::TransformerFp16);
    w->studio().generate();
    ASSERT_TRUE(waitIdle(*w));
    QString error;
    const QString report = m_dir.filePath("report.html");
    ASSERT_TRUE(w->studio().exportReport(report, &error)) << error.toStdString();
    EXPECT_TRUE(QFileInfo::exists(report));
    EXPECT_TRUE(QFileInfo::exists(m_dir.filePath("report.json")));

    FixSettings s;
    s.trialSteps = 3;
    w->studio().findMinimalFix(s);
    ASSERT_TRUE(waitIdle(*w));
    auto* fix = w->views().fix;
    ASSERT_FALSE(fix->resultPlan().isEmpty()) << fix->resultText().toStdString();
    EXPECT_GT(fix->trialCount(), 1);
    fix->applyButton()->click();
    EXPECT_EQ(w->views().precision->planText(), fix->resultPlan());
    w->studio().generate();
    ASSERT_TRUE(waitIdle(*w));
    EXPECT_EQ(w->views().image->verdict(), ImageView::Verdict::Ok);
}

namespace {

hs::RemedyRow remedyRow(int rank, hs::RemedyKind kind, const std::string& plan, bool passed,
                        double difference, const std::string& cost) {
    hs::RemedyRow r;
    r.rank = rank;
    r.candidate.kind = kind;
    r.candidate.scope = "blocks";
    r.candidate.modules = {"transformer.transformer_blocks.1"};
    r.candidate.scaleBits = 4;
    r.candidate.changes = 1;
    r.candidate.plan = hs::PrecisionPlan::parse(plan);
    r.planText = r.candidate.plan.toString();
    r.passed = passed;
    r.outcome.difference = difference;
    r.outcome.verdict = passed ? "ok" : "nan";
    r.psnr = passed ? 40.0 : std::numeric_limits<double>::quiet_NaN();
    r.secondsPerStep = 0.01;
    r.cost = cost;
    return r;
}

}  // namespace

TEST(FixPanelRemedies, ShowsTheRankedRowsAndAppliesAndComparesThem) {
    FixPanel panel;
    panel.resize(1200, 300);
    panel.show();
    const FixSettings defaults = panel.settings();
    EXPECT_EQ(defaults.remedies.size(), 4u) << "every remedy is tried by default";
    hs::RemedyTable table;
    table.target = "GPU Tesla T4 (compute capability 7.5) with 16 GB";
    table.message = "2 of 3 remedies pass";
    table.rows = {remedyRow(1, hs::RemedyKind::Clamp,
                            "transformer=fp16,transformer.transformer_blocks.1=clamp", true, 0.01,
                            "no extra memory, a few clip operations per block"),
                  remedyRow(2, hs::RemedyKind::Scale,
                            "transformer=fp16,transformer.transformer_blocks.1=scale:4", true, 0.02,
                            "no extra memory"),
                  remedyRow(3, hs::RemedyKind::Fp32Residual,
                            "transformer=fp16,transformer.transformer_blocks.1=fp32-residual",
                            false, 0.5, "fp32 residual stream")};
    panel.setRemedies(table);
    ASSERT_EQ(panel.remedyCount(), 3);
    auto* view = panel.remedyTable();
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(view->item(i, 0)->text(), QString::number(i + 1));
        EXPECT_EQ(view->item(i, 2)->text().toStdString(),
                  hs::remedyAction(table.rows[size_t(i)].candidate));
        EXPECT_EQ(panel.remedyPlan(i), QString::fromStdString(table.rows[size_t(i)].planText));
    }
    EXPECT_TRUE(view->item(0, 3)->text().startsWith("pass"));
    EXPECT_TRUE(view->item(2, 3)->text().startsWith("fail"));
    EXPECT_EQ(view->textElideMode(), Qt::ElideNone);
    EXPECT_TRUE(panel.resultText().contains("Tesla T4")) << panel.resultText().toStdString();

    QSignalSpy apply(&panel, &FixPanel::applyRequested);
    ASSERT_NE(panel.remedyApplyButton(1), nullptr);
    panel.remedyApplyButton(1)->click();
    ASSERT_EQ(apply.count(), 1);
    EXPECT_EQ(apply.at(0).at(0).toString(), panel.remedyPlan(1));
    view->selectRow(2);
    panel.findChild<QPushButton*>("applyRemedy")->click();
    ASSERT_EQ(apply.count(), 2);
    EXPECT_EQ(apply.at(1).at(0).toString(), panel.remedyPlan(2));

    QSignalSpy compare(&panel, &FixPanel::compareRequested);
    ASSERT_TRUE(panel.compareButton()->isEnabled());
    panel.compareButton()->click();
    ASSERT_EQ(compare.count(), 1);
    EXPECT_EQ(compare.at(0).at(0).toStringList(),
              QStringList({panel.remedyPlan(0), panel.remedyPlan(1)}))
        << "the passing rows, best first; the failing one stays out";

    table.rows[1].passed = false;  // one passing row: nothing to compare it with
    panel.setRemedies(table);
    EXPECT_FALSE(panel.compareButton()->isEnabled());
}

TEST(PrecisionPanelTarget, KnownGpusAndOnesGivenByHand) {
    PrecisionPanel panel;
    EXPECT_FALSE(panel.targetGpu().has_value()) << "this device by default";
    auto* combo = panel.findChild<QComboBox*>("target");
    ASSERT_NE(combo, nullptr);
    EXPECT_EQ(combo->count(), int(hs::knownGpus().size()) + 2);
    const int t4 = combo->findText("Tesla T4", Qt::MatchStartsWith);
    ASSERT_GE(t4, 0);
    combo->setCurrentIndex(t4);
    auto gpu = panel.targetGpu();
    ASSERT_TRUE(gpu.has_value());
    EXPECT_EQ(gpu->major, 7);
    EXPECT_EQ(gpu->minor, 5);
    EXPECT_DOUBLE_EQ(gpu->memoryGB, 16.0);
    EXPECT_TRUE(gpu->target);
    EXPECT_EQ(panel.targetId(), "t4");

    combo->setCurrentIndex(combo->count() - 1);  // by hand…
    auto* capability = panel.findChild<QLineEdit*>("targetCapability");
    auto* memory = panel.findChild<QLineEdit*>("targetMemory");
    ASSERT_TRUE(capability && memory);
    capability->setText("7.0");
    memory->setText("32");
    gpu = panel.targetGpu();
    ASSERT_TRUE(gpu.has_value()) << panel.targetError().toStdString();
    EXPECT_EQ(gpu->major, 7);
    EXPECT_EQ(gpu->minor, 0);
    EXPECT_DOUBLE_EQ(gpu->memoryGB, 32.0);
    EXPECT_TRUE(panel.targetError().isEmpty());
    const QString id = panel.targetId();

    capability->setText("abc");
    EXPECT_FALSE(panel.targetGpu().has_value());
    EXPECT_FALSE(panel.targetError().isEmpty());
    auto* error = panel.findChild<QLabel*>("targetError");
    ASSERT_NE(error, nullptr);
    EXPECT_TRUE(error->isVisibleTo(&panel));
    EXPECT_EQ(error->text(), panel.targetError());
    memory->setText("lots");
    capability->setText("7.0");
    EXPECT_FALSE(panel.targetGpu().has_value());
    EXPECT_TRUE(panel.targetError().contains("Memory")) << panel.targetError().toStdString();

    PrecisionPanel restored;  // the choice as persisted
    ASSERT_TRUE(restored.setTargetId(id));
    ASSERT_TRUE(restored.targetGpu().has_value());
    EXPECT_DOUBLE_EQ(restored.targetGpu()->memoryGB, 32.0);
    EXPECT_FALSE(restored.setTargetId("no-such-gpu"));
}

TEST_F(StudioTest, RemedySearchFillsTheRankedTableAndAppliesARow) {
    auto w = openDemo();
    w->views().precision->applyPreset(PrecisionPanel::Preset::TransformerFp16);
    ASSERT_TRUE(w->views().precision->setTargetId("t4"));
    FixSettings s;
    s.trialSteps = 3;
    s.remedies = {hs::RemedyKind::Clamp, hs::RemedyKind::Scale};
    w->studio().findMinimalFix(s);
    ASSERT_TRUE(waitIdle(*w));
    auto* fix = w->views().fix;
    ASSERT_GT(fix->remedyCount(), 0) << fix->resultText().toStdString();
    EXPECT_TRUE(fix->resultText().contains("Tesla T4")) << fix->resultText().toStdString();
    EXPECT_EQ(fix->remedyTable()->item(0, 0)->text(), "1");
    QStringList actions;
    bool clamp = false, scale = false;
    for (int i = 0; i < fix->remedyCount(); ++i) {
        clamp |= fix->remedyPlan(i).contains("=clamp");
        scale |= fix->remedyPlan(i).contains("=scale:");
        actions << QString("%1 %2 (%3)")
                       .arg(fix->remedyTable()->item(i, 0)->text(),
                            fix->remedyTable()->item(i, 2)->text(),
                            fix->remedyTable()->item(i, 3)->text());
    }
    std::printf("  remedies: %s\n", qPrintable(actions.join("; ")));
    EXPECT_TRUE(clamp && scale) << "both kinds asked for were tried";
    const QString plan = fix->remedyPlan(0);
    ASSERT_FALSE(plan.isEmpty());
    ASSERT_NE(fix->remedyApplyButton(0), nullptr);
    fix->remedyApplyButton(0)->click();
    EXPECT_EQ(w->views().precision->planText(), plan);

    // The report carries the ranked table and advises for the T4.
    QString error;
    ASSERT_TRUE(w->studio().exportReport(m_dir.filePath("remedies.html"), &error))
        << error.toStdString();
    QFile json(m_dir.filePath("remedies.json"));
    ASSERT_TRUE(json.open(QIODevice::ReadOnly));
    const QByteArray text = json.readAll();
    EXPECT_TRUE(text.contains("\"remedies\"")) << "no remedy table in the report";
    EXPECT_TRUE(text.contains("Tesla T4"));

    // The two passing rows side by side in the compare tab.
    const QStringList top = fix->topPassingPlans(3);
    ASSERT_GE(top.size(), 2) << "the demo's clamp and scale of the whole transformer pass";
    ASSERT_TRUE(fix->compareButton()->isEnabled());
    fix->compareButton()->click();
    ASSERT_TRUE(waitIdle(*w));
    ASSERT_EQ(w->studio().compareRuns().size(), top.size());
    for (int i = 0; i < top.size(); ++i)
        EXPECT_EQ(qs(w->studio().compareRuns()[i].config.plan.toString()), top[i]);
}

TEST_F(StudioTest, AnUnreadableFolderGivesAMessageAndKeepsTheModel) {
    auto w = openDemo();
    const QString before = w->studio().model()->dir;
    QDir(m_dir.path()).mkpath("broken");
    QFile(m_dir.filePath("broken/model_index.json")).open(QIODevice::WriteOnly);  // empty: bad JSON
    w->studio().openModel(m_dir.filePath("broken"));
    ASSERT_TRUE(QTest::qWaitFor([&] { return !w->views().model->errorText().isEmpty(); }, 30000));
    EXPECT_TRUE(w->views().model->errorText().contains("model_index.json"))
        << w->views().model->errorText().toStdString();
    EXPECT_EQ(w->studio().model()->dir, before);
    w->studio().generate();  // still usable
    ASSERT_TRUE(waitIdle(*w));
    EXPECT_EQ(w->views().image->verdict(), ImageView::Verdict::Ok);
}

TEST_F(StudioTest, APlanThatDoesNotFitInMemoryGivesAMessageAndStaysUsable) {
    // The demo model takes ~34 MB in fp32 (and in emulated bf16, the CPU's default), 24 MB of it
    // the transformer's. A 30 MB limit set once it is open streams the transformer block by
    // block for the next plan; 6 MB refuses it, with the reason; without the limit it runs whole.
    auto w = openDemo();
    const auto fp32 = hs::PrecisionPlan::parse("text_encoder=fp32,transformer=fp32,vae=fp32");
    qputenv("HALFSCOPE_MEMORY_LIMIT_MB", "30");
    w->views().precision->setPlan(fp32);
    w->studio().generate();
    ASSERT_TRUE(waitIdle(*w));
    EXPECT_EQ(w->views().image->verdict(), ImageView::Verdict::Ok);
    EXPECT_TRUE(w->views().log->toPlainText().contains("transformer streamed block by block"))
        << w->views().log->toPlainText().toStdString();

    qputenv("HALFSCOPE_MEMORY_LIMIT_MB", "6");
    w->views().precision->setPlan(hs::PrecisionPlan::parse("transformer=fp16"));
    w->studio().generate();
    ASSERT_TRUE(waitIdle(*w));
    qunsetenv("HALFSCOPE_MEMORY_LIMIT_MB");
    EXPECT_EQ(w->views().image->verdict(), ImageView::Verdict::None);
    EXPECT_TRUE(w->views().log->toPlainText().contains("even streamed block by block"))
        << w->views().log->toPlainText().toStdString();
    w->views().precision->setPlan(fp32);
    w->studio().generate();
    ASSERT_TRUE(waitIdle(*w));
    EXPECT_EQ(w->views().image->verdict(), ImageView::Verdict::Ok);
}

TEST_F(StudioTest, SettingsPersistBetweenLaunches) {
    {
        auto w = openDemo();
        hs::RunConfig cfg;
        w->views().prompt->applyTo(cfg);
        cfg.prompt = "a small purple star at the bottom, orange background";
        cfg.seed = 12345678901234ull;
        w->views().prompt->setFrom(cfg);
        w->views().precision->setPlan(hs::PrecisionPlan::parse("vae=fp16"));
        ASSERT_TRUE(w->views().precision->setTargetId("hand:7.0:32"));
        w->close();
    }
    MainWindow w(m_dir.filePath("history"));
    ASSERT_TRUE(QTest::qWaitFor([&] { return w.studio().model().has_value(); }, 60000));
    QTest::qWait(50);  // the saved plan is applied once the model has loaded
    hs::RunConfig cfg;
    w.views().prompt->applyTo(cfg);
    EXPECT_EQ(cfg.prompt, "a small purple star at the bottom, orange background");
    EXPECT_EQ(cfg.seed, 12345678901234ull);
    EXPECT_EQ(w.views().precision->planText(), "vae=fp16");
    EXPECT_EQ(w.views().precision->targetId(), "hand:7.0:32");
}

// A ComfyUI-style FLUX.1-dev file set picked together (in any order) the way a user does: the
// studio finds the model, VAE and text encoders, shows the set, proposes FLUX.1-dev's steps and
// guidance, refuses a negative prompt, and runs; the same weights as a sharded diffusers folder
// give the same pixels.
TEST_F(StudioTest, OpensAFlux1FileSetWithItsDefaultsAndRunsItLikeTheFolder) {
    const auto f = hs::test::writeTinyFlux1(m_dir.filePath("flux1").toStdString());
    auto w = openDemo();
    pickFiles(*w, {qs(f.t5), qs(f.ae), qs(f.bfl), qs(f.clipL)});
    ASSERT_TRUE(loaded(*w, qs(f.bfl)));
    const LoadedModel& m = *w->studio().model();
    expectFlux1FileSet(
        *w, f.ae, f.clipL, f.t5, "flux1-tiny.safetensors",
        {"model: flux1-tiny.safetensors", "VAE: ae.safetensors", "text encoder: clip_l.safetensors",
         "text encoder 2: t5xxl_tiny.safetensors"});
    EXPECT_EQ(precisionRows(*w),
              QStringList({"text_encoder", "text_encoder_2", "transformer", "vae"}));
    const QString log = w->views().log->toPlainText();
    EXPECT_TRUE(log.contains(qs(f.ae) + " (VAE)")) << log.toStdString();  // what was detected
    EXPECT_FALSE(log.contains("(--")) << log.toStdString();  // the studio has no options

    hs::RunConfig cfg = panelRun(*w);
    EXPECT_EQ(cfg.steps, 28);
    EXPECT_DOUBLE_EQ(cfg.guidance, 3.5);
    auto* negative = w->views().prompt->findChild<QPlainTextEdit*>("negativePrompt");
    ASSERT_NE(negative, nullptr);
    EXPECT_FALSE(negative->isEnabled());
    EXPECT_FALSE(negative->toolTip().isEmpty());

    setTinyRun(*w, 2);
    hs::RunRecord fromFiles;
    ASSERT_NO_FATAL_FAILURE(generateAndWait(*w, fromFiles));
    ASSERT_EQ(fromFiles.steps.size(), 2u);
    ASSERT_TRUE(fromFiles.finalImage);
    EXPECT_GT(fromFiles.finalImage->width, 0);
    EXPECT_TRUE(fromFiles.image.allFinite());
    EXPECT_EQ(std::count(fromFiles.finalImage->nonFinite.begin(),
                         fromFiles.finalImage->nonFinite.end(), 0),
              fromFiles.finalImage->width * fromFiles.finalImage->height);
    EXPECT_EQ(fromFiles.config.modelFiles, m.files);

    w->studio().openModel(qs(f.folder));
    ASSERT_TRUE(waitModel(*w, qs(f.folder))) << w->views().log->toPlainText().toStdString();
    EXPECT_TRUE(w->studio().model()->files.empty());
    EXPECT_TRUE(w->views().model->findChild<QLabel*>("modelFiles")->isHidden());
    EXPECT_EQ(precisionRows(*w),
              QStringList({"text_encoder", "text_encoder_2", "transformer", "vae"}));
    setTinyRun(*w, 2);
    w->studio().generate();
    ASSERT_TRUE(waitIdle(*w));
    ASSERT_TRUE(w->studio().lastRun());
    const hs::RunRecord fromFolder = *w->studio().lastRun();
    ASSERT_TRUE(fromFolder.finalImage) << fromFolder.error;
    EXPECT_EQ(fromFolder.finalImage->width, fromFiles.finalImage->width);
    EXPECT_EQ(fromFolder.finalImage->height, fromFiles.finalImage->height);
    EXPECT_TRUE(fromFolder.finalImage->rgb == fromFiles.finalImage->rgb)
        << "the file set and the folder gave different pixels";

    // Back to the demo model: it takes a negative prompt again, and its own defaults.
    w->studio().openModel(QString::fromStdString(hs::findDemoModel()));
    ASSERT_TRUE(waitModel(*w, QString::fromStdString(hs::findDemoModel())));
    EXPECT_TRUE(negative->isEnabled());
    w->views().prompt->applyTo(cfg);
    EXPECT_EQ(cfg.steps, 20);
}

// Files that make no model: the reason in the panel's error line, the open model kept.
TEST_F(StudioTest, AFileSetThatMakesNoModelSaysWhyAndKeepsTheModel) {
    const auto f = hs::test::writeTinyFlux1(m_dir.filePath("flux1").toStdString());
    auto w = openDemo();
    const QString before = w->studio().model()->dir;
    auto error = [&] { return w->views().model->errorText(); };
    auto waitError = [&] { return QTest::qWaitFor([&] { return !error().isEmpty(); }, 60000); };
    pickFiles(*w, {qs(f.ae), qs(f.clipL)});
    ASSERT_TRUE(waitError());
    EXPECT_TRUE(error().contains("None of the files holds a denoiser")) << error().toStdString();
    EXPECT_TRUE(error().contains("is still loaded")) << error().toStdString();

    pickFiles(*w, {qs(f.bfl), qs(f.bflPrefixed), qs(f.ae)});
    ASSERT_TRUE(waitError());
    EXPECT_TRUE(
        error().contains("flux1-tiny.safetensors and bfl-prefixed.safetensors both hold "
                         "a denoiser"))
        << error().toStdString();

    const QString notes = m_dir.filePath("notes.safetensors");
    {
        QFile file(notes);
        ASSERT_TRUE(file.open(QIODevice::WriteOnly));
        file.write("not a safetensors file");
    }
    pickFiles(*w, {qs(f.bfl), notes});
    ASSERT_TRUE(waitError());
    EXPECT_TRUE(error().contains("notes.safetensors is not a model file Halfscope can open"))
        << error().toStdString();
    EXPECT_EQ(w->studio().model()->dir, before);
    w->studio().generate();  // still usable
    ASSERT_TRUE(waitIdle(*w));
    EXPECT_EQ(w->views().image->verdict(), ImageView::Verdict::Ok);
}

// The studio reopens a file set at the next start, with the steps saved for it.
TEST_F(StudioTest, AFileSetModelReopensAtTheNextStart) {
    const auto f = hs::test::writeTinyFlux1(m_dir.filePath("flux1").toStdString());
    {
        auto w = openDemo();
        pickFiles(*w, {qs(f.bfl), qs(f.ae), qs(f.clipL), qs(f.t5)});
        ASSERT_TRUE(waitModel(*w, qs(f.bfl))) << w->views().model->errorText().toStdString();
        setTinyRun(*w, 3);
        w->close();
    }
    MainWindow w(m_dir.filePath("history"));
    ASSERT_TRUE(waitModel(w, qs(f.bfl))) << w.views().log->toPlainText().toStdString();
    EXPECT_EQ(w.studio().model()->files.vae, f.ae);
    EXPECT_EQ(w.studio().model()->files.textEncoder, f.clipL);
    EXPECT_EQ(w.studio().model()->files.textEncoder2, f.t5);
    hs::RunConfig cfg;
    w.views().prompt->applyTo(cfg);
    EXPECT_EQ(cfg.steps, 3);  // what was set for this model, not its default
}

// An SDXL checkpoint as one SGM file: its four components in the precision panel, SDXL's defaults,
// and the sampler the user picks is the run's.
TEST_F(StudioTest, OpensAnSdxlFileAndRunsTheSamplerPicked) {
    const std::string root = m_dir.filePath("sdxl").toStdString();
    const auto f = hs::test::writeTinySd(root, true, hs::test::sdEulerConfig());
    const std::string file =
        hs::test::writeSdSingleFile(f, root + "/files/sdxl-tiny.safetensors", true);
    auto w = openDemo();
    auto* sampler = w->views().prompt->findChild<QComboBox*>("sampler");
    ASSERT_NE(sampler, nullptr);
    EXPECT_TRUE(sampler->isHidden());  // the demo model has its own scheduler only
    pickFiles(*w, {qs(file)});
    ASSERT_TRUE(loaded(*w, qs(file)));
    EXPECT_EQ(precisionRows(*w), QStringList({"text_encoder", "text_encoder_2", "unet", "vae"}));
    EXPECT_FALSE(sampler->isHidden());
    hs::RunConfig cfg = panelRun(*w);
    EXPECT_EQ(cfg.steps, 50);
    EXPECT_DOUBLE_EQ(cfg.guidance, 5.0);
    EXPECT_EQ(cfg.scheduler, "");  // the model's own until the user picks one
    const int karras = sampler->findData(QString("dpmpp_2m_karras"));
    ASSERT_GE(karras, 0);
    sampler->setCurrentIndex(karras);
    hs::RunRecord r;
    ASSERT_NO_FATAL_FAILURE(runTwoSteps(*w, r));
    EXPECT_EQ(r.config.scheduler, "dpmpp_2m_karras");
}

// Anima's diffusers folder (modular_model_index.json): its four model parts get a precision row
// each, the text conditioner among them, and a run with the model's defaults' guidance works.
TEST_F(StudioTest, OpensAnAnimaFolderWithItsTextConditioner) {
    const auto f = hs::test::writeTinyAnima(m_dir.filePath("anima").toStdString());
    auto w = openDemo();
    ASSERT_NO_FATAL_FAILURE(openFolderWithDefaults(
        *w, f.folder, {"text_encoder", "text_conditioner", "transformer", "vae"}, 4.0));
    hs::RunRecord r;
    ASSERT_NO_FATAL_FAILURE(runTwoSteps(*w, r));
}

// A Qwen-Image diffusers folder: its three model parts get a precision row each; the model's
// defaults (50 steps, true_cfg_scale 4) are proposed, and a run with a negative prompt works.
TEST_F(StudioTest, OpensAQwenImageFolder) {
    const auto f = hs::test::writeTinyQwenImage(m_dir.filePath("qwenimage").toStdString());
    auto w = openDemo();
    ASSERT_NO_FATAL_FAILURE(
        openFolderWithDefaults(*w, f.folder, {"text_encoder", "transformer", "vae"}, 4.0));
    setTinyRun(*w, 2);
    hs::RunConfig cfg;
    w->views().prompt->applyTo(cfg);
    cfg.negativePrompt = "blurry";
    w->views().prompt->setFrom(cfg);
    hs::RunRecord r;
    ASSERT_NO_FATAL_FAILURE(generateAndWait(*w, r));
    EXPECT_EQ(r.config.negativePrompt, "blurry");
    EXPECT_TRUE(r.notes.empty());  // guided: no note about a missing negative prompt
    ASSERT_EQ(r.steps.size(), 2u);
    EXPECT_TRUE(r.image.allFinite());
}
