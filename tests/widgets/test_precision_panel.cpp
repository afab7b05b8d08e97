// PrecisionPanel: per-component choices, devices, presets and the plan text.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>

#include "ctl_plan_rules.h"
#include "precision_panel.h"

namespace {

std::vector<hs::ComponentInfo> fluxComponents() {
    return {{"text_encoder", hs::Role::TextEncoder, "CLIPTextModel", "bf16", 1000, hs::Format::BF16,
             hs::Execution::Native},
            {"transformer", hs::Role::Denoiser, "FluxTransformer2DModel", "bf16", 5000,
             hs::Format::BF16, hs::Execution::Native},
            {"vae", hs::Role::Vae, "AutoencoderKL", "fp32", 800, hs::Format::FP32,
             hs::Execution::Native}};
}

QVector<DeviceChoice> devices() {
    return {DeviceChoice::cpu(), DeviceChoice::cuda(0, "Tesla T4", 7, 5),
            DeviceChoice::cuda(1, "NVIDIA A100", 8, 0)};
}

template <class T>
T* child(QWidget& w, const QString& name) {
    T* c = w.findChild<T*>(name);
    EXPECT_NE(c, nullptr) << name.toStdString();
    return c;
}

void commitPlanText(PrecisionPanel& panel, const QString& text) {
    auto* edit = child<QLineEdit>(panel, "planEdit");
    edit->selectAll();
    QTest::keyClicks(edit, text);
    QTest::keyClick(edit, Qt::Key_Return);
}

TEST(PrecisionPanel, ComponentChoicesBuildThePlan) {
    PrecisionPanel panel;
    panel.setComponents(fluxComponents());
    QSignalSpy spy(&panel, &PrecisionPanel::planChanged);
    auto* transformer = child<QComboBox>(panel, "format_transformer");
    EXPECT_EQ(transformer->currentText(), "stored (bf16)");
    EXPECT_TRUE(panel.plan().empty());
    transformer->setCurrentIndex(transformer->findText("fp16"));
    EXPECT_EQ(panel.planText(), "transformer=fp16");
    EXPECT_EQ(spy.count(), 1);
    auto* vae = child<QComboBox>(panel, "format_vae");
    vae->setCurrentIndex(vae->findText("bf16"));
    EXPECT_EQ(panel.plan().resolve("vae"), hs::Format::BF16);
    EXPECT_EQ(panel.plan().resolve("transformer.transformer_blocks.0"), hs::Format::FP16);
    EXPECT_EQ(child<QLineEdit>(panel, "planEdit")->text(), panel.planText());
    transformer->setCurrentIndex(0);  // back to stored: the rule goes
    EXPECT_EQ(panel.planText(), "vae=bf16");
    EXPECT_EQ(spy.count(), 3);
}

TEST(PrecisionPanel, ExecutionFollowsTheDevice) {
    PrecisionPanel panel;
    panel.setComponents(fluxComponents());
    panel.setDevices(devices());
    QSignalSpy deviceSpy(&panel, &PrecisionPanel::deviceChanged);
    panel.setPlan(hs::PrecisionPlan::parse("transformer=fp16"));
    auto* exec = child<QLabel>(panel, "exec_transformer");
    auto* te = child<QLabel>(panel, "exec_text_encoder");
    EXPECT_EQ(panel.deviceId(), "cpu");
    EXPECT_EQ(panel.executionOf("transformer"), hs::Execution::Emulated);  // fp16 on CPU
    EXPECT_TRUE(exec->text().contains("emulated")) << exec->text().toStdString();
    // Stored bf16 on the CPU: emulated by default (the reference arithmetic).
    EXPECT_EQ(panel.executionOf("text_encoder"), hs::Execution::Emulated);
    EXPECT_TRUE(te->text().contains("bf16, emulated")) << te->text().toStdString();

    auto* device = child<QComboBox>(panel, "device");
    device->setCurrentIndex(1);  // T4: fp16 native, bf16 emulated
    EXPECT_EQ(panel.deviceId(), "cuda:0");
    EXPECT_EQ(deviceSpy.count(), 1);
    EXPECT_EQ(deviceSpy.at(0).at(0).toString(), "cuda:0");
    EXPECT_TRUE(exec->text().contains("native"));
    EXPECT_TRUE(te->text().contains("emulated"));
    auto* note = child<QLabel>(panel, "deviceNote");
    EXPECT_TRUE(note->text().contains("7.5")) << note->text().toStdString();
    EXPECT_TRUE(note->text().contains("no native bf16"));
    EXPECT_TRUE(device->currentText().contains("Tesla T4"));

    ASSERT_TRUE(panel.setDeviceId("cuda:1"));
    EXPECT_EQ(panel.executionOf("text_encoder"), hs::Execution::Native);
    EXPECT_FALSE(panel.setDeviceId("cuda:7"));
    EXPECT_EQ(panel.deviceId(), "cuda:1");

    // A GPU takes a cap on its memory (up to what it holds); the CPU shows none and gives 0.
    panel.setDevices({DeviceChoice::cpu(), DeviceChoice::cuda(0, "Tesla T4", 7, 5, 15.0)});
    auto* cap = child<QDoubleSpinBox>(panel, "gpuMemoryCap");
    ASSERT_TRUE(panel.setDeviceId("cuda:0"));
    EXPECT_FALSE(cap->isHidden());
    EXPECT_EQ(panel.gpuMemoryCapGiB(), 0.0);  // no cap until one is given
    cap->setValue(24);
    EXPECT_DOUBLE_EQ(panel.gpuMemoryCapGiB(), 15.0);  // no more than the card's 15 GB
    cap->setValue(12);
    EXPECT_DOUBLE_EQ(panel.gpuMemoryCapGiB(), 12.0);
    ASSERT_TRUE(panel.setDeviceId("cpu"));
    EXPECT_TRUE(cap->isHidden());
    EXPECT_EQ(panel.gpuMemoryCapGiB(), 0.0);

    // A new device list keeps the choice when it is still there.
    panel.setDevices(devices());
    ASSERT_TRUE(panel.setDeviceId("cuda:1"));
    panel.setDevices({DeviceChoice::cpu(), DeviceChoice::cuda(1, "NVIDIA A100", 8, 0)});
    EXPECT_EQ(panel.deviceId(), "cuda:1");
    panel.setDevices({DeviceChoice::cpu()});
    EXPECT_EQ(panel.deviceId(), "cpu");
}

TEST(PrecisionPanel, PresetsSetEveryComponent) {
    PrecisionPanel panel;
    panel.setComponents(fluxComponents());
    QSignalSpy spy(&panel, &PrecisionPanel::planChanged);
    child<QPushButton>(panel, "preset_fp16")->click();
    EXPECT_EQ(panel.planText(), "text_encoder=fp16,transformer=fp16,vae=fp16");
    child<QPushButton>(panel, "preset_bf16")->click();
    EXPECT_EQ(panel.planText(), "text_encoder=bf16,transformer=bf16,vae=bf16");
    child<QPushButton>(panel, "preset_transformer_fp16")->click();
    EXPECT_EQ(panel.planText(), "transformer=fp16");
    EXPECT_EQ(child<QComboBox>(panel, "format_vae")->currentText(), "stored (fp32)");
    child<QPushButton>(panel, "preset_stored")->click();
    EXPECT_TRUE(panel.plan().empty());
    EXPECT_EQ(spy.count(), 4);

    // A UNet model: the denoiser preset targets the unet.
    panel.setComponents({{"text_encoder", hs::Role::TextEncoder, "CLIPTextModel", "fp16", 1,
                          hs::Format::FP16, hs::Execution::Native},
                         {"unet", hs::Role::Denoiser, "UNet2DConditionModel", "fp16", 1,
                          hs::Format::FP16, hs::Execution::Native}});
    child<QPushButton>(panel, "preset_transformer_fp16")->click();
    EXPECT_EQ(panel.planText(), "unet=fp16");
}

TEST(PrecisionPanel, PlanTextWithBlockRules) {
    PrecisionPanel panel;
    panel.setComponents(fluxComponents());
    QSignalSpy spy(&panel, &PrecisionPanel::planChanged);
    commitPlanText(panel, "transformer=fp16, transformer.transformer_blocks.2=bf16");
    EXPECT_EQ(spy.count(), 1);
    EXPECT_EQ(panel.planText(), "transformer=fp16,transformer.transformer_blocks.2=bf16");
    EXPECT_EQ(child<QComboBox>(panel, "format_transformer")->currentText(), "fp16");
    EXPECT_TRUE(child<QLabel>(panel, "exec_transformer")->text().contains("+1"));
    // Changing the component keeps the block rule, and the block rule still wins for its block.
    auto* transformer = child<QComboBox>(panel, "format_transformer");
    transformer->setCurrentIndex(transformer->findText("fp32"));
    EXPECT_EQ(panel.planText(), "transformer=fp32,transformer.transformer_blocks.2=bf16");
    EXPECT_EQ(panel.plan().resolve("transformer.transformer_blocks.2.ff"), hs::Format::BF16);
    transformer->setCurrentIndex(0);
    EXPECT_EQ(panel.planText(), "transformer.transformer_blocks.2=bf16");
    EXPECT_EQ(panel.formatOf("transformer"), hs::Format::BF16);  // stored dtype
}

TEST(PrecisionPanel, InvalidTextShowsThePositionAndKeepsTheLastValidPlan) {
    PrecisionPanel panel;
    panel.setComponents(fluxComponents());
    panel.setPlan(hs::PrecisionPlan::parse("vae=fp32"));
    QSignalSpy spy(&panel, &PrecisionPanel::planChanged);
    commitPlanText(panel, "transformer=fp16,vae=fp8");
    EXPECT_EQ(spy.count(), 0);
    EXPECT_EQ(panel.planText(), "vae=fp32");
    auto* error = child<QLabel>(panel, "planError");
    EXPECT_FALSE(error->isHidden());
    EXPECT_TRUE(panel.planError().contains("rule 2")) << panel.planError().toStdString();
    EXPECT_TRUE(panel.planError().contains("character 22")) << panel.planError().toStdString();
    EXPECT_TRUE(error->text().contains("<u>f</u>")) << error->text().toStdString();
    EXPECT_EQ(child<QLineEdit>(panel, "planEdit")->text(), "transformer=fp16,vae=fp8");  // kept
    hs::RunConfig c;
    panel.applyTo(c);
    EXPECT_EQ(c.plan.toString(), "vae=fp32");
    // Fixing the text applies it and clears the error.
    commitPlanText(panel, "transformer=fp16,vae=fp16");
    EXPECT_EQ(spy.count(), 1);
    EXPECT_TRUE(error->isHidden());
    EXPECT_TRUE(panel.planError().isEmpty());
    EXPECT_EQ(child<QComboBox>(panel, "format_vae")->currentText(), "fp16");
}

TEST(PrecisionPanel, ApplyToAndSetFrom) {
    PrecisionPanel panel;
    panel.setComponents(fluxComponents());
    panel.setDevices(devices());
    hs::RunConfig in;
    in.device = "cuda:0";
    in.plan = hs::PrecisionPlan::parse("*=fp16,vae=fp32");
    panel.setFrom(in);
    hs::RunConfig out;
    out.prompt = "untouched";
    panel.applyTo(out);
    EXPECT_EQ(out.device, "cuda:0");
    EXPECT_EQ(out.plan, in.plan);
    EXPECT_EQ(out.prompt, "untouched");
    EXPECT_EQ(child<QComboBox>(panel, "format_text_encoder")->currentText(), "fp16");  // via "*"
    EXPECT_EQ(child<QComboBox>(panel, "format_vae")->currentText(), "fp32");
    QSignalSpy spy(&panel, &PrecisionPanel::planChanged);
    panel.setPlan(in.plan);  // the same plan again is no change
    EXPECT_EQ(spy.count(), 0);
}

TEST(PlanRules, ComponentRuleGoesAfterBroaderRulesAndBeforeFinerOnes) {
    auto p = hs::PrecisionPlan::parse("*=fp16,transformer.single_transformer_blocks.1*=bf16");
    auto q = ctl::withComponentFormat(p, "transformer", hs::Format::FP32);
    EXPECT_EQ(q.toString(),
              "*=fp16,transformer=fp32,transformer.single_transformer_blocks.1*=bf16");
    EXPECT_EQ(q.resolve("transformer.x"), hs::Format::FP32);
    EXPECT_EQ(q.resolve("transformer.single_transformer_blocks.12.attn"), hs::Format::BF16);
    EXPECT_EQ(ctl::innerRules(q, "transformer").size(), 1u);
    auto r = ctl::withComponentFormat(q, "transformer", std::nullopt);
    EXPECT_EQ(r.toString(), "*=fp16,transformer.single_transformer_blocks.1*=bf16");
}

TEST(DeviceChoice, CapabilitiesAndNotes) {
    const auto cpu = DeviceChoice::cpu();
    EXPECT_FALSE(cpu.hasComputeCapability());
    EXPECT_EQ(cpu.executionOf(hs::Format::FP16), hs::Execution::Emulated);
    EXPECT_EQ(cpu.executionOf(hs::Format::BF16), hs::Execution::Emulated);
    EXPECT_TRUE(cpu.note.contains("bf16 are emulated")) << cpu.note.toStdString();
    // Native bf16: fast with bf16 instructions, flagged as slow and different without them.
    const auto fast = DeviceChoice::cpu("Xeon", hs::Execution::Native, true);
    EXPECT_EQ(fast.executionOf(hs::Format::BF16), hs::Execution::Native);
    EXPECT_TRUE(fast.note.contains("bf16 instructions")) << fast.note.toStdString();
    const auto slow = DeviceChoice::cpu("EPYC", hs::Execution::Native, false);
    EXPECT_TRUE(slow.note.contains("13x slower")) << slow.note.toStdString();
    const auto t4 = DeviceChoice::cuda(0, "Tesla T4", 7, 5);
    EXPECT_EQ(t4.id, "cuda:0");
    EXPECT_EQ(t4.executionOf(hs::Format::BF16), hs::Execution::Emulated);
    EXPECT_EQ(t4.note, "compute capability 7.5: no native bf16; bf16 runs emulated and slowly");
    EXPECT_EQ(DeviceChoice::cuda(2, "A100", 8, 0).executionOf(hs::Format::BF16),
              hs::Execution::Native);
}

}  // namespace

#include "ctl_test_shots.h"

namespace {

TEST(PrecisionPanel, DISABLED_Screenshot) {
    HALFSCOPE_SHOTS_DIR_OR_SKIP(dir);
    PrecisionPanel panel;
    panel.setComponents(fluxComponents());
    panel.setDevices(devices());
    panel.setDeviceId("cuda:0");
    panel.setPlan(hs::PrecisionPlan::parse(
        "text_encoder=bf16,transformer=fp16,transformer.transformer_blocks.2=bf16"));
    panel.resize(520, 420);
    saveShot(panel, dir, "precision_panel");
    PrecisionPanel bad;
    bad.setComponents(fluxComponents());
    bad.resize(520, 420);
    bad.show();
    commitPlanText(bad, "transformer=fp16,vae=fp8");
    saveShot(bad, dir, "precision_panel_error");
}

}  // namespace
