#pragma once
// A bounded, timestamped event log (load, stages, steps, first non-finite point, errors) with a
// level per line: info (plain), warning (amber, "WARN"), error (red, bold, "ERROR"). Keeps the
// last maximumLines() entries (default 5000); "Copy all" puts every kept entry on the clipboard
// as plain text, whatever the level filter shows.
#include <QDateTime>
#include <QWidget>
#include <deque>

class QComboBox;
class QLabel;
class QPlainTextEdit;

class LogPanel : public QWidget {
    Q_OBJECT
public:
    enum class Level { Info, Warning, Error };
    struct Entry {
        QDateTime time;
        Level level = Level::Info;
        QString category;  // "load", "step", "nan", "run" ... (free text, may be empty)
        QString text;
    };

    explicit LogPanel(QWidget* parent = nullptr);

    // Appends one entry (newlines in `text` stay inside the entry). Safe to call per step.
    void append(Level level, const QString& text, const QString& category = QString(),
                const QDateTime& when = QDateTime::currentDateTime());
    void info(const QString& text, const QString& category = QString());
    void warning(const QString& text, const QString& category = QString());
    void error(const QString& text, const QString& category = QString());
    void clear();

    void setMaximumLines(int lines);  // at least 1; drops the oldest entries beyond it
    int maximumLines() const { return m_max; }
    int lineCount() const { return int(m_entries.size()); }
    const std::deque<Entry>& entries() const { return m_entries; }
    // Entries of each level since the last clear() (dropped ones included).
    int count(Level level) const { return m_counts[int(level)]; }

    // Shows entries at `level` and above.
    void setMinimumLevel(Level level);
    Level minimumLevel() const { return m_minLevel; }

    // Every kept entry: "2024-05-01 12:03:04.123  WARN   [step] text", one per line.
    QString toPlainText() const;
    void copyAll() const;
    static QString formatEntry(const Entry& e);

    QPlainTextEdit* view() const { return m_view; }

private:
    void showEntry(const Entry& e);
    void rebuild();
    void updateCounts();

    QPlainTextEdit* m_view;
    QComboBox* m_levelBox;
    QLabel* m_countLabel;
    std::deque<Entry> m_entries;
    int m_max = 5000;
    int m_counts[3] = {0, 0, 0};
    Level m_minLevel = Level::Info;
};
