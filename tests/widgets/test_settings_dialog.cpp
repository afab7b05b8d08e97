// SettingsDialog: the language choice, its QSettings key and the signal.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStringList>
#include <QTemporaryDir>

#include "settings_dialog.h"
#include "studio_settings.h"

namespace {

QPushButton* button(SettingsDialog& d, QDialogButtonBox::StandardButton which) {
    auto* box = d.findChild<QDialogButtonBox*>();
    EXPECT_NE(box, nullptr);
    return box ? box->button(which) : nullptr;
}

TEST(SettingsDialog, StoresTheLanguageAndSaysSo) {
    QTemporaryDir dir;
    QSettings settings(dir.filePath("s.ini"), QSettings::IniFormat);
    {
        SettingsDialog d(&settings);
        EXPECT_EQ(d.language(), "");  // nothing stored: system default
        QSignalSpy spy(&d, &SettingsDialog::languageChanged);
        auto* combo = d.findChild<QComboBox*>("language");
        ASSERT_NE(combo, nullptr);
        ASSERT_EQ(combo->count(), 3);
        combo->setCurrentIndex(combo->findData("zh_CN"));
        button(d, QDialogButtonBox::Ok)->click();
        EXPECT_EQ(d.result(), QDialog::Accepted);
        ASSERT_EQ(spy.count(), 1);
        EXPECT_EQ(spy.at(0).at(0).toString(), "zh_CN");
    }
    // Read back by a new settings object from the file, under the documented key.
    QSettings again(dir.filePath("s.ini"), QSettings::IniFormat);
    EXPECT_EQ(again.value("ui/language").toString(), "zh_CN");
    EXPECT_EQ(StudioSettings(&again).language(), "zh_CN");
    SettingsDialog d(&again);
    EXPECT_EQ(d.language(), "zh_CN");  // the dialog opens on the stored choice
    QSignalSpy spy(&d, &SettingsDialog::languageChanged);
    button(d, QDialogButtonBox::Ok)->click();  // unchanged: no signal
    EXPECT_EQ(spy.count(), 0);
}

TEST(SettingsDialog, StoresHowBf16RunsOnTheCpuAndExplainsEachChoice) {
    QTemporaryDir dir;
    QSettings settings(dir.filePath("s.ini"), QSettings::IniFormat);
    EXPECT_EQ(StudioSettings(&settings).cpuBf16(), "emulated");  // the default
    {
        SettingsDialog d(&settings);
        QSignalSpy spy(&d, &SettingsDialog::cpuBf16Changed);
        auto* combo = d.findChild<QComboBox*>("cpuBf16");
        auto* note = d.findChild<QLabel*>("cpuBf16Note");
        ASSERT_TRUE(combo && note);
        EXPECT_EQ(combo->count(), 3);
        EXPECT_TRUE(note->text().contains("same numbers on every CPU"))
            << note->text().toStdString();
        d.setCpuHasBf16Instructions(false);
        combo->setCurrentIndex(combo->findData("native"));
        EXPECT_TRUE(note->text().contains("13x slower")) << note->text().toStdString();
        d.setCpuHasBf16Instructions(true);
        EXPECT_TRUE(note->text().contains("bf16 instructions")) << note->text().toStdString();
        button(d, QDialogButtonBox::Ok)->click();
        ASSERT_EQ(spy.count(), 1);
        EXPECT_EQ(spy.at(0).at(0).toString(), "native");
    }
    EXPECT_EQ(StudioSettings(&settings).cpuBf16(), "native");
    settings.setValue(StudioSettings::kCpuBf16Key, "sometimes");  // unknown: the default
    EXPECT_EQ(StudioSettings(&settings).cpuBf16(), "emulated");
}

// How the dialog, opened on the stored language "en", was closed after `language` was picked.
struct LanguagePicked {
    int result = 0;         // QDialog::Accepted or Rejected
    QStringList signalled;  // the languageChanged() signals' languages
};

LanguagePicked pickLanguage(QSettings& settings, const QString& language,
                            QDialogButtonBox::StandardButton close) {
    settings.setValue("ui/language", "en");
    SettingsDialog d(&settings);
    QSignalSpy spy(&d, &SettingsDialog::languageChanged);
    d.setLanguage(language);
    button(d, close)->click();
    LanguagePicked picked;
    picked.result = d.result();
    for (const auto& args : spy) picked.signalled << args.at(0).toString();
    return picked;
}

TEST(SettingsDialog, CancelStoresNothing) {
    QTemporaryDir dir;
    QSettings settings(dir.filePath("s.ini"), QSettings::IniFormat);
    const LanguagePicked picked = pickLanguage(settings, "zh_CN", QDialogButtonBox::Cancel);
    EXPECT_EQ(picked.result, QDialog::Rejected);
    EXPECT_TRUE(picked.signalled.isEmpty());
    EXPECT_EQ(settings.value("ui/language").toString(), "en");
}

TEST(SettingsDialog, SystemDefaultMeansTheSystemLocale) {
    QTemporaryDir dir;
    QSettings settings(dir.filePath("s.ini"), QSettings::IniFormat);
    const LanguagePicked picked = pickLanguage(settings, "", QDialogButtonBox::Ok);
    EXPECT_EQ(picked.result, QDialog::Accepted);
    EXPECT_EQ(picked.signalled, QStringList{QLocale::system().name()});
    EXPECT_EQ(settings.value("ui/language").toString(), "");
    settings.setValue("ui/language", "klingon");  // unknown values read as system default
    EXPECT_EQ(StudioSettings(&settings).language(), "");
    EXPECT_EQ(StudioSettings::effectiveLocale("en"), "en");
}

}  // namespace

#include "ctl_test_shots.h"

namespace {

TEST(SettingsDialog, DISABLED_Screenshot) {
    HALFSCOPE_SHOTS_DIR_OR_SKIP(dir);
    QTemporaryDir tmp;
    QSettings settings(tmp.filePath("s.ini"), QSettings::IniFormat);
    SettingsDialog d(&settings);
    d.resize(420, 160);
    saveShot(d, dir, "settings_dialog");
}

}  // namespace
