#include "settings_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>
#include <algorithm>

#include "ctl_style.h"

SettingsDialog::SettingsDialog(QSettings* settings, QWidget* parent)
    : QDialog(parent),
      m_settings(settings),
      m_language(new QComboBox(this)),
      m_note(new QLabel(this)),
      m_cpuBf16(new QComboBox(this)),
      m_cpuBf16Note(new QLabel(this)),
      m_theme(new QComboBox(this)) {
    const QStringList& languages = StudioSettings::languages();
    const QStringList& cpuBf16Modes = StudioSettings::cpuBf16Modes();
    const QStringList& themes = StudioSettings::themes();
    setWindowTitle(tr("Settings"));
    m_language->setObjectName("language");
    const QLocale system = QLocale::system();
    const QString systemName =
        system.nativeLanguageName().isEmpty() ? system.name() : system.nativeLanguageName();
    m_language->addItem(systemName == QLatin1String("C")
                            ? tr("System default")
                            : tr("System default (%1)").arg(systemName),
                        languages[0]);
    m_language->addItem(QStringLiteral("English"), languages[1]);
    // Each language named in itself, so it can be found whatever the current language is.
    const QString chinese = QStringLiteral("\u7b80\u4f53\u4e2d\u6587");
    const QString chineseHere = tr("Simplified Chinese");
    m_language->addItem(chineseHere == chinese ? chinese : chinese + " (" + chineseHere + ")",
                        languages[2]);
    m_note->setObjectName("languageNote");
    m_note->setWordWrap(true);
    ctl::setSubtle(m_note);
    m_note->setText(tr("Restart Halfscope to see the new language everywhere."));

    m_cpuBf16->setObjectName("cpuBf16");
    m_cpuBf16->addItem(tr("Emulated (reference: the arithmetic of a GPU)"), cpuBf16Modes[0]);
    m_cpuBf16->addItem(tr("Native (oneDNN)"), cpuBf16Modes[1]);
    m_cpuBf16->addItem(tr("Native where the CPU has bf16 instructions"), cpuBf16Modes[2]);
    m_cpuBf16Note->setObjectName("cpuBf16Note");
    m_cpuBf16Note->setWordWrap(true);
    ctl::setSubtle(m_cpuBf16Note);
    connect(m_cpuBf16, qOverload<int>(&QComboBox::currentIndexChanged), this,
            [this] { updateCpuBf16Note(); });

    m_theme->setObjectName("theme");
    m_theme->addItem(tr("Follow the system"), themes[0]);
    m_theme->addItem(tr("Light"), themes[1]);
    m_theme->addItem(tr("Dark"), themes[2]);

    auto* form = new QFormLayout;
    form->addRow(tr("Language"), m_language);
    form->addRow(QString(), m_note);
    form->addRow(tr("Theme"), m_theme);
    form->addRow(tr("bf16 on the CPU"), m_cpuBf16);
    form->addRow(QString(), m_cpuBf16Note);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addStretch(1);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &SettingsDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &SettingsDialog::reject);

    setLanguage(m_settings.language());
    setCpuBf16(m_settings.cpuBf16());
    setTheme(m_settings.theme());
}

SettingsDialog::~SettingsDialog() = default;

QString SettingsDialog::theme() const {
    return m_theme->currentData().toString();
}

void SettingsDialog::setTheme(const QString& theme) {
    m_theme->setCurrentIndex(std::max(0, m_theme->findData(theme)));
}

QString SettingsDialog::cpuBf16() const {
    return m_cpuBf16->currentData().toString();
}

void SettingsDialog::setCpuBf16(const QString& mode) {
    m_cpuBf16->setCurrentIndex(std::max(0, m_cpuBf16->findData(mode)));
    updateCpuBf16Note();
}

void SettingsDialog::setCpuHasBf16Instructions(bool has) {
    m_bf16Instructions = has;
    updateCpuBf16Note();
}

void SettingsDialog::updateCpuBf16Note() {
    const QString mode = cpuBf16();
    const QStringList& modes = StudioSettings::cpuBf16Modes();  // emulated, native, auto
    const bool native = mode == modes[1] || (mode == modes[2] && m_bf16Instructions);
    QString text;
    if (!native)
        text =
            tr("bf16 computes in fp32 with the weights and every layer's output rounded to "
               "bf16: the same numbers on every CPU, at fp32's speed.");
    else if (m_bf16Instructions)
        text =
            tr("oneDNN's bf16 kernels on this CPU's bf16 instructions: faster, and close to "
               "the emulated reference.");
    else
        text =
            tr("This CPU has no bf16 instructions: native bf16 runs about 13x slower than "
               "fp32 and accumulates in bf16 in places.");
    m_cpuBf16Note->setText(text + " " + tr("The model is loaded again when this changes."));
}

QString SettingsDialog::language() const {
    return m_language->currentData().toString();
}

void SettingsDialog::setLanguage(const QString& language) {
    const bool known = StudioSettings::languages().contains(language);
    const int i = m_language->findData(known ? language : QString());
    m_language->setCurrentIndex(std::max(i, 0));
}

void SettingsDialog::accept() {
    const QString before = m_settings.language();
    const QString now = language();
    const QString bf16Before = m_settings.cpuBf16();
    const QString bf16Now = cpuBf16();
    const QString themeBefore = m_settings.theme();
    const QString themeNow = theme();
    m_settings.setChoices(now, themeNow, bf16Now);
    QDialog::accept();
    if (now != before) emit languageChanged(StudioSettings::effectiveLocale(now));
    if (bf16Now != bf16Before) emit cpuBf16Changed(bf16Now);
    if (themeNow != themeBefore) emit themeChanged(themeNow);
}
