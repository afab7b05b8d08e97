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
#include "prompt_panel.h"
#include "runtime/demo_location.h"
#include "studio.h"
#include "studio_test_fixture.h"

namespace {

namespace fs = std::filesystem;

// 24 layers of width 2048: 2.4 GB in bf16, converted to fp32 as the demo's bf16 is emulated.
nlohmann::json wideClip() {
    return {{"architectures", {"CLIPTextModel"}},
            {"hidden_act", "quick_gelu"},
            {"hidden_size", 2048},
            {"intermediate_size", 8192},
            {"layer_norm_eps", 1e-5},
            {"max_position_embeddings", 32},
            {"num_attention_heads", 32},
            {"num_hidden_layers", 24},
            {"projection_dim", 2048},
            {"vocab_size", 607},
            {"bos_token_id", 605},
            {"eos_token_id", 606},
            {"pad_token_id", 606},
            {"torch_dtype", "bfloat16"}};
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
    std::unique_ptr<MainWindow> open() {
        auto w = openStudio();
        setDemoRun(*w, 6);
        return w;
    }
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
    auto w = open();
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
    auto w = open();
    Studio& studio = w->studio();
    QStringList stages;
    QString progressAtEstimate;
    QObject::connect(&studio.controller(), &RunController::stage,
                     [&](int, const QString& s) { stages << s; });
    QObject::connect(&studio.controller(), &RunController::estimate, [&] {
        QTimer::singleShot(0, [&] { progressAtEstimate = w->views().prompt->progressText(); });
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
    EXPECT_TRUE(log.contains("in all, estimated from its first step")) << log.toStdString();
    EXPECT_TRUE(log.contains("; its estimate said about ")) << log.toStdString();
    EXPECT_TRUE(progressAtEstimate.contains("about ")) << progressAtEstimate.toStdString();
}

TEST_F(StudioProgress, FindMinimalFixShowsTrialIOfNAndStopEndsIt) {
    auto w = open();
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

}  // namespace
