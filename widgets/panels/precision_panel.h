#pragma once
// The precision plan of the next run: per component (text encoder, transformer or unet, VAE) a
// format — stored dtype, fp32, bf16, fp16 or tf32 — with whether it runs natively or emulated on
// the chosen device; the device; presets; and the full plan text for block-level rules.
//
// The plan text is the truth: the per-component choices edit the component's own rule in it and
// leave finer rules ("transformer.transformer_blocks.2=bf16") alone. Text typed into the plan
// field is applied on Return (or when the field loses focus) if it parses; while it does not,
// the field shows the parse error and its position and plan() stays the last valid plan.
#include <QDoubleSpinBox>
#include <QVector>
#include <QWidget>
#include <optional>
#include <vector>

#include "ctl_device_choice.h"
#include "diagnosis/device_info.h"
#include "records/run_types.h"

class QComboBox;
class QGridLayout;
class QLabel;
class QLineEdit;
class QPushButton;

class PrecisionPanel : public QWidget {
    Q_OBJECT
public:
    explicit PrecisionPanel(QWidget* parent = nullptr);

    // The components of the loaded model (names, stored dtypes). Rules in the plan stay.
    void setComponents(const std::vector<hs::ComponentInfo>& components);
    // Devices to choose from; the current id is kept when it is still offered, else the first.
    void setDevices(const QVector<DeviceChoice>& devices);

    hs::PrecisionPlan plan() const { return m_plan; }
    QString planText() const;  // plan().toString()
    // Emits planChanged() when `plan` differs from the current one.
    void setPlan(const hs::PrecisionPlan& plan);

    QString deviceId() const;
    // The cap on the current GPU's memory in GB (2^30 bytes) the user set, 0 for none or for the
    // CPU (runtime/gpu_memory.h: a 16 GB card imposed on a larger one).
    double gpuMemoryCapGiB() const;
    const DeviceChoice* currentDevice() const;
    // Selects the device with `id` if offered; false otherwise. Emits deviceChanged on a change.
    bool setDeviceId(const QString& id);

    // "Advice for:" the GPU the model will run on, for the advice and the remedies' costs:
    // "this device" (nullopt: the caller uses the run's device), a known GPU (hs::knownGpus())
    // or one given by hand (capability X.Y, memory GB). Hand fields that do not parse give
    // nullopt and targetError() says why.
    std::optional<hs::DeviceInfo> targetGpu() const;
    QString targetError() const { return m_targetError; }
    // The choice as text to persist: "" this device, a knownGpus() key, "hand:7.0:32".
    QString targetId() const;
    // Restores a targetId(); false (choice unchanged) for text it does not know.
    bool setTargetId(const QString& id);

    // How `component` will run with the current plan and device: its format (plan rule, else
    // stored dtype) and native/emulated.
    hs::Format formatOf(const std::string& component) const;
    hs::Execution executionOf(const std::string& component) const;

    // plan and device into / from a RunConfig.
    void applyTo(hs::RunConfig& config) const;
    void setFrom(const hs::RunConfig& config);

    // The error of the text in the plan field, empty while it parses.
    QString planError() const { return m_planError; }

    enum class Preset { AllStored, AllBf16, AllFp16, TransformerFp16 };
    void applyPreset(Preset p);

signals:
    void planChanged();
    void deviceChanged(const QString& id);
    void targetChanged();

private:
    void rebuildRows();
    void updateTarget();                // by-hand fields shown or not, the error text
    hs::DeviceInfo handTarget() const;  // throws std::invalid_argument naming the field
    void refresh();  // combos, execution labels and the plan text from m_plan / the device
    void changePlan(const hs::PrecisionPlan& plan);
    void onTextEdited(const QString& text);
    void commitText();
    std::vector<std::string> componentNames() const;
    std::string denoiserName() const;
    const std::vector<hs::ComponentInfo>& shownComponents() const;
    hs::Format storedFormat(const std::string& component) const;

    struct Row {
        std::string name;
        QString storedDtype;
        QComboBox* format = nullptr;
        QLabel* execution = nullptr;
    };
    std::vector<hs::ComponentInfo> m_components;
    std::vector<Row> m_rows;
    QVector<DeviceChoice> m_devices;
    hs::PrecisionPlan m_plan;
    QString m_planError;
    bool m_updating = false;

    QComboBox* m_device;
    QDoubleSpinBox* m_memoryCap;  // shown for a CUDA device: 0 is no cap
    QLabel* m_memoryCapLabel;
    QComboBox* m_target;
    QLineEdit* m_targetCapability;
    QLineEdit* m_targetMemory;
    QWidget* m_targetHand;
    QLabel* m_targetErrorLabel;
    QString m_targetError;
    QLabel* m_deviceNote;
    QWidget* m_rowsBox;
    QGridLayout* m_grid;
    QLineEdit* m_planEdit;
    QLabel* m_planErrorLabel;
};
