// guiLoadAdvice: the engine's load errors name command-line options; the studio shows what it
// offers instead, for every row of the file-set table, and so does a real failed load.
// LibTorch (through the tiny FLUX.1 fixture) before any Qt header: see torch_include.h.
// clang-format off
#include "torch_include.h"
#include "flux1_fixture.h"
// clang-format on

#include <gtest/gtest.h>

#include <QFileInfo>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <filesystem>

#include "gui_advice.h"
#include "log_panel.h"
#include "model_panel.h"
#include "records/run_types.h"
#include "studio_test_fixture.h"

namespace {

bool hasOption(const QString& text) {
    return text.contains(QRegularExpression(QStringLiteral("--\\w")));
}

TEST(GuiAdvice, EveryOptionOfTheTableBecomesItsPart) {
    for (const hs::ModelFileSlot& row : hs::modelFileSlots()) {
        const QString option = QString::fromLatin1(row.option);
        for (const QString& message :
             {QStringLiteral(
                  "/m/x.safetensors: no %1 here; give its folder with %2 DIR (vocab.json)"),
              QStringLiteral("/m/x.safetensors: no %1; give it with %2 FILE"),
              QStringLiteral("/m/x.safetensors: the %1 is missing: give one with %2")}) {
            const QString engine = message.arg(QString::fromLatin1(row.slot), option);
            const GuiAdvice a = guiLoadAdvice(engine);
            SCOPED_TRACE(a.text.toStdString());
            EXPECT_FALSE(hasOption(a.text));
            EXPECT_TRUE(a.text.contains(QStringLiteral("as the ") + QString::fromLatin1(row.what)));
            EXPECT_EQ(a.parts, QStringList{QString::fromLatin1(row.slot)});
            EXPECT_EQ(a.tokenizer(), row.tokenizer);
            // What the studio offers for it: the library's set picker always, a tokenizer's
            // folder by its name, weights opened with the model file.
            EXPECT_TRUE(a.text.contains("File > Model library"));
            if (row.tokenizer)
                EXPECT_TRUE(a.text.contains(QStringLiteral("\u201c%1\u201d").arg(row.slot)));
            else
                EXPECT_TRUE(a.text.contains("File > Open model files"));
        }
    }
}

// The SD 1.5 single file whose vocabulary does not fit the bundled CLIP-L tokenizer
// (denoising/clip_tokenizers.cpp).
TEST(GuiAdvice, ATokenizerThatDoesNotFitNamesTheStudiosWays) {
    const GuiAdvice a = guiLoadAdvice(
        "/m/sd15.safetensors: the CLIP tokenizer (/share/tokenizers/clip-l) has 49408 ids but "
        "text_encoder embeds only 49000 (vocab_size): give its own tokenizer with --tokenizer DIR");
    EXPECT_EQ(a.text.left(a.text.indexOf(" In the studio")),
              "/m/sd15.safetensors: the CLIP tokenizer (/share/tokenizers/clip-l) has 49408 ids "
              "but text_encoder embeds only 49000 (vocab_size): give its own tokenizer as the "
              "first tokenizer.");
    EXPECT_TRUE(
        a.text.contains("put its folder, named \u201ctokenizer\u201d, beside the model file"))
        << a.text.toStdString();
    EXPECT_TRUE(a.text.contains("bundles")) << a.text.toStdString();
    EXPECT_TRUE(a.tokenizer());
}

// "--tokenizer" is not the start of "--tokenizer-2"; lists and "given with ... as the" read well.
TEST(GuiAdvice, ListsAndLongerOptionsReadAsParts) {
    GuiAdvice a = guiLoadAdvice("no T5 tokenizer; give its folder with --tokenizer-2 DIR");
    EXPECT_EQ(a.parts, QStringList{"tokenizer_2"});
    EXPECT_TRUE(a.text.startsWith("no T5 tokenizer; give its folder as the second tokenizer"));
    a = guiLoadAdvice(
        "/m/clip.safetensors: no denoiser in the files given\nOpen the model file and give this "
        "one with --vae, --text-encoder or --text-encoder-2.");
    EXPECT_TRUE(
        a.text.contains("give this one as the VAE, the first text encoder or the second "
                        "text encoder."))
        << a.text.toStdString();
    EXPECT_EQ(a.parts, (QStringList{"vae", "text_encoder", "text_encoder_2"}));
    a = guiLoadAdvice("/m/ae.safetensors was given with --vae as the VAE, but it holds a UNet");
    EXPECT_TRUE(a.text.startsWith("/m/ae.safetensors was given as the VAE, but it holds a UNet"))
        << a.text.toStdString();
    a = guiLoadAdvice("no such file; open it with --model FILE");
    EXPECT_FALSE(hasOption(a.text));
    EXPECT_TRUE(a.text.startsWith("no such file; open it as the model file"));
}

TEST(GuiAdvice, AMessageWithoutOptionsIsLeftAlone) {
    const QString engine = "/m/x.safetensors: no such file or folder";
    const GuiAdvice a = guiLoadAdvice(engine);
    EXPECT_EQ(a.text, engine);
    EXPECT_TRUE(a.parts.isEmpty());
    EXPECT_FALSE(a.tokenizer());
}

// What a load detected names each part as the studio does, for every row of the table.
TEST(GuiAdvice, DetectedPartsAreNamedNotOptioned) {
    for (const hs::ModelFileSlot& row : hs::modelFileSlots()) {
        const QString line =
            guiPartNames(QStringLiteral("/m/part.safetensors (%1): component folder")
                             .arg(QString::fromLatin1(row.option)));
        EXPECT_EQ(line, QStringLiteral("/m/part.safetensors (%1): component folder")
                            .arg(QString::fromLatin1(row.what)));
    }
    EXPECT_EQ(guiPartNames("/m/flux.safetensors (--model): FLUX.1"),
              "/m/flux.safetensors (model): FLUX.1");
}

class GuiAdviceStudio : public StudioFixture {};

// A FLUX.1 file set without its T5 tokenizer: the engine asks for --tokenizer-2 DIR, the model
// panel and the log say what the studio can do instead, and the panel's button for the second
// tokenizer takes a folder picked elsewhere and opens the set with it.
TEST_F(GuiAdviceStudio, AFileSetWithoutItsTokenizerSaysWhatTheStudioOffers) {
    const auto f = hs::test::writeTinyFlux1(m_dir.filePath("flux1").toStdString());
    const QString elsewhere = m_dir.filePath("picked/t5_tokenizer");
    std::filesystem::create_directories(elsewhere.toStdString());
    std::filesystem::copy(f.tokenizer2, elsewhere.toStdString(),
                          std::filesystem::copy_options::recursive);
    std::filesystem::remove_all(f.tokenizer2);
    auto w = openDemo();
    w->resize(1366, 740);  // a laptop's screen, less the taskbar
    w->studio().openFiles({QString::fromStdString(f.bfl), QString::fromStdString(f.ae),
                           QString::fromStdString(f.clipL), QString::fromStdString(f.t5)});
    const auto error = [&] { return w->views().model->errorText(); };
    ASSERT_TRUE(QTest::qWaitFor([&] { return !error().isEmpty(); }, 120000));
    SCOPED_TRACE(error().toStdString());
    EXPECT_TRUE(error().contains("no T5 tokenizer")) << "the engine's reason is kept";
    EXPECT_TRUE(error().contains("as the second tokenizer"));
    EXPECT_TRUE(error().contains("\u201ctokenizer_2\u201d"));
    EXPECT_FALSE(hasOption(error()));
    EXPECT_FALSE(
        hasOption(w->views().log->toPlainText().split('\n').filter("no T5 tokenizer").join('\n')));

    // The panel offers the part the error names, a folder picker for a tokenizer.
    ModelPanel* panel = w->views().model;
    EXPECT_EQ(panel->offeredParts(), QStringList{"tokenizer_2"});
    auto* choose = panel->findChild<QPushButton*>("choosePart_tokenizer_2");
    ASSERT_NE(choose, nullptr);
    // In sight on a laptop's screen, below a long error, without scrolling by hand.
    const auto inSight = [&] {
        for (QWidget* p = choose->parentWidget(); p; p = p->parentWidget())
            if (auto* area = qobject_cast<QScrollArea*>(p)) {
                const QRect r(choose->mapTo(area->viewport(), QPoint(0, 0)), choose->size());
                if (!area->viewport()->rect().contains(r)) return false;
            }
        return choose->isVisible();
    };
    QTest::qWait(300);  // the long error wrapped and laid out
    EXPECT_TRUE(inSight());
    ASSERT_NE(panel->findChild<QPushButton*>("openLibrary"), nullptr);
    QString asked;
    panel->setDirectoryChooser([&](QWidget*, const QString& start) {
        asked = start;
        return elsewhere;
    });
    choose->click();
    // It starts where the failed set's files are, and the set opens with the picked tokenizer.
    EXPECT_EQ(QFileInfo(asked).canonicalFilePath(),
              QFileInfo(QString::fromStdString(f.bfl)).canonicalPath());
    const auto flux = [&] {
        const auto& m = w->studio().model();
        return m && m->dir == QString::fromStdString(f.bfl);
    };
    ASSERT_TRUE(QTest::qWaitFor(flux, 120000)) << error().toStdString();
    EXPECT_EQ(w->studio().model()->files.tokenizer2, elsewhere.toStdString());
    EXPECT_TRUE(error().isEmpty());
    EXPECT_TRUE(panel->offeredParts().isEmpty()) << "the buttons go with the error";
}

}  // namespace
