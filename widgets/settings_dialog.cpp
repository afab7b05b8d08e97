#include "settings_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLocale>
#include <QSettings>
#include <QVBoxLayout>
#include <algorithm>

#include "ctl_style.h"

namespace {

const QStringList kLanguages = {QString(), QStringLiteral("en"), QStringLiteral("zh_CN")};

}  // namespace

SettingsDialog::SettingsDialog(QSettings* settings, QWidget* parent)
    : QDialog(parent),
      m_settings(settings),
      m_language(new QComboBox(this)),
      m_note(new QLabel(this)) {
    if (!m_settings) {
        m_settings = new QSettings;
        m_ownsSettings = true;
    }
    setWindowTitle(tr("Settings"));
    m_language->setObjectName("language");
    const QLocale system = QLocale::system();
    const QString systemName =
        system.nativeLanguageName().isEmpty() ? system.name() : system.nativeLanguageName();
    m_language->addItem(systemName == QLatin1String("C")
                            ? tr("System default")
                            : tr("System default (%1)").arg(systemName),
                        kLanguages[0]);
    m_language->addItem(QStringLiteral("English"), kLanguages[1]);
    // Each language named in itself, so it can be found whatever the current language is.
    const QString chinese = QStringLiteral("\u7b80\u4f53\u4e2d\u6587");
    const QString chineseHere = tr("Simplified Chinese");
    m_language->addItem(chineseHere == chinese ? chinese : chinese + " (" + chineseHere + ")",
                        kLanguages[2]);
    m_note->setObjectName("languageNote");
    m_note->setWordWrap(true);
    ctl::setSubtle(m_note);
    m_note->setText(tr("Restart Halfscope to see the new language everywhere."));

    auto* form = new QFormLayout;
    form->addRow(tr("Language"), m_language);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_note);
    layout->addStretch(1);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &SettingsDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &SettingsDialog::reject);

    setLanguage(storedLanguage(*m_settings));
}

SettingsDialog::~SettingsDialog() {
    if (m_ownsSettings) delete m_settings;
}

QString SettingsDialog::storedLanguage(const QSettings& settings) {
    const QString v = settings.value(QLatin1String(kLanguageKey)).toString();
    return kLanguages.contains(v) ? v : QString();
}

QString SettingsDialog::effectiveLocale(const QString& language) {
    return language.isEmpty() ? QLocale::system().name() : language;
}

QString SettingsDialog::language() const {
    return m_language->currentData().toString();
}

void SettingsDialog::setLanguage(const QString& language) {
    const int i = m_language->findData(kLanguages.contains(language) ? language : QString());
    m_language->setCurrentIndex(std::max(i, 0));
}

void SettingsDialog::accept() {
    const QString before = storedLanguage(*m_settings);
    const QString now = language();
    m_settings->setValue(QLatin1String(kLanguageKey), now);
    m_settings->sync();
    QDialog::accept();
    if (now != before) emit languageChanged(effectiveLocale(now));
}
