// File > Reproduce image... end to end, offscreen: an A1111 PNG on the demo model (its files not
// in the library: named, the model open kept, the panels filled, the original shown); ComfyUI
// Flux graphs over the tiny ComfyUI tree (a file the tree lacks is named; the whole set opens
// with the image's settings and runs them); and images that do not read change nothing.
// LibTorch (through the library tree's fixtures) before any Qt header: see torch_include.h.
// clang-format off
#include "torch_include.h"
#include "library/library_tree.h"
#include "reproduce/reproduce_fixture.h"
// clang-format on

#include <gtest/gtest.h>

#include <QAction>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QTest>
#include <QUrl>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "image_view.h"
#include "log_panel.h"
#include "main_window.h"
#include "prompt_panel.h"
#include "reproduce_image.h"
#include "studio.h"
#include "studio_settings.h"
#include "studio_test_fixture.h"

namespace {

using nlohmann::json;

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

// ComfyUI's Flux graph over the tiny tree's file names: UNETLoader, DualCLIPLoader, VAELoader,
// FluxGuidance, EmptySD3LatentImage, KSampler.
json fluxGraph(const std::string& unet) {
    const auto node = [](const char* type, json inputs) {
        return json{{"class_type", type}, {"inputs", std::move(inputs)}};
    };
    const auto link = [](const char* id) { return json::array({id, 0}); };
    json g;
    g["1"] = node("UNETLoader", {{"unet_name", unet}, {"weight_dtype", "default"}});
    g["2"] = node("DualCLIPLoader", {{"clip_name1", "t5xxl_tiny.safetensors"},
                                     {"clip_name2", "clip_l.safetensors"},
                                     {"type", "flux"}});
    g["3"] = node("VAELoader", {{"vae_name", "ae.safetensors"}});
    g["4"] = node("CLIPTextEncode", {{"text", "a red square"}, {"clip", link("2")}});
    g["5"] = node("CLIPTextEncode", {{"text", ""}, {"clip", link("2")}});
    g["6"] = node("FluxGuidance", {{"guidance", 2.5}, {"conditioning", link("4")}});
    g["7"] = node("EmptySD3LatentImage", {{"width", 32}, {"height", 48}, {"batch_size", 1}});
    g["8"] = node("KSampler", {{"model", link("1")},
                               {"positive", link("6")},
                               {"negative", link("5")},
                               {"latent_image", link("7")},
                               {"seed", 77},
                               {"steps", 2},
                               {"cfg", 1.0},
                               {"sampler_name", "euler"},
                               {"scheduler", "simple"},
                               {"denoise", 1.0}});
    g["9"] = node("VAEDecode", {{"samples", link("8")}, {"vae", link("3")}});
    g["10"] = node("SaveImage", {{"images", link("9")}, {"filename_prefix", "x"}});
    return g;
}

class StudioReproduce : public StudioFixture {
protected:
    ReproduceImage& reproducer(MainWindow& w) { return *w.findChild<ReproduceImage*>(); }
    // A PNG in the test's folder with one tEXt chunk.
    QString png(const QString& name, const std::string& key, const std::string& text) {
        const QString path = m_dir.filePath(name);
        hs::test::writeBytes(path.toStdString(),
                             hs::test::pngWith(hs::test::pngChunk("tEXt", key + '\0' + text)));
        return path;
    }
    // The message the lookup ends with (files missing), once the lookup is done.
    static QMessageBox* messageAfterLookUp(ReproduceImage& r) {
        EXPECT_TRUE(QTest::qWaitFor([&] { return !r.isLookingUp(); }, 60000));
        return r.message();
    }
    static QString log(MainWindow& w) { return w.views().log->toPlainText(); }
};

TEST_F(StudioReproduce, AnA1111ImageFillsThePanelsAndShowsItsPicture) {
    const auto window = openStudio();
    MainWindow& w = *window;
    auto* action = w.findChild<QAction*>("reproduceImageAction");
    ASSERT_NE(action, nullptr);
    ReproduceImage& r = reproducer(w);
    EXPECT_FALSE(r.original()->isVisible());
    const QString image =
        qs(std::string(HALFSCOPE_TEST_DATA) + "/reproduce/a1111_sd15_visible.png");
    const QString demo = w.studio().model()->dir;
    // Dropped on the window, as from a file manager.
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(image)});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&w, &enter);
    EXPECT_TRUE(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&w, &drop);
    EXPECT_TRUE(drop.isAccepted());

    // Its prompt, negative prompt, seed, steps and CFG, at once.
    const hs::RunConfig cfg = panelRun(w);
    EXPECT_EQ(cfg.prompt, "a photograph of an astronaut riding a horse, highly detailed, 8k");
    EXPECT_EQ(cfg.negativePrompt, "blurry, lowres, bad anatomy");
    EXPECT_EQ(cfg.seed, 1234567890u);
    EXPECT_EQ(cfg.steps, 30);
    EXPECT_DOUBLE_EQ(cfg.guidance, 6.5);

    // The original beside the final image: the PNG's own pixels, the file named.
    ImageView* original = r.original();
    EXPECT_TRUE(original->isVisible());
    EXPECT_TRUE(original->hasImage());
    EXPECT_TRUE(original->toolTip().contains(image)) << original->toolTip().toStdString();
    const hs::Image pixels = hs::readImage(image.toStdString());
    EXPECT_EQ(original->caption(), "a1111_sd15_visible.png");
    EXPECT_GT(pixels.width, 1);

    // The library knows no folder: both files named, with where was looked.
    QMessageBox* box = messageAfterLookUp(r);
    ASSERT_NE(box, nullptr) << log(w).toStdString();
    const QString text = box->text();
    EXPECT_TRUE(text.contains("\n  v1-5-pruned-emaonly\n")) << text.toStdString();
    EXPECT_TRUE(text.contains("vae-ft-mse-840000-ema-pruned.safetensors")) << text.toStdString();
    EXPECT_TRUE(text.contains("no folders")) << text.toStdString();
    ASSERT_NE(box->findChild<QPushButton*>("reproduceOpenLibrary"), nullptr);

    // Keep the current model: the demo stays, the settings stand, what is not reproduced is said.
    box->findChild<QPushButton*>("reproduceKeepModel")->click();
    EXPECT_TRUE(QTest::qWaitFor([&] { return r.message() == nullptr; }, 5000));
    EXPECT_EQ(w.studio().model()->dir, demo);
    EXPECT_FALSE(w.studio().isBusy());
    EXPECT_EQ(panelRun(w).seed, 1234567890u);
    EXPECT_EQ(panelRun(w).steps, 30);
    EXPECT_TRUE(log(w).contains("not reproduced: Clip skip 2")) << log(w).toStdString();
    EXPECT_TRUE(log(w).contains("dpmpp_2m + karras")) << log(w).toStdString();
    w.close();
}

TEST_F(StudioReproduce, AComfyUiGraphOpensItsFilesFromTheLibraryAndRunsItsSettings) {
    const hs::test::LibraryTree tree =
        hs::test::writeLibraryTree(m_dir.filePath("tree").toStdString());
    LibrarySources sources;
    sources.comfyui << qs(tree.comfy);
    StudioSettings().setLibrarySources(sources);
    const auto window = openStudio();
    MainWindow& w = *window;
    ReproduceImage& r = reproducer(w);
    const QString demo = w.studio().model()->dir;

    // A UNet the tree does not have: named, the files found are not, and where was looked.
    const QString missing = png("missing.png", "prompt", fluxGraph("flux1-dev.safetensors").dump());
    ASSERT_TRUE(r.reproduce(missing));
    QMessageBox* box = messageAfterLookUp(r);
    ASSERT_NE(box, nullptr) << log(w).toStdString();
    EXPECT_TRUE(box->text().contains("\n  flux1-dev.safetensors\n")) << box->text().toStdString();
    EXPECT_FALSE(box->text().contains("  ae.safetensors")) << box->text().toStdString();
    EXPECT_TRUE(box->text().contains("ComfyUI: " + qs(tree.comfy))) << box->text().toStdString();
    box->findChild<QPushButton*>("reproduceKeepModel")->click();
    EXPECT_EQ(w.studio().model()->dir, demo);

    // The whole set: it opens as a library pick does, and the image's settings survive the
    // FLUX model's defaults.
    const QString whole = png("flux.png", "prompt", fluxGraph("flux1-tiny.safetensors").dump());
    ASSERT_TRUE(r.reproduce(whole));
    const std::string m = tree.comfy + "/models";
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            return w.studio().model() &&
                   w.studio().model()->dir == qs(m + "/diffusion_models/flux1-tiny.safetensors");
        },
        120000))
        << log(w).toStdString();
    EXPECT_EQ(r.message(), nullptr);
    expectFlux1FileSet(w, m + "/vae/ae.safetensors", m + "/clip/clip_l.safetensors",
                       m + "/text_encoders/t5xxl_tiny.safetensors", "flux1-tiny.safetensors",
                       {"VAE: ae.safetensors"});
    ASSERT_TRUE(waitIdle(w));
    hs::RunConfig cfg = panelRun(w);
    EXPECT_EQ(cfg.prompt, "a red square");
    EXPECT_EQ(cfg.seed, 77u);
    EXPECT_EQ(cfg.steps, 2);
    EXPECT_DOUBLE_EQ(cfg.guidance, 2.5);
    EXPECT_EQ(cfg.width, 32);
    EXPECT_EQ(cfg.height, 48);
    EXPECT_TRUE(log(w).contains("euler + simple")) << log(w).toStdString();

    // The run that follows: its final image beside the original.
    w.studio().generate();
    ASSERT_TRUE(waitIdle(w));
    ASSERT_TRUE(w.studio().lastRun()) << log(w).toStdString();
    EXPECT_EQ(w.studio().lastRun()->config.prompt, "a red square");
    EXPECT_EQ(w.studio().lastRun()->config.seed, 77u);
    EXPECT_TRUE(w.views().image->hasImage());
    EXPECT_TRUE(r.original()->isVisible());
    EXPECT_TRUE(r.original()->toolTip().contains(whole));
    // It ran the image's sampler and schedule as ComfyUI computes them, as the log says.
    EXPECT_EQ(w.studio().lastRun()->config.comfySampler, "euler");
    EXPECT_EQ(w.studio().lastRun()->config.comfyScheduler, "simple");
    EXPECT_TRUE(log(w).contains("runs ComfyUI's sampler euler on its simple schedule"))
        << log(w).toStdString();

    // Reproduced again: the set open is kept, nothing reloads.
    ASSERT_TRUE(r.reproduce(whole));
    EXPECT_TRUE(QTest::qWaitFor([&] { return !r.isLookingUp(); }, 60000));
    EXPECT_TRUE(log(w).contains("it is kept")) << log(w).toStdString();
    EXPECT_FALSE(w.studio().isBusy());

    // Another seed is not the reproduction: the image's sampler stays out, the original goes.
    hs::RunConfig other = panelRun(w);
    other.seed = 78;
    w.views().prompt->setFrom(other);
    w.studio().generate();
    ASSERT_TRUE(waitIdle(w));
    ASSERT_TRUE(w.studio().lastRun()) << log(w).toStdString();
    EXPECT_EQ(w.studio().lastRun()->config.seed, 78u);
    EXPECT_EQ(w.studio().lastRun()->config.comfySampler, "");
    EXPECT_FALSE(r.original()->isVisible());
    EXPECT_FALSE(r.original()->hasImage());

    // Reproduced once more, then another model: the original goes too.
    ASSERT_TRUE(r.reproduce(whole));
    EXPECT_TRUE(QTest::qWaitFor([&] { return !r.isLookingUp(); }, 60000));
    EXPECT_TRUE(r.original()->isVisible());
    w.studio().openModel(demo);
    ASSERT_TRUE(QTest::qWaitFor(
        [&] { return w.studio().model() && w.studio().model()->dir == demo; }, 120000));
    ASSERT_TRUE(waitIdle(w));
    EXPECT_FALSE(r.original()->isVisible());
    w.close();
}

TEST_F(StudioReproduce, AnImageThatDoesNotReadChangesNothing) {
    const auto window = openDemo();
    MainWindow& w = *window;
    ReproduceImage& r = reproducer(w);
    const hs::RunConfig before = panelRun(w);

    // A 100 MB text chunk (a sparse file: never read), no metadata, a graph with a cycle.
    const std::string huge = m_dir.filePath("huge.png").toStdString();
    {
        const std::string plain = hs::test::pngWith("");
        const uint32_t n = 100u << 20;
        const std::string length{char(n >> 24), char(n >> 16), char(n >> 8), char(n)};
        hs::test::writeBytes(huge, plain.substr(0, 33) + length + "tEXtprompt");
        std::filesystem::resize_file(huge, 33 + 8 + n + 4);
        std::ofstream(huge, std::ios::binary | std::ios::app) << plain.substr(33);
    }
    json cycle = fluxGraph("flux1-tiny.safetensors");
    cycle["4"]["inputs"]["clip"] = json::array({"8", 0});  // 8 -> 6 -> 4 -> 8
    const std::vector<std::pair<QString, QString>> images = {
        {qs(huge), "over the cap of 8 MB on one text chunk"},
        {png("plain.png", "Comment", "a picture"), "no metadata on how the image was made"},
        {png("cycle.png", "prompt", cycle.dump()), "the graph has a cycle"}};
    for (const auto& [path, why] : images) {
        EXPECT_FALSE(r.reproduce(path)) << path.toStdString();
        QMessageBox* box = r.message();
        ASSERT_NE(box, nullptr);
        EXPECT_TRUE(box->text().contains(why)) << box->text().toStdString();
        EXPECT_TRUE(box->text().contains(path)) << box->text().toStdString();
        EXPECT_EQ(box->findChild<QPushButton*>("reproduceKeepModel"), nullptr);
        box->close();
        EXPECT_FALSE(r.isLookingUp());
        EXPECT_FALSE(r.original()->isVisible());
        const hs::RunConfig after = panelRun(w);
        EXPECT_EQ(after.prompt, before.prompt);
        EXPECT_EQ(after.seed, before.seed);
        EXPECT_EQ(after.steps, before.steps);
        EXPECT_EQ(after.guidance, before.guidance);
        EXPECT_EQ(after.width, before.width);
        EXPECT_EQ(after.scheduler, before.scheduler);
    }
    w.close();
}

}  // namespace
