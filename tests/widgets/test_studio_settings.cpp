// StudioSettings: the keys and defaults the studio has always used, so settings saved by an
// earlier version load, and what it writes reads back.
#include <gtest/gtest.h>

#include <QSettings>
#include <QStringList>
#include <QTemporaryDir>

#include "studio_settings.h"

namespace {

// The settings dialog's choices as read: {language, theme, how bf16 runs on the CPU}.
QStringList dialogChoices(const StudioSettings& s) {
    return {s.language(), s.theme(), s.cpuBf16()};
}

TEST(StudioSettings, ReadsSettingsSavedUnderTheStudiosKeys) {
    QTemporaryDir dir;
    QSettings saved(dir.filePath("s.ini"), QSettings::IniFormat);
    saved.setValue("ui/language", "zh_CN");
    saved.setValue("ui/theme", "dark");
    saved.setValue("engine/cpu_bf16", "auto");
    saved.setValue("welcome/shown", true);
    saved.setValue("window/geometry", QByteArray("geometry"));
    saved.setValue("run/prompt", "a cat");
    saved.setValue("run/seed", 7);
    saved.setValue("run/steps", 9);
    saved.setValue("run/plan", "vae=fp32");
    saved.setValue("model/dir", "/models/flux1-dev.safetensors");
    saved.setValue("model/vae", "/models/ae.safetensors");
    saved.setValue("library/comfyui", QStringList{"/comfy"});
    const StudioSettings s(&saved);
    EXPECT_EQ(dialogChoices(s), QStringList({"zh_CN", "dark", "auto"}));
    EXPECT_TRUE(s.welcomeShown());
    EXPECT_TRUE(s.window().saved);
    EXPECT_EQ(s.window().geometry, QByteArray("geometry"));
    const StudioSettings::Run run = s.run();
    EXPECT_EQ(run.config.prompt, "a cat");
    EXPECT_EQ(run.config.seed, 7u);
    EXPECT_EQ(run.config.steps, 9);
    EXPECT_EQ(run.config.guidance, 4.0);  // not saved: the default
    EXPECT_EQ(run.plan, "vae=fp32");
    EXPECT_TRUE(run.stepsSaved);
    EXPECT_EQ(s.modelDir(), "/models/flux1-dev.safetensors");
    EXPECT_EQ(s.modelFiles().vae, "/models/ae.safetensors");
    EXPECT_EQ(s.librarySources().comfyui, QStringList{"/comfy"});
}

TEST(StudioSettings, NothingSavedReadsAsTheDefaults) {
    QTemporaryDir dir;
    QSettings empty(dir.filePath("s.ini"), QSettings::IniFormat);
    const StudioSettings s(&empty);
    EXPECT_EQ(dialogChoices(s), QStringList({"", "system", "emulated"}));
    EXPECT_FALSE(s.welcomeShown());
    EXPECT_FALSE(s.window().saved);
    const StudioSettings::Run run = s.run();
    EXPECT_EQ(run.config.prompt, "a large red circle in the centre, blue background");
    EXPECT_EQ(run.config.seed, 1u);
    EXPECT_EQ(run.config.steps, 20);
    EXPECT_FALSE(run.stepsSaved);
    EXPECT_TRUE(s.modelDir().isEmpty());
    EXPECT_TRUE(s.modelFiles().empty());
}

TEST(StudioSettings, AModelSetWrittenReadsBackAndAnEmptySlotIsRemoved) {
    QTemporaryDir dir;
    QSettings file(dir.filePath("s.ini"), QSettings::IniFormat);
    StudioSettings s(&file);
    hs::ModelFiles files;
    files.vae = "/m/ae.safetensors";
    files.textEncoder2 = "/m/t5xxl.safetensors";
    s.setModel("/m/flux1.safetensors", files);
    EXPECT_EQ(s.modelFiles(), files);
    EXPECT_EQ(file.value("model/textEncoder2").toString(), "/m/t5xxl.safetensors");
    s.setModel("/m/flux1.safetensors", hs::ModelFiles());
    EXPECT_FALSE(file.contains("model/vae"));
    hs::RunConfig cfg;
    cfg.prompt = "a dog";
    cfg.seed = 18446744073709551615ull;  // the whole uint64 range survives
    s.setRun(cfg, "transformer=fp16", "cuda:0");
    EXPECT_EQ(s.run().config.prompt, "a dog");
    EXPECT_EQ(s.run().config.seed, cfg.seed);
    EXPECT_EQ(s.run().target, "cuda:0");
}

}  // namespace
