// Long work in the studio is visible and stoppable, offscreen on a real window: a standalone Open
// of a 2.4 GB model (the demo with a wide CLIP text encoder written sparse) shows its component,
// bytes and time left in the prompt panel, Stop cancels it within a second while the window keeps
// handling events, and the demo model stays the open one (a run on it still works); a run shows
// its stages and its estimate, and the log says estimate vs actual; Find minimal fix shows its
// trial i of n.
// LibTorch before any Qt header: see torch_include.h.
// clang-format off
#include "torch_include.h"
#include "models/common/layers.h"
#include "models/registry.h"
// clang-format on

#include <gtest/gtest.h>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <filesystem>
#include <fstream>

#include "log_panel.h"
#include "main_window.h"
#include "model_panel.h"
#include "preview_strip.h"
#include "prompt_panel.h"
#include "runtime/demo_location.h"
#include "studio.h"
#include "studio_test_fixture.h"

namespace {

namespace fs = std::filesystem;

// 24 layers of width 2048: 2.4 GB in bf16, converted to fp32 as the demo's bf16 is emulated.
nlohmann::json wideClip() {
    nlohmann::json j{{"architectures", {"CLIPTextModel"}},
                     {"hidden_act", "quick_gelu"},
                     {"hidden_size", 2048},
                     {"intermediate_size", 8192},
                     {"layer_norm_eps", 1e-5},
                     {"max_position_embeddings", 32},
                     {"num_attention_heads", 32},
                     {"num_hidden_layers", 24},
                     {"projection_dim", 2048},
                     {"torch_dtype", "bfloat16"}};
    // The ids of the demo tokenizer it is paired with.
    std::ifstream f(fs::path(hs::findDemoModel()) / "text_encoder" / "config.json");
    const auto demo = nlohmann::json::parse(f);
    for (const char* k : {"vocab_size", "bos_token_id", "eos_token_id", "pad_token_id"})
        j[k] = demo.at(k);
    return j;
}

// A bf16 safetensors file of zeros with the shapes of `config`'s model, written sparse (the
// header, then the file extended without writing data). Returns its data bytes.
uint64_t writeSparseClip(const std::string& dir, const nlohmann::json& config) {
    const auto family = hs::FamilyRegistry::global().require("CLIPTextModel", "test");
    nlohmann::json header = nlohmann::json::object();
    uint64_t at = 0;
    {
        hs::nn::MetaConstruction meta;  // names and shapes only, nothing allocated
        auto c = family->build({dir, config, {}}, "text_encoder");
        for (auto& kv : hs::stateOf(c->module())) {
            const auto shape = kv.second.sizes().vec();
            uint64_t n = 2;
            for (auto d : shape) n *= uint64_t(d);
            header[kv.first] = {
                {"dtype", "BF16"}, {"shape", shape}, {"data_offsets", {at, at + n}}};
            at += n;
        }
    }
    std::string text = header.dump();
    while (text.size() % 8) text += ' ';
    const std::string path = dir + "/model.safetensors";
    std::ofstream out(path, std::ios::binary);
    const uint64_t len = text.size();
    out.write(reinterpret_cast<const char*>(&len), 8);
    out << text;
    out.close();
    fs::resize_file(path, 8 + len + at);
    return at;
}

class StudioProgress : public StudioFixture {
protected:
    // The demo model with its text encoder replaced by the wide one.
    QString writeWideDemo() {
        const fs::path demo = hs::findDemoModel();
        const fs::path dir = m_dir.filePath("wide-demo").toStdString();
        fs::create_directories(dir / "text_encoder");
        for (const char* part : {"scheduler", "tokenizer", "transformer", "vae"})
            fs::copy(demo / part, dir / part, fs::copy_options::recursive);
        fs::copy(demo / "model_index.json", dir / "model_index.json");
        std::ofstream(dir / "text_encoder" / "config.json") << wideClip().dump(2);
        m_wideBytes = writeSparseClip((dir / "text_encoder").string(), wideClip());
        return QString::fromStdString(dir.string());
    }
    uint64_t m_wideBytes = 0;
};

TEST_F(StudioProgress, AStandaloneOpenShowsItsProgressAndStopCancelsItWithinASecond) {
    const auto space = fs::space(m_dir.path().toStdString());
    if (space.available < (uint64_t(1) << 30)) GTEST_SKIP() << "less than 1 GiB free";
    auto w = openDemo(6);
    Studio& studio = w->studio();
    const QString demo = studio.model()->dir;
    const QString wide = writeWideDemo();
    ASSERT_GT(m_wideBytes, uint64_t(2) << 30);

    // The window's event loop: the longest gap between ticks of a 20 ms timer while loading.
    QElapsedTimer sinceTick;
    qint64 longestGap = 0;
    QTimer ticker;
    QObject::connect(&ticker, &QTimer::timeout,
                     [&] { longestGap = std::max(longestGap, sinceTick.restart()); });
    QSignalSpy stopped(&studio.controller(), &RunController::loadStopped);
    QStringList shown;
    QObject::connect(&studio.controller(), &RunController::stage, [&](int id, const QString&) {
        if (id == RunController::kLoadJob) shown << w->views().prompt->progressText();
    });
    studio.openModel(wide);
    EXPECT_TRUE(studio.isBusy());
    sinceTick.start();
    ticker.start(20);
    // Stop once the text encoder's bytes are on their way (a report with a time left).
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            for (const auto& s : shown)
                if (s.startsWith("Loading text_encoder: ") && s.contains(" s left")) return true;
            return false;
        },
        60000))
        << shown.join('\n').toStdString();
    QElapsedTimer sinceStop;
    sinceStop.start();
    studio.stop();
    ASSERT_TRUE(QTest::qWaitFor([&] { return stopped.count() > 0; }, 10000));
    const qint64 stopMs = sinceStop.elapsed();
    ASSERT_TRUE(QTest::qWaitFor([&] { return !studio.isBusy(); }, 10000));
    ticker.stop();
    std::printf("stop landed after %lld ms; longest event-loop gap %lld ms; %d progress lines\n",
                (long long)stopMs, (long long)longestGap, int(shown.size()));
    EXPECT_LT(stopMs, 1000);
    EXPECT_LT(longestGap, 500);  // the window kept handling events
    // Component, size and time left, as the prompt panel showed them.
    bool sawLeft = false;
    for (const auto& s : shown) sawLeft |= s.contains(" GB") && s.contains(" s left");
    EXPECT_TRUE(sawLeft) << shown.join('\n').toStdString();

    // The demo stays the model; the log and the model panel say the load was stopped.
    ASSERT_TRUE(studio.model().has_value());
    EXPECT_EQ(studio.model()->dir, demo);
    const QString log = w->views().log->toPlainText();
    EXPECT_TRUE(log.contains(QString("Loading %1 was stopped; the model stays %2").arg(wide, demo)))
        << log.toStdString();
    EXPECT_TRUE(w->views().model->errorText().contains("was stopped"));
    EXPECT_FALSE(w->views().prompt->isRunning());

    // A run after it works on the demo model.
    QSignalSpy finished(&studio.controller(), &RunController::jobFinished);
    studio.generate();
    ASSERT_TRUE(QTest::qWaitFor([&] { return finished.count() > 0; }, 120000));
    EXPECT_FALSE(finished.first().at(1).value<hs::RunRecord>().cancelled);
}

TEST_F(StudioProgress, ARunShowsItsStagesAndEstimateAndTheLogComparesItWithTheTimeTaken) {
    auto w = openDemo(6);
    Studio& studio = w->studio();
    QStringList stages;
    QStringList progressAtEstimate;  // when the estimate arrives and once the studio showed it
    QObject::connect(&studio.controller(), &RunController::stage,
                     [&](int, const QString& s) { stages << s; });
    QObject::connect(&studio.controller(), &RunController::estimate, [&] {
        progressAtEstimate << w->views().prompt->progressText();
        QTimer::singleShot(0, [&] { progressAtEstimate << w->views().prompt->progressText(); });
    });
    QSignalSpy estimate(&studio.controller(), &RunController::estimate);
    QSignalSpy checked(&studio.controller(), &RunController::estimateChecked);
    studio.generate();
    ASSERT_TRUE(QTest::qWaitFor([&] { return !studio.isBusy(); }, 120000));
    EXPECT_TRUE(stages.contains("encoding the prompt")) << stages.join('\n').toStdString();
    EXPECT_TRUE(stages.contains("decoding the image with the VAE"))
        << stages.join('\n').toStdString();
    ASSERT_EQ(estimate.count(), 1);
    ASSERT_EQ(checked.count(), 1);
    const double estimated = estimate.first().at(1).toDouble();
    const double actual = checked.first().at(2).toDouble();
    EXPECT_GT(estimated, 0);
    EXPECT_GT(estimate.first().at(2).toDouble(), 20e6);  // bytes: the demo's weights and more
    EXPECT_DOUBLE_EQ(checked.first().at(1).toDouble(), estimated);
    EXPECT_GT(estimated / actual, 1 / 3.0);
    EXPECT_LT(estimated / actual, 3.0);
    const QString log = w->views().log->toPlainText();
    EXPECT_TRUE(log.contains("in all, estimated after its second step")) << log.toStdString();
    EXPECT_TRUE(log.contains("; its estimate said about ")) << log.toStdString();
    // A fast run may have ended (and the bar been reset) before the deferred read: either read.
    EXPECT_TRUE(progressAtEstimate.filter("about ").size() > 0)
        << progressAtEstimate.join('\n').toStdString();
}

TEST_F(StudioProgress, FindMinimalFixShowsTrialIOfNAndStopEndsIt) {
    auto w = openDemo(6);
    Studio& studio = w->studio();
    w->views().prompt->setFrom([] {
        hs::RunConfig c;
        c.prompt = "a large red circle in the centre, blue background";
        c.seed = 3;
        c.steps = 3;
        return c;
    }());
    studio.applyPlan("transformer=fp16");
    QStringList shown;
    QObject::connect(&studio.controller(), &RunController::stage, [&](int, const QString& s) {
        if (s.startsWith("Find minimal fix: trial")) shown << w->views().prompt->progressText();
    });
    QSignalSpy done(&studio.controller(), &RunController::searchFinished);
    FixSettings s;
    s.maxIterations = 12;
    studio.findMinimalFix(s);
    ASSERT_TRUE(QTest::qWaitFor([&] { return shown.size() >= 2; }, 120000));
    studio.stop();
    ASSERT_TRUE(QTest::qWaitFor([&] { return !studio.isBusy(); }, 30000));
    EXPECT_EQ(shown.first(), "Find minimal fix: trial 1 of at most 12 (bisection)");
    EXPECT_EQ(shown.at(1), "Find minimal fix: trial 2 of at most 12 (bisection)");
    ASSERT_EQ(done.count(), 1);
    EXPECT_EQ(done.first().at(1).value<hs::PrecisionSearch>().result.status,
              hs::BisectionStatus::Cancelled);
}

// Before a run the prompt panel says what it should take: after the first run of a model, plan
// and guidance mode, from that run's times, scaled to the steps and size set; the run's own
// estimate goes into its record.
TEST_F(StudioProgress, TheNextRunIsForecastFromAFinishedRunBeforeItStarts) {
    auto w = openDemo(6);
    Studio& studio = w->studio();
    PromptPanel& prompt = *w->views().prompt;
    EXPECT_FALSE(studio.forecast().has_value());
    EXPECT_TRUE(prompt.forecastText().contains("estimated after its second step"))
        << prompt.forecastText().toStdString();
    EXPECT_EQ(w->views().model->findChild<QLabel*>("modelPipeline")->text(),
              "Runs as HalfscopeDemoPipeline");

    QSignalSpy finished(&studio.controller(), &RunController::jobFinished);
    studio.generate();
    ASSERT_TRUE(QTest::qWaitFor([&] { return !studio.isBusy(); }, 120000));
    ASSERT_EQ(finished.count(), 1);
    const auto first = finished.first().at(1).value<hs::RunRecord>();
    ASSERT_TRUE(first.estimate.has_value());  // the run's estimate is part of its record
    EXPECT_GT(first.estimate->seconds, 0);
    EXPECT_GT(first.estimate->weightBytes, 20e6);
    ASSERT_TRUE(studio.forecast().has_value());
    EXPECT_TRUE(prompt.forecastText().startsWith("Next run: about "))
        << prompt.forecastText().toStdString();
    EXPECT_TRUE(prompt.forecastText().contains("from the times of run 1"));

    // Twice the steps: the forecast follows the spin box before anything runs.
    const double six = studio.forecast()->seconds;
    hs::RunConfig cfg = panelRun(*w);
    cfg.steps = 12;
    prompt.setFrom(cfg);
    ASSERT_TRUE(studio.forecast().has_value());
    const double twelve = studio.forecast()->seconds;
    EXPECT_GT(twelve, six * 1.3);
    EXPECT_LT(twelve, six * 2.0);  // the fixed part (encoding, decoding) does not double
    studio.generate();
    ASSERT_TRUE(QTest::qWaitFor([&] { return finished.count() == 2 && !studio.isBusy(); }, 120000));
    const double actual = finished.at(1).at(1).value<hs::RunRecord>().seconds;
    std::printf("12 steps: forecast %.3f s, took %.3f s\n", twelve, actual);
    EXPECT_GT(twelve / actual, 1 / 3.0);
    EXPECT_LT(twelve / actual, 3.0);

    // Another plan has no finished run yet: back to the estimate after the first step.
    studio.applyPlan("transformer=fp16");
    EXPECT_FALSE(studio.forecast().has_value());
    EXPECT_TRUE(prompt.forecastText().contains("estimated after its second step"));
}

// A comparison's runs show in the prompt panel's progress, each named by its title.
TEST_F(StudioProgress, AComparisonShowsWhichRunIsAtWhichStep) {
    auto w = openDemo(6);
    Studio& studio = w->studio();
    setDemoRun(*w, 3, panelRun(*w));
    QStringList shown;
    // Connected after the studio: runs once the studio has shown the step.
    QObject::connect(&studio.controller(), &RunController::stepDone,
                     [&] { shown << w->views().prompt->progressText(); });
    studio.compareBf16VsFp16();
    ASSERT_TRUE(QTest::qWaitFor([&] { return !studio.isBusy(); }, 120000));
    ASSERT_EQ(shown.size(), 6) << shown.join('\n').toStdString();
    EXPECT_TRUE(shown.first().startsWith("run 1 of 2, bf16: step 0 (1/3 done)"))
        << shown.first().toStdString();
    EXPECT_TRUE(shown.last().startsWith("run 2 of 2, fp16: step 2 (3/3 done)"))
        << shown.last().toStdString();
    EXPECT_TRUE(w->views().prompt->progressText().startsWith("run 2 of 2, fp16: done in "))
        << w->views().prompt->progressText().toStdString();
    // The fp16 run overflows: its end says so beside the time.
    EXPECT_TRUE(w->views().prompt->progressText().endsWith(" s: nan/inf"))
        << w->views().prompt->progressText().toStdString();
}

// A step decoded on click shows its progress in the prompt panel, counts as busy, and Stop
// cancels it.
TEST_F(StudioProgress, ADecodeOnClickShowsItsProgressAndStopCancelsIt) {
    auto w = openDemo(6);
    Studio& studio = w->studio();
    studio.generate();
    ASSERT_TRUE(QTest::qWaitFor([&] { return !studio.isBusy(); }, 120000));
    QStringList stages;
    QObject::connect(&studio.controller(), &RunController::stage,
                     [&] { stages << w->views().prompt->progressText(); });
    QSignalSpy previews(&studio.controller(), &RunController::preview);
    emit w->views().previews->stepClicked(2);
    EXPECT_TRUE(studio.isBusy());
    EXPECT_TRUE(w->views().prompt->isRunning());  // its Stop is the decode's
    ASSERT_TRUE(QTest::qWaitFor([&] { return !studio.isBusy(); }, 60000));
    ASSERT_EQ(previews.count(), 1);
    EXPECT_TRUE(previews.first().at(1).value<hs::PreviewImage>().fullDecode);
    EXPECT_TRUE(stages.contains("decoding step 2 with the VAE")) << stages.join('\n').toStdString();
    ASSERT_FALSE(stages.isEmpty());
    EXPECT_TRUE(stages.last().startsWith("step 2 decoded in ")) << stages.last().toStdString();
    EXPECT_FALSE(w->views().prompt->isRunning());

    // Stopped as soon as it is asked for: it stops at the VAE's first block.
    QSignalSpy stopped(&studio.controller(), &RunController::decodeStopped);
    emit w->views().previews->stepClicked(3);
    studio.stop();
    ASSERT_TRUE(QTest::qWaitFor([&] { return !studio.isBusy(); }, 60000));
    ASSERT_EQ(stopped.count(), 1);
    EXPECT_EQ(stopped.first().at(1).toInt(), 3);
    EXPECT_EQ(previews.count(), 1);  // no image for the stopped decode
    EXPECT_TRUE(w->views().log->toPlainText().contains("Decoding step 3 was stopped"));
    EXPECT_EQ(w->views().prompt->progressText(), "decoding step 3 stopped");
}

}  // namespace
