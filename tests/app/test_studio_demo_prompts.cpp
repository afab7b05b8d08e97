// The studio on the demo model: the model's own image size, and the prompt's words the demo
// model never learned named under the prompt as they are typed and in the run's log.
#include <gtest/gtest.h>

#include <QFile>
#include <QJsonDocument>
#include <QLabel>
#include <QPlainTextEdit>
#include <QTest>

#include "log_panel.h"
#include "main_window.h"
#include "prompt_panel.h"
#include "studio.h"
#include "studio_test_fixture.h"

namespace {

class StudioDemoPrompts : public StudioFixture {};

}  // namespace

TEST_F(StudioDemoPrompts, UnknownWordsAreNamedAsTypedAndInTheRunsLog) {
    auto w = openStudio();
    // The size the demo model was trained at (its VAE's sample_size), not the panel's default.
    const hs::RunConfig loaded = panelRun(*w);
    QFile vae(QString::fromStdString(hs::findDemoModel()) + "/vae/config.json");
    ASSERT_TRUE(vae.open(QIODevice::ReadOnly));
    const int side = QJsonDocument::fromJson(vae.readAll())["sample_size"].toInt();
    EXPECT_EQ(loaded.width, side);
    EXPECT_EQ(loaded.height, side);
    PromptPanel* prompt = w->views().prompt;
    auto* text = prompt->findChild<QPlainTextEdit*>("prompt");
    auto* note = prompt->findChild<QLabel*>("promptNote");
    ASSERT_TRUE(text && note);
    text->setPlainText("A LARGE red circle on the left, blue background.");
    EXPECT_TRUE(note->isHidden()) << note->text().toStdString();
    text->setPlainText("a teal hexagon on a blue background");
    EXPECT_FALSE(note->isHidden());
    EXPECT_TRUE(note->text().contains("Not understood by the demo model: teal, hexagon"))
        << note->text().toStdString();

    hs::RunConfig cfg = panelRun(*w);
    cfg.steps = 2;
    prompt->setFrom(cfg);
    w->studio().generate();
    ASSERT_TRUE(QTest::qWaitFor([&] { return !w->studio().isBusy(); }, 120000));
    ASSERT_TRUE(w->studio().lastRun());
    EXPECT_EQ(w->studio().lastRun()->savedImage->width, side);
    bool logged = false;
    for (const auto& e : w->views().log->entries())
        logged |= e.text.contains("words not understood by the demo model: \"teal\", \"hexagon\"");
    EXPECT_TRUE(logged);
}
