// A split FLUX.1 set opened from the model library end to end, offscreen, as a user does it: a
// ComfyUI tree (the DiT in models/unet, ae in models/vae, clip_l and t5xxl in
// models/text_encoders, the tokenizers beside them) added as a source, the four parts ticked,
// Open, the studio loads it, Generate gives an image; and the picks that must not open: a part
// dropped, an SD VAE in FLUX's VAE slot, a T5 file without its tokenizer.
// LibTorch (through the fixtures) before any Qt header: see torch_include.h.
// clang-format off
#include "torch_include.h"
#include "flux1_fixture.h"
#include "sd_fixture.h"
#include "io/safetensors.h"
// clang-format on

#include <gtest/gtest.h>

#include <QAction>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <filesystem>

#include "library_dialog.h"
#include "library_panel.h"
#include "log_panel.h"
#include "main_window.h"
#include "model_panel.h"
#include "prompt_panel.h"
#include "runtime/demo_location.h"
#include "studio.h"
#include "studio_test_fixture.h"

namespace {

namespace fs = std::filesystem;

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

struct ComfyTree {
    std::string root, dit, ae, sdVae, clipL, t5;
};

// ComfyUI's layout with the FLUX.1 fixture's files under the names ComfyUI users have, and an
// SD 1.x VAE (LDM keys, 4 latent channels) beside FLUX's ae (16).
ComfyTree writeComfyTree(const std::string& root) {
    const auto f = hs::test::writeTinyFlux1(root + "/fixture");
    ComfyTree t;
    t.root = root + "/ComfyUI";
    const std::string m = t.root + "/models/";
    for (const char* d : {"unet", "vae", "text_encoders"}) fs::create_directories(m + d);
    t.dit = m + "unet/flux1-dev-tiny.safetensors";
    t.ae = m + "vae/ae.safetensors";
    t.clipL = m + "text_encoders/clip_l.safetensors";
    t.t5 = m + "text_encoders/t5xxl_fp16.safetensors";
    fs::copy_file(f.bfl, t.dit);
    fs::copy_file(f.ae, t.ae);
    fs::copy_file(f.clipL, t.clipL);
    fs::copy_file(f.t5, t.t5);
    fs::copy(f.tokenizer, m + "text_encoders/tokenizer", fs::copy_options::recursive);
    fs::copy(f.tokenizer2, m + "text_encoders/tokenizer_2", fs::copy_options::recursive);
    const auto sd = hs::test::writeTinySd(root + "/sd", false, hs::test::sdEulerConfig());
    const int levels = int(sd.vaeConfig.at("block_out_channels").size());
    std::vector<std::pair<std::string, torch::Tensor>> ldm;
    for (const auto& [k, v] : hs::test::vaeToLdm(sd.vae, levels)) ldm.emplace_back(k, v);
    t.sdVae = m + "vae/sd-vae-ft-mse.safetensors";
    hs::writeSafetensors(t.sdVae, ldm);
    return t;
}

bool waitScan(LibraryDialog& d) {
    return QTest::qWaitFor([&] { return !d.isScanning() && !d.panel()->isScanning(); }, 30000);
}

// No hub cache, the header cache in the test's folder: never the user's (StudioFixture).
class LibraryOpenSet : public StudioFixture {};

TEST_F(LibraryOpenSet, AComfyUiFluxSetTickedInTheLibraryOpensAndGenerates) {
    const ComfyTree t = writeComfyTree(m_dir.filePath("tree").toStdString());
    const auto window = openStudio();
    MainWindow& w = *window;
    ASSERT_TRUE(w.studio().model().has_value());
    w.findChild<QAction*>("modelLibraryAction")->trigger();
    auto* dialog = w.findChild<LibraryDialog*>();
    ASSERT_NE(dialog, nullptr);
    LibraryPanel& panel = *dialog->panel();
    ASSERT_TRUE(waitScan(*dialog));
    panel.setSourceChooser(
        [&](QWidget*, const QString& kind) { return kind == "comfyui" ? qs(t.root) : QString(); });
    panel.findChild<QPushButton*>("addComfyui")->click();
    ASSERT_TRUE(waitScan(*dialog));
    auto* open = panel.findChild<QPushButton*>("libraryOpen");
    ASSERT_NE(open, nullptr);
    auto pick = [&] { return panel.pickText().toStdString(); };

    // An SD VAE in FLUX's VAE slot: refused, saying why, before anything is read.
    ASSERT_TRUE(panel.setTicked(qs(t.dit), true)) << pick();
    ASSERT_TRUE(panel.setTicked(qs(t.clipL), true)) << pick();
    ASSERT_TRUE(panel.setTicked(qs(t.t5), true)) << pick();
    ASSERT_TRUE(panel.setTicked(qs(t.sdVae), true)) << pick();
    EXPECT_FALSE(open->isEnabled());
    EXPECT_TRUE(panel.pickText().contains(
        "sd-vae-ft-mse.safetensors is a VAE of another family: its latents have 4 channels, "
        "flux1-dev-tiny.safetensors takes 16"))
        << pick();
    EXPECT_TRUE(panel.pickText().contains("16-channel ae.safetensors")) << pick();
    ASSERT_TRUE(panel.setTicked(qs(t.sdVae), false));

    // The complete set: Open, as FLUX.1.
    ASSERT_TRUE(panel.setTicked(qs(t.ae), true));
    EXPECT_TRUE(open->isEnabled()) << pick();
    EXPECT_TRUE(panel.pickText().contains("as FluxPipeline")) << pick();

    // One part dropped again: Open waits, the part is named; ticked again: Open.
    ASSERT_TRUE(panel.setTicked(qs(t.clipL), false));
    EXPECT_FALSE(open->isEnabled());
    EXPECT_TRUE(panel.pickText().contains("no first text encoder: pick a clip_l.safetensors"))
        << pick();
    ASSERT_TRUE(panel.setTicked(qs(t.clipL), true));
    EXPECT_TRUE(open->isEnabled()) << pick();

    // A T5 file with no tokenizer beside it (as ComfyUI keeps them): named before Open, since
    // the load would read every weight and then stop.
    const QString tok2 = qs(fs::path(t.t5).parent_path().string() + "/tokenizer_2");
    ASSERT_TRUE(QDir().rename(tok2, tok2 + ".away"));
    ASSERT_TRUE(panel.setTicked(qs(t.t5), false));
    ASSERT_TRUE(panel.setTicked(qs(t.t5), true));
    EXPECT_FALSE(open->isEnabled());
    EXPECT_TRUE(panel.pickText().contains(
        "no T5 tokenizer beside t5xxl_fp16.safetensors: put its spiece.model there"))
        << pick();
    ASSERT_TRUE(QDir().rename(tok2 + ".away", tok2));
    ASSERT_TRUE(panel.setTicked(qs(t.t5), false));
    ASSERT_TRUE(panel.setTicked(qs(t.t5), true));
    ASSERT_TRUE(open->isEnabled()) << pick();

    // Open: the studio loads the set; the model panel shows the model file, its parts and the
    // FLUX components.
    open->click();
    ASSERT_TRUE(QTest::qWaitFor(
        [&] { return w.studio().model() && w.studio().model()->dir == qs(t.dit); }, 120000))
        << w.views().model->errorText().toStdString() << w.views().log->toPlainText().toStdString();
    expectFlux1FileSet(
        w, t.ae, t.clipL, t.t5, "flux1-dev-tiny.safetensors",
        {"model: flux1-dev-tiny.safetensors", "VAE: ae.safetensors",
         "text encoder: clip_l.safetensors", "text encoder 2: t5xxl_fp16.safetensors"});
    const LoadedModel& m = *w.studio().model();
    auto* modelPanel = w.views().model;
    QStringList classes;
    auto* tree = modelPanel->findChild<QTreeWidget*>("components");
    for (int i = 0; i < tree->topLevelItemCount(); ++i)
        classes << tree->topLevelItem(i)->text(0) + " " + tree->topLevelItem(i)->text(1);
    for (const char* c : {"transformer FluxTransformer2DModel", "vae AutoencoderKL",
                          "text_encoder CLIPTextModel", "text_encoder_2 T5EncoderModel"})
        EXPECT_TRUE(classes.contains(c)) << classes.join("; ").toStdString();

    // Generate at a size that is not square: an image of that size, every value finite, and a
    // run record that names the four files.
    hs::RunConfig cfg;
    w.views().prompt->applyTo(cfg);
    cfg.width = 2 * m.sizeMultiple;
    cfg.height = m.sizeMultiple;
    cfg.steps = 2;
    cfg.seed = 5;
    cfg.prompt = "a red circle";
    w.views().prompt->setFrom(cfg);
    w.studio().generate();
    ASSERT_TRUE(QTest::qWaitFor([&] { return !w.studio().isBusy(); }, 120000));
    ASSERT_TRUE(w.studio().lastRun()) << w.views().log->toPlainText().toStdString();
    const hs::RunRecord r = *w.studio().lastRun();
    EXPECT_TRUE(r.error.empty()) << r.error;
    ASSERT_TRUE(r.finalImage);
    EXPECT_EQ(r.finalImage->width, cfg.width);
    EXPECT_EQ(r.finalImage->height, cfg.height);
    EXPECT_TRUE(r.image.allFinite());
    EXPECT_EQ(std::count(r.finalImage->nonFinite.begin(), r.finalImage->nonFinite.end(), 0),
              r.finalImage->width * r.finalImage->height);
    EXPECT_EQ(r.config.modelDir, t.dit);
    EXPECT_EQ(r.config.modelFiles.vae, t.ae);
    EXPECT_EQ(r.config.modelFiles.textEncoder, t.clipL);
    EXPECT_EQ(r.config.modelFiles.textEncoder2, t.t5);
    w.close();
}

}  // namespace
