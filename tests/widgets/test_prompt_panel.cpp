// PromptPanel driven like a user: typing, clicking, and the config it produces.
#include <gtest/gtest.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QToolButton>
#include <cstdint>
#include <string>
#include <utility>

#include "../records/run_config_of.h"
#include "ctl_seed_edit.h"
#include "prompt_panel.h"

namespace {

template <class T>
T* child(QWidget& w, const char* name) {
    T* c = w.findChild<T*>(name);
    EXPECT_NE(c, nullptr) << name;
    return c;
}

// A config with what the prompt panel shows set: the prompts, seed, steps, size and shift, and a
// preview every 5 steps.
hs::RunConfig promptRun(const std::string& prompt, const std::string& negative, uint64_t seed,
                        int steps, int width, int height, double shift) {
    hs::RunConfig c =
        hs::test::runConfigOf(prompt, seed, hs::RunConfig().guidance, width, height, steps);
    c.negativePrompt = negative;
    c.shift = shift;
    c.decodeEvery = 5;
    return c;
}

TEST(PromptPanel, SetFromAndApplyToRoundTrip) {
    PromptPanel panel;
    hs::RunConfig in =
        promptRun("a lighthouse at dusk", "blurry", 18446744073709551615ull, 28, 128, 96, 1.75);
    in.guidance = 3.5;
    in.probeLevel = hs::ProbeLevel::Op;
    panel.setFrom(in);

    hs::RunConfig out;
    out.modelDir = "/keep/me";
    out.device = "cuda:1";
    out.plan = hs::PrecisionPlan::parse("vae=fp32");
    panel.applyTo(out);
    EXPECT_EQ(out.prompt, in.prompt);
    EXPECT_EQ(out.negativePrompt, in.negativePrompt);
    EXPECT_EQ(out.seed, in.seed);
    EXPECT_EQ(out.steps, 28);
    EXPECT_DOUBLE_EQ(out.guidance, 3.5);
    EXPECT_EQ(out.width, 128);
    EXPECT_EQ(out.height, 96);
    ASSERT_TRUE(out.shift.has_value());
    EXPECT_DOUBLE_EQ(*out.shift, 1.75);
    EXPECT_EQ(out.decodeEvery, 5);
    EXPECT_EQ(out.probeLevel, hs::ProbeLevel::Op);
    // Fields of other panels are untouched.
    EXPECT_EQ(out.modelDir, "/keep/me");
    EXPECT_EQ(out.device, "cuda:1");
    EXPECT_EQ(out.plan.toString(), "vae=fp32");

    in.shift.reset();
    panel.setFrom(in);
    panel.applyTo(out);
    EXPECT_FALSE(out.shift.has_value());
    EXPECT_FALSE(child<QDoubleSpinBox>(panel, "shift")->isEnabled());
}

TEST(PromptPanel, TypedValuesReachTheConfig) {
    PromptPanel panel;
    QTest::keyClicks(child<QPlainTextEdit>(panel, "prompt"), "a cat");
    auto* seed = child<QLineEdit>(panel, "seedEdit");
    seed->selectAll();
    QTest::keyClicks(seed, "12a3");  // the letter is refused
    EXPECT_EQ(seed->text(), "123");
    child<QCheckBox>(panel, "shiftOverride")->click();
    auto* shift = child<QDoubleSpinBox>(panel, "shift");
    EXPECT_TRUE(shift->isEnabled());
    shift->setValue(2.5);
    auto* steps = child<QSpinBox>(panel, "steps");
    steps->selectAll();
    QTest::keyClicks(steps, "7");
    hs::RunConfig c;
    panel.applyTo(c);
    EXPECT_EQ(c.prompt, "a cat");
    EXPECT_EQ(c.seed, 123u);
    EXPECT_EQ(c.steps, 7);
    EXPECT_EQ(c.shift, 2.5);
}

TEST(PromptPanel, SeedTakesTheFull64BitRangeAndRandomises) {
    PromptPanel panel;
    auto* seed = child<QLineEdit>(panel, "seedEdit");
    seed->setText("18446744073709551615");
    hs::RunConfig c;
    panel.applyTo(c);
    EXPECT_EQ(c.seed, 18446744073709551615ull);
    seed->selectAll();
    QTest::keyClicks(seed, "18446744073709551616");  // 2^64: the last digit is refused
    EXPECT_EQ(seed->text(), "1844674407370955161");

    auto* edit = panel.findChild<SeedEdit*>();
    ASSERT_NE(edit, nullptr);
    QSignalSpy spy(edit, &SeedEdit::valueChanged);
    const quint64 before = edit->value();
    child<QToolButton>(panel, "seedRandom")->click();
    const quint64 first = edit->value();
    child<QToolButton>(panel, "seedRandom")->click();
    EXPECT_NE(first, before);
    EXPECT_NE(edit->value(), first);  // 2^-64 chance of a false failure
    EXPECT_EQ(spy.count(), 2);
    panel.applyTo(c);
    EXPECT_EQ(c.seed, edit->value());
}

TEST(PromptPanel, SizesSnapToTheModelsMultiples) {
    PromptPanel panel;
    panel.setSizeConstraints(16, 64, 1024);
    auto* w = child<QSpinBox>(panel, "width");
    auto* h = child<QSpinBox>(panel, "height");
    EXPECT_EQ(w->minimum(), 64);
    EXPECT_EQ(w->maximum(), 1024);
    w->selectAll();
    QTest::keyClicks(w, "100");
    QTest::keyClick(w, Qt::Key_Return);
    EXPECT_EQ(w->value(), 96);
    w->stepBy(1);
    EXPECT_EQ(w->value(), 112);

    hs::RunConfig in;
    in.width = 1000;
    in.height = 5000;
    panel.setFrom(in);
    hs::RunConfig out;
    panel.applyTo(out);
    EXPECT_EQ(out.width, 1008);
    EXPECT_EQ(out.height, 1024);

    // A model with other limits: the current values move into them.
    panel.setSizeConstraints(64, 128, 512);
    EXPECT_EQ(w->value() % 64, 0);
    EXPECT_LE(h->value(), 512);
    EXPECT_TRUE(child<QLabel>(panel, "sizeHint")->text().contains("64"));
    panel.applyTo(out);
    EXPECT_EQ(out.width % 64, 0);
    EXPECT_EQ(out.height, 512);
}

TEST(PromptPanel, GenerateAndStopFollowTheRunningState) {
    PromptPanel panel;
    auto* generate = child<QPushButton>(panel, "generate");
    auto* stop = child<QPushButton>(panel, "stop");
    QSignalSpy gen(&panel, &PromptPanel::generateRequested);
    QSignalSpy stopSpy(&panel, &PromptPanel::stopRequested);
    // Which of the two can be clicked: {generate, stop}.
    const auto enabled = [&] { return std::make_pair(generate->isEnabled(), stop->isEnabled()); };
    const auto idle = std::make_pair(true, false), running = std::make_pair(false, true);
    EXPECT_EQ(enabled(), idle);
    QTest::mouseClick(generate, Qt::LeftButton);  // an empty prompt is allowed
    EXPECT_EQ(gen.count(), 1);

    panel.setRunning(true);
    EXPECT_EQ(enabled(), running);
    QTest::mouseClick(generate, Qt::LeftButton);
    EXPECT_EQ(gen.count(), 1);
    QTest::mouseClick(stop, Qt::LeftButton);
    EXPECT_EQ(stopSpy.count(), 1);

    panel.setRunning(false);
    EXPECT_EQ(enabled(), idle);
    QTest::mouseClick(stop, Qt::LeftButton);
    EXPECT_EQ(stopSpy.count(), 1);
}

TEST(PromptPanel, ProgressShowsStepAndTimePerStep) {
    PromptPanel panel;
    auto* bar = child<QProgressBar>(panel, "progress");
    panel.setRunning(true);
    panel.setProgress(3, 20, 0.5);
    EXPECT_EQ(bar->maximum(), 20);
    EXPECT_EQ(bar->value(), 3);
    // Three steps done: the last is step 2, numbered from 0 as everywhere else.
    EXPECT_TRUE(bar->text().contains("step 2 (3/20 done)")) << bar->text().toStdString();
    EXPECT_TRUE(bar->text().contains("0.50 s/step")) << bar->text().toStdString();
    panel.setProgress(4, 20, 0.012);
    EXPECT_TRUE(bar->text().contains("12 ms/step")) << bar->text().toStdString();
    panel.setProgress(5, 20, 0);
    EXPECT_FALSE(bar->text().contains("/step")) << bar->text().toStdString();
    panel.setRunning(false);
    EXPECT_EQ(bar->value(), 5);  // the last state stays visible after the run
}

TEST(PromptPanel, LongPromptsGetATruncationNote) {
    PromptPanel panel;
    panel.setPromptLimits(2000, 77);
    auto* prompt = child<QPlainTextEdit>(panel, "prompt");
    prompt->setPlainText("a short prompt");
    EXPECT_FALSE(panel.truncationNoteShown());
    prompt->setPlainText(QString(5000, 'x'));
    EXPECT_TRUE(panel.truncationNoteShown());
    auto* note = child<QLabel>(panel, "promptNote");
    EXPECT_TRUE(note->text().contains("5000"));
    EXPECT_TRUE(note->text().contains("77"));
    prompt->clear();
    EXPECT_FALSE(panel.truncationNoteShown());
    child<QPlainTextEdit>(panel, "negativePrompt")->setPlainText(QString(2500, 'n'));
    EXPECT_TRUE(panel.truncationNoteShown());
    EXPECT_TRUE(note->text().contains("negative"));
    hs::RunConfig c;
    panel.applyTo(c);
    EXPECT_EQ(c.negativePrompt.size(), 2500u);  // the panel itself never cuts text
}

TEST(PromptPanel, WordsOutsideTheModelsVocabularyAreNamedAsTyped) {
    PromptPanel panel;
    auto* prompt = child<QPlainTextEdit>(panel, "prompt");
    auto* note = child<QLabel>(panel, "promptNote");
    prompt->setPlainText("a teal hexagon");
    EXPECT_TRUE(panel.wordsNotUnderstood().isEmpty());  // any text, for a model of any words
    EXPECT_FALSE(panel.truncationNoteShown());
    panel.setVocabulary({"a", "red", "circle", "on", "blue", "background", ",", "."});
    EXPECT_EQ(panel.wordsNotUnderstood(), (QStringList{"teal", "hexagon"}));
    EXPECT_TRUE(note->isVisibleTo(&panel));
    EXPECT_TRUE(note->text().contains("Not understood by the demo model: teal, hexagon"))
        << note->text().toStdString();
    prompt->setPlainText("A Red circle, on a blue background.");  // capitals and punctuation
    EXPECT_TRUE(panel.wordsNotUnderstood().isEmpty());
    EXPECT_FALSE(panel.truncationNoteShown());
    child<QPlainTextEdit>(panel, "negativePrompt")->setPlainText("blurry, red");
    EXPECT_EQ(panel.wordsNotUnderstood(), QStringList{"blurry"});
    panel.setVocabulary({});
    EXPECT_FALSE(panel.truncationNoteShown());
}

TEST(PromptPanel, ProbeLevelAndDecodeEvery) {
    PromptPanel panel;
    auto* level = child<QComboBox>(panel, "probeLevel");
    level->setCurrentIndex(0);
    auto* decode = child<QSpinBox>(panel, "decodeEvery");
    EXPECT_EQ(decode->text(), "never");
    decode->setValue(3);
    hs::RunConfig c;
    panel.applyTo(c);
    EXPECT_EQ(c.probeLevel, hs::ProbeLevel::Off);
    EXPECT_EQ(c.decodeEvery, 3);
}

}  // namespace

#include "ctl_test_shots.h"

namespace {

TEST(PromptPanel, DISABLED_Screenshot) {
    HALFSCOPE_SHOTS_DIR_OR_SKIP(dir);
    PromptPanel panel;
    hs::RunConfig c =
        promptRun("a lighthouse on a cliff at dusk, volumetric light, 35mm photograph",
                  "blurry, low contrast", 1234567890123456789ull, 20, 512, 512, 3.0);
    panel.setSizeConstraints(16, 64, 1024);
    panel.setFrom(c);
    panel.setRunning(true);
    panel.setProgress(7, 20, 0.84);
    panel.resize(380, 600);
    saveShot(panel, dir, "prompt_panel");
    PromptPanel idle;
    idle.setPromptLimits(2000, 77);
    c.prompt = std::string(2400, 'a');
    c.shift.reset();
    idle.setFrom(c);
    idle.resize(380, 600);
    saveShot(idle, dir, "prompt_panel_long_prompt");
}

}  // namespace
