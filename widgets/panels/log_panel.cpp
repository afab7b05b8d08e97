#include "log_panel.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextCursor>
#include <QVBoxLayout>
#include <algorithm>

#include "ctl_quiet.h"

namespace {

// The level's tag in the studio's language, padded to the English tags' width ("INFO ").
QString tagOf(LogPanel::Level l) {
    switch (l) {
        case LogPanel::Level::Info:
            return LogPanel::tr("INFO").leftJustified(5);
        case LogPanel::Level::Warning:
            return LogPanel::tr("WARN").leftJustified(5);
        case LogPanel::Level::Error:
            return LogPanel::tr("ERROR").leftJustified(5);
    }
    return "?";
}

// The categories the studio logs under, listed for lupdate; categoryText() looks one up with
// itself as the source text, so English shows it as it is.
[[maybe_unused]] const char* const kCategories[] = {
    QT_TRANSLATE_NOOP("LogPanel", "load"),     QT_TRANSLATE_NOOP("LogPanel", "run"),
    QT_TRANSLATE_NOOP("LogPanel", "step"),     QT_TRANSLATE_NOOP("LogPanel", "nan"),
    QT_TRANSLATE_NOOP("LogPanel", "decode"),   QT_TRANSLATE_NOOP("LogPanel", "fix"),
    QT_TRANSLATE_NOOP("LogPanel", "history"),  QT_TRANSLATE_NOOP("LogPanel", "report"),
    QT_TRANSLATE_NOOP("LogPanel", "reproduce")};

QString categoryText(const QString& category) {
    return LogPanel::tr(category.toUtf8().constData());
}

QColor colorOf(LogPanel::Level l, const QPalette& pal) {
    switch (l) {
        case LogPanel::Level::Warning:
            return QColor(176, 106, 0);
        case LogPanel::Level::Error:
            return QColor(200, 0, 0);
        default:
            return pal.color(QPalette::Text);
    }
}

}  // namespace

LogPanel::LogPanel(QWidget* parent)
    : QWidget(parent),
      m_view(new QPlainTextEdit(this)),
      m_levelBox(new QComboBox(this)),
      m_countLabel(new QLabel(this)) {
    m_view->setReadOnly(true);
    m_view->setUndoRedoEnabled(false);
    m_view->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_view->setMaximumBlockCount(m_max);
    m_view->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));

    m_levelBox->addItem(tr("All events"));
    m_levelBox->addItem(tr("Warnings and errors"));
    m_levelBox->addItem(tr("Errors only"));
    connect(m_levelBox, qOverload<int>(&QComboBox::currentIndexChanged), this,
            [this](int i) { setMinimumLevel(Level(i)); });
    auto* copy = new QPushButton(tr("Copy all"), this);
    copy->setToolTip(tr("Copy every kept line, all levels, as plain text"));
    connect(copy, &QPushButton::clicked, this, &LogPanel::copyAll);
    auto* clearButton = new QPushButton(tr("Clear"), this);
    connect(clearButton, &QPushButton::clicked, this, &LogPanel::clear);

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(new QLabel(tr("Show:"), this));
    bar->addWidget(m_levelBox);
    bar->addWidget(m_countLabel, 1);
    bar->addWidget(copy);
    bar->addWidget(clearButton);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(bar);
    layout->addWidget(m_view, 1);
    updateCounts();
}

QString LogPanel::formatEntry(const Entry& e) {
    QString line = e.time.toString("yyyy-MM-dd HH:mm:ss.zzz") + "  " + tagOf(e.level) + "  ";
    if (!e.category.isEmpty()) line += "[" + categoryText(e.category) + "] ";
    return line + e.text;
}

void LogPanel::append(Level level, const QString& text, const QString& category,
                      const QDateTime& when) {
    Entry e{when, level, category, text};
    // One entry, one block: line breaks become line separators inside the block, so the bound
    // on blocks is a bound on entries.
    e.text.replace("\r\n", QString(QChar::LineSeparator)).replace('\n', QChar::LineSeparator);
    m_entries.push_back(e);
    while (int(m_entries.size()) > m_max) m_entries.pop_front();
    ++m_counts[int(level)];
    if (level >= m_minLevel) showEntry(m_entries.back());
    updateCounts();
}

void LogPanel::info(const QString& text, const QString& category) {
    append(Level::Info, text, category);
}
void LogPanel::warning(const QString& text, const QString& category) {
    append(Level::Warning, text, category);
}
void LogPanel::error(const QString& text, const QString& category) {
    append(Level::Error, text, category);
}

void LogPanel::showEntry(const Entry& e) {
    QScrollBar* sb = m_view->verticalScrollBar();
    const bool atEnd = sb->value() >= sb->maximum() - 2;  // follow unless the user looks back
    QTextCharFormat fmt;
    fmt.setForeground(colorOf(e.level, palette()));
    if (e.level == Level::Error) fmt.setFontWeight(QFont::Bold);
    QTextCursor c(m_view->document());
    c.movePosition(QTextCursor::End);
    if (!m_view->document()->isEmpty()) c.insertBlock();
    c.insertText(formatEntry(e), fmt);
    if (atEnd) sb->setValue(sb->maximum());
}

void LogPanel::rebuild() {
    m_view->clear();
    for (const Entry& e : m_entries)
        if (e.level >= m_minLevel) showEntry(e);
}

void LogPanel::clear() {
    m_entries.clear();
    std::fill(std::begin(m_counts), std::end(m_counts), 0);
    m_view->clear();
    updateCounts();
}

void LogPanel::setMaximumLines(int lines) {
    m_max = std::max(1, lines);
    while (int(m_entries.size()) > m_max) m_entries.pop_front();
    m_view->setMaximumBlockCount(m_max);
    rebuild();
}

void LogPanel::setMinimumLevel(Level level) {
    m_minLevel = level;
    ctl::setIndexQuietly(m_levelBox, int(level));
    rebuild();
}

QString LogPanel::toPlainText() const {
    QStringList lines;
    for (const Entry& e : m_entries) {
        QString line = formatEntry(e);
        lines << line.replace(QChar::LineSeparator, '\n');
    }
    return lines.join('\n');
}

void LogPanel::copyAll() const {
    QApplication::clipboard()->setText(toPlainText());
}

void LogPanel::updateCounts() {
    const int w = m_counts[int(Level::Warning)], e = m_counts[int(Level::Error)];
    const QString text = tr("Warnings: %1, errors: %2").arg(w).arg(e);
    m_countLabel->setText(text);
    m_countLabel->setStyleSheet(e > 0   ? "color:#c80000;font-weight:bold"
                                : w > 0 ? "color:#b06a00"
                                        : "");
}
