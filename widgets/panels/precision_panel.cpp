#include "precision_panel.h"

#include <QComboBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>
#include <stdexcept>

#include "ctl_plan_rules.h"
#include "ctl_style.h"

namespace {

// The rows shown before a model is loaded: the demo model's components.
const std::vector<hs::ComponentInfo> kDefaultComponents = {{"text_encoder", hs::Role::TextEncoder},
                                                           {"transformer", hs::Role::Denoiser},
                                                           {"vae", hs::Role::Vae}};

QString formatText(hs::Format f) {
    return QString::fromStdString(hs::formatName(f));
}

// Item data of the target combo: "" this device, a knownGpus() key, kByHand.
const QString kByHand = QStringLiteral("hand");

// Item data of the per-component combo: -1 stored, else int(hs::Format).
constexpr int kStored = -1;

// A field of the by-hand target GPU, shown when "by hand…" is picked.
QLineEdit* targetField(const char* objectName, const QString& placeholder, const QString& tip,
                       QWidget* parent) {
    auto* field = new QLineEdit(parent);
    field->setObjectName(objectName);
    field->setPlaceholderText(placeholder);
    field->setToolTip(tip);
    return field;
}

// A component's title by its role; a denoiser by its own name ("Transformer", "UNet").
QString componentTitle(const std::string& name, hs::Role role) {
    switch (role) {
        case hs::Role::TextEncoder:
            return PrecisionPanel::tr("Text encoder");
        case hs::Role::TextEncoder2:
            return PrecisionPanel::tr("Text encoder 2");
        case hs::Role::Vae:
            return PrecisionPanel::tr("VAE");
        case hs::Role::Adapter:
            return PrecisionPanel::tr("Adapter");
        default:
            break;
    }
    if (name == "unet") return PrecisionPanel::tr("UNet");
    QString t = QString::fromStdString(name).replace('_', ' ');
    if (!t.isEmpty()) t[0] = t[0].toUpper();
    return t;
}

}  // namespace

PrecisionPanel::PrecisionPanel(QWidget* parent)
    : QWidget(parent),
      m_device(new QComboBox(this)),
      m_memoryCap(new QDoubleSpinBox(this)),
      m_memoryCapLabel(new QLabel(tr("GPU memory cap"), this)),
      m_target(new QComboBox(this)),
      m_targetCapability(
          targetField("targetCapability", tr("e.g. 7.5"), tr("CUDA compute capability X.Y"), this)),
      m_targetMemory(targetField("targetMemory", tr("e.g. 16"),
                                 tr("Memory in GB; empty or 0: unknown"), this)),
      m_targetHand(new QWidget(this)),
      m_targetErrorLabel(ctl::errorLabel("targetError", this)),
      m_deviceNote(new QLabel(this)),
      m_rowsBox(new QWidget(this)),
      m_grid(new QGridLayout(m_rowsBox)),
      m_planEdit(new QLineEdit(this)),
      m_planErrorLabel(ctl::errorLabel("planError", this)) {
    m_device->setObjectName("device");
    m_deviceNote->setObjectName("deviceNote");
    m_deviceNote->setWordWrap(true);
    ctl::setSubtle(m_deviceNote);
    m_grid->setContentsMargins(0, 0, 0, 0);
    m_planEdit->setObjectName("planEdit");
    m_planEdit->setPlaceholderText(
        tr("e.g. transformer=fp16,transformer.transformer_blocks.2=bf16"));
    m_planEdit->setToolTip(
        tr("The full plan: pattern=format rules separated by commas; the last "
           "matching rule wins; '*' matches any characters. Press Return to "
           "apply."));
    m_planErrorLabel->setTextFormat(Qt::RichText);

    auto* presets = new QHBoxLayout;
    presets->addWidget(new QLabel(tr("Presets:"), this));
    const std::pair<const char*, Preset> presetButtons[] = {
        {"preset_stored", Preset::AllStored},
        {"preset_bf16", Preset::AllBf16},
        {"preset_fp16", Preset::AllFp16},
        {"preset_transformer_fp16", Preset::TransformerFp16}};
    const QString presetTitles[] = {tr("All stored"), tr("All bf16"), tr("All fp16"),
                                    tr("Transformer fp16")};
    for (int i = 0; i < 4; ++i) {
        auto* b = new QPushButton(presetTitles[i], this);
        b->setObjectName(presetButtons[i].first);
        b->setAutoDefault(false);
        const Preset p = presetButtons[i].second;
        connect(b, &QPushButton::clicked, this, [this, p] { applyPreset(p); });
        presets->addWidget(b);
    }
    presets->addStretch(1);

    m_target->setObjectName("target");
    m_target->setToolTip(
        tr("The GPU the model will run on: the advice and the remedies' costs speak for it"));
    m_target->addItem(tr("this device"), QString());
    for (const auto& g : hs::knownGpus())
        m_target->addItem(QString::fromStdString(g.label), QString::fromStdString(g.key));
    m_target->addItem(tr("by hand…"), kByHand);
    auto* hand = new QHBoxLayout(m_targetHand);
    hand->setContentsMargins(0, 0, 0, 0);
    hand->addWidget(new QLabel(tr("Capability"), m_targetHand));
    hand->addWidget(m_targetCapability);
    hand->addWidget(new QLabel(tr("Memory GB"), m_targetHand));
    hand->addWidget(m_targetMemory);
    m_targetHand->hide();

    m_memoryCap->setObjectName("gpuMemoryCap");
    m_memoryCap->setDecimals(1);
    m_memoryCap->setSuffix(tr(" GB"));
    m_memoryCap->setSpecialValueText(tr("no cap"));
    m_memoryCap->setToolTip(
        tr("Lets a run take at most this much of the GPU's memory, so that a larger card behaves "
           "like a 16 GB T4 or a 12 GB RTX 3060: a model that would not fit there runs out of "
           "memory here too. Applied when the model is loaded."));
    auto* deviceRow = new QFormLayout;
    deviceRow->addRow(tr("Device"), m_device);
    deviceRow->addRow(m_memoryCapLabel, m_memoryCap);
    deviceRow->addRow(tr("Advice for:"), m_target);
    deviceRow->addRow(QString(), m_targetHand);
    deviceRow->addRow(QString(), m_targetErrorLabel);
    auto* advanced = new QGroupBox(tr("Plan (advanced)"), this);
    auto* adv = new QVBoxLayout(advanced);
    adv->addWidget(m_planEdit);
    adv->addWidget(m_planErrorLabel);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(deviceRow);
    layout->addWidget(m_deviceNote);
    layout->addWidget(m_rowsBox);
    layout->addLayout(presets);
    layout->addWidget(advanced);
    layout->addStretch(1);

    connect(m_device, &QComboBox::currentIndexChanged, this, [this] {
        refresh();
        if (!m_updating) emit deviceChanged(deviceId());
    });
    connect(m_target, &QComboBox::currentIndexChanged, this, [this] {
        updateTarget();
        emit targetChanged();
    });
    for (auto* field : {m_targetCapability, m_targetMemory})
        connect(field, &QLineEdit::textChanged, this, [this] {
            updateTarget();
            emit targetChanged();
        });
    connect(m_planEdit, &QLineEdit::textEdited, this, &PrecisionPanel::onTextEdited);
    connect(m_planEdit, &QLineEdit::returnPressed, this, &PrecisionPanel::commitText);
    connect(m_planEdit, &QLineEdit::editingFinished, this, &PrecisionPanel::commitText);

    setDevices({DeviceChoice::cpu()});
    setComponents({});
}

const std::vector<hs::ComponentInfo>& PrecisionPanel::shownComponents() const {
    return m_components.empty() ? kDefaultComponents : m_components;
}

std::vector<std::string> PrecisionPanel::componentNames() const {
    std::vector<std::string> names;
    for (const auto& c : shownComponents()) names.push_back(c.name);
    return names;
}

std::string PrecisionPanel::denoiserName() const {
    const hs::ComponentInfo* c = hs::componentWithRole(shownComponents(), hs::Role::Denoiser);
    return c ? c->name : "transformer";
}

hs::Format PrecisionPanel::storedFormat(const std::string& component) const {
    for (const auto& c : m_components)
        if (c.name == component) return hs::parseFormat(c.storedDtype).value_or(hs::Format::FP32);
    return hs::Format::FP32;
}

void PrecisionPanel::setComponents(const std::vector<hs::ComponentInfo>& components) {
    m_components = components;
    rebuildRows();
    refresh();
}

void PrecisionPanel::rebuildRows() {
    m_rows.clear();
    while (QLayoutItem* item = m_grid->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    m_grid->addWidget(new QLabel(tr("<b>Component</b>"), m_rowsBox), 0, 0);
    m_grid->addWidget(new QLabel(tr("<b>Runs as</b>"), m_rowsBox), 0, 1);
    m_grid->addWidget(new QLabel(tr("<b>On this device</b>"), m_rowsBox), 0, 2);
    int line = 1;
    for (const auto& name : componentNames()) {
        Row row;
        row.name = name;
        for (const auto& c : m_components)
            if (c.name == name) row.storedDtype = QString::fromStdString(c.storedDtype);
        auto* title =
            new QLabel(componentTitle(name, hs::roleOf(shownComponents(), name)), m_rowsBox);
        title->setToolTip(QString::fromStdString(name));
        row.format = new QComboBox(m_rowsBox);
        row.format->setObjectName(QString::fromStdString("format_" + name));
        row.format->addItem(
            row.storedDtype.isEmpty() ? tr("stored") : tr("stored (%1)").arg(row.storedDtype),
            kStored);
        for (hs::Format f : hs::kFormats) row.format->addItem(formatText(f), int(f));
        row.execution = new QLabel(m_rowsBox);
        row.execution->setObjectName(QString::fromStdString("exec_" + name));
        m_grid->addWidget(title, line, 0);
        m_grid->addWidget(row.format, line, 1);
        m_grid->addWidget(row.execution, line, 2);
        connect(row.format, &QComboBox::currentIndexChanged, this, [this, name](int) {
            if (m_updating) return;
            for (const auto& r : m_rows) {
                if (r.name != name) continue;
                const int data = r.format->currentData().toInt();
                std::optional<hs::Format> f;
                if (data != kStored) f = hs::Format(data);
                changePlan(ctl::withComponentFormat(m_plan, name, f));
            }
        });
        m_rows.push_back(row);
        ++line;
    }
    m_grid->setColumnStretch(2, 1);
}

void PrecisionPanel::setDevices(const QVector<DeviceChoice>& devices) {
    const QString keep = deviceId();
    m_updating = true;
    m_devices = devices.isEmpty() ? QVector<DeviceChoice>{DeviceChoice::cpu()} : devices;
    m_device->clear();
    int select = 0;
    for (int i = 0; i < m_devices.size(); ++i) {
        m_device->addItem(m_devices[i].label(), m_devices[i].id);
        if (m_devices[i].id == keep) select = i;
    }
    m_device->setCurrentIndex(select);
    m_updating = false;
    refresh();
    if (deviceId() != keep && !keep.isEmpty()) emit deviceChanged(deviceId());
}

QString PrecisionPanel::deviceId() const {
    return m_device->currentData().toString();
}

const DeviceChoice* PrecisionPanel::currentDevice() const {
    const int i = m_device->currentIndex();
    return i >= 0 && i < m_devices.size() ? &m_devices[i] : nullptr;
}

bool PrecisionPanel::setDeviceId(const QString& id) {
    const int i = m_device->findData(id);
    if (i < 0) return false;
    m_device->setCurrentIndex(i);
    return true;
}

QString PrecisionPanel::planText() const {
    return QString::fromStdString(m_plan.toString());
}

void PrecisionPanel::setPlan(const hs::PrecisionPlan& plan) {
    changePlan(plan);
}

void PrecisionPanel::changePlan(const hs::PrecisionPlan& plan) {
    const bool changed = !(plan == m_plan);
    m_plan = plan;
    m_planError.clear();
    refresh();
    if (changed) emit planChanged();
}

hs::Format PrecisionPanel::formatOf(const std::string& component) const {
    return m_plan.resolve(component).value_or(storedFormat(component));
}

double PrecisionPanel::gpuMemoryCapGiB() const {
    const DeviceChoice* d = currentDevice();
    return d && d->hasComputeCapability() ? m_memoryCap->value() : 0.0;
}

hs::Execution PrecisionPanel::executionOf(const std::string& component) const {
    const DeviceChoice* d = currentDevice();
    return d ? d->executionOf(formatOf(component)) : hs::Execution::Native;
}

void PrecisionPanel::refresh() {
    m_updating = true;
    const DeviceChoice* device = currentDevice();
    m_deviceNote->setText(device ? device->note : QString());
    m_deviceNote->setVisible(device && !device->note.isEmpty());
    const bool gpu = device && device->hasComputeCapability();
    m_memoryCap->setRange(0, gpu && device->memoryGiB > 0 ? device->memoryGiB : 1024);
    m_memoryCap->setVisible(gpu);
    m_memoryCapLabel->setVisible(gpu);
    for (auto& r : m_rows) {
        const auto own = ctl::componentFormat(m_plan, r.name);
        r.format->setCurrentIndex(r.format->findData(own ? int(*own) : kStored));
        const hs::Format f = formatOf(r.name);
        const hs::Execution e = executionOf(r.name);
        QString text = e == hs::Execution::Native ? tr("%1, native").arg(formatText(f))
                                                  : tr("%1, emulated").arg(formatText(f));
        QStringList tips;
        const auto inner = ctl::innerRules(m_plan, r.name);
        for (const auto& rule : inner) {
            const hs::Execution ie = device ? device->executionOf(rule.format) : e;
            tips << tr("%1: %2, %3")
                        .arg(QString::fromStdString(rule.pattern), formatText(rule.format),
                             ie == hs::Execution::Native ? tr("native") : tr("emulated"));
        }
        if (inner.size() == 1)
            text += tr(" (+1 block rule)");
        else if (inner.size() > 1)
            text += tr(" (+%1 block rules)").arg(inner.size());
        r.execution->setText(text);
        r.execution->setToolTip(tips.join('\n'));
        r.execution->setStyleSheet(e == hs::Execution::Emulated ? "color: #a05a00;" : "");
    }
    if (m_planError.isEmpty()) {
        m_planEdit->setText(planText());
        m_planEdit->setStyleSheet(QString());
        m_planErrorLabel->hide();
    }
    m_updating = false;
}

void PrecisionPanel::onTextEdited(const QString& text) {
    try {
        hs::PrecisionPlan::parse(text.toStdString());
        m_planError.clear();
        m_planErrorLabel->hide();
        m_planEdit->setStyleSheet(QString());
    } catch (const hs::PlanParseError& e) {
        m_planError = QString::fromUtf8(e.what());
        // The text with the offending character marked, so the position is seen, not counted.
        const std::string s = text.toStdString();
        const size_t pos = std::min(e.position(), s.size());
        const QString before = QString::fromStdString(s.substr(0, pos)).toHtmlEscaped();
        const QString at = pos < s.size() ? QString::fromStdString(s.substr(pos, 1)).toHtmlEscaped()
                                          : QStringLiteral("\u2038");
        const QString after =
            pos < s.size() ? QString::fromStdString(s.substr(pos + 1)).toHtmlEscaped() : QString();
        m_planErrorLabel->setText(
            tr("%1<br><tt>%2<b><u>%3</u></b>%4</tt><br>The last valid plan stays in use.")
                .arg(m_planError.toHtmlEscaped(), before, at, after));
        m_planErrorLabel->show();
        m_planEdit->setStyleSheet("QLineEdit { border: 1px solid #b00020; }");
    }
}

void PrecisionPanel::commitText() {
    const QString text = m_planEdit->text();
    if (text == planText()) return;
    try {
        changePlan(hs::PrecisionPlan::parse(text.toStdString()));
    } catch (const hs::PlanParseError&) {
        onTextEdited(text);  // keep the text and the error; m_plan stays the last valid one
    }
}

void PrecisionPanel::applyPreset(Preset p) {
    hs::PrecisionPlan plan;
    const auto names = componentNames();
    switch (p) {
        case Preset::AllStored:
            break;
        case Preset::AllBf16:
            for (const auto& n : names) plan.add(n, hs::Format::BF16);
            break;
        case Preset::AllFp16:
            for (const auto& n : names) plan.add(n, hs::Format::FP16);
            break;
        case Preset::TransformerFp16:
            plan.add(denoiserName(), hs::Format::FP16);
            break;
    }
    changePlan(plan);
}

void PrecisionPanel::applyTo(hs::RunConfig& config) const {
    config.plan = m_plan;
    config.device = deviceId().toStdString();
}

void PrecisionPanel::setFrom(const hs::RunConfig& config) {
    setDeviceId(QString::fromStdString(config.device));
    setPlan(config.plan);
}

void PrecisionPanel::updateTarget() {
    const bool byHand = m_target->currentData().toString() == kByHand;
    m_targetHand->setVisible(byHand);
    m_targetError.clear();
    if (byHand) {
        try {
            (void)handTarget();
        } catch (const std::exception& e) {
            m_targetError = QString::fromStdString(e.what());
        }
    }
    ctl::setShownText(m_targetErrorLabel, m_targetError);
}

std::optional<hs::DeviceInfo> PrecisionPanel::targetGpu() const {
    const QString key = m_target->currentData().toString();
    if (key.isEmpty()) return std::nullopt;
    try {
        if (key != kByHand) return hs::targetGpu(key.toStdString());
        return handTarget();
    } catch (const std::exception&) {
        return std::nullopt;  // fields that do not parse: targetError() says why
    }
}

hs::DeviceInfo PrecisionPanel::handTarget() const {
    const QString memoryText = m_targetMemory->text().trimmed();
    bool ok = true;
    const double memory = memoryText.isEmpty() ? 0.0 : memoryText.toDouble(&ok);
    if (!ok)
        throw std::invalid_argument(
            tr("Memory GB: \"%1\" is not a number (e.g. 16; empty or 0: unknown)")
                .arg(memoryText)
                .toStdString());
    return hs::targetGpuByHand(m_targetCapability->text().trimmed().toStdString(), memory);
}

QString PrecisionPanel::targetId() const {
    const QString key = m_target->currentData().toString();
    if (key != kByHand) return key;
    return QString("%1:%2:%3")
        .arg(kByHand, m_targetCapability->text().trimmed(), m_targetMemory->text().trimmed());
}

bool PrecisionPanel::setTargetId(const QString& id) {
    const QStringList parts = id.split(':');
    const int i = m_target->findData(parts.front());
    if (i < 0 || (parts.front() == kByHand && parts.size() != 3)) return false;
    if (parts.front() == kByHand) {
        m_targetCapability->setText(parts[1]);
        m_targetMemory->setText(parts[2]);
    }
    m_target->setCurrentIndex(i);
    updateTarget();
    return true;
}
