#pragma once
// Application settings. For now: the interface language, stored in QSettings under
// SettingsDialog::kLanguageKey ("ui/language") as "" (system default), "en" or "zh_CN".
// The dialog only stores the choice and says so (languageChanged); the app installs the
// QTranslator, at start-up from effectiveLocale(storedLanguage(settings)).
#include <QDialog>
#include <QString>

class QComboBox;
class QLabel;
class QSettings;

class SettingsDialog : public QDialog {
    Q_OBJECT
public:
    static constexpr const char* kLanguageKey = "ui/language";

    // `settings` (not owned) defaults to a QSettings() of the application.
    explicit SettingsDialog(QSettings* settings = nullptr, QWidget* parent = nullptr);
    ~SettingsDialog() override;

    // The stored language: "", "en" or "zh_CN" ("" also for a missing or unknown value).
    static QString storedLanguage(const QSettings& settings);
    // The locale to load translations for: `language`, or the system locale's name for "".
    static QString effectiveLocale(const QString& language);

    // The choice shown in the dialog (not yet stored until accepted).
    QString language() const;
    void setLanguage(const QString& language);

    // Stores the choice; emits languageChanged(effectiveLocale(choice)) if it changed.
    void accept() override;

signals:
    void languageChanged(const QString& locale);

private:
    QSettings* m_settings;
    bool m_ownsSettings = false;
    QComboBox* m_language;
    QLabel* m_note;
};
