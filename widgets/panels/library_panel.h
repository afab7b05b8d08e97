#pragma once
// The model library as the user sees it: the folders looked in (the Hugging Face cache, found by
// the app, plus ComfyUI, AUTOMATIC1111/Forge roots and folders or files the user adds), the
// models found there as a sortable, filterable table (a broken file is a row with its error, not
// hidden), Rescan and Stop, and Open. Single files can be ticked to assemble a split set (a FLUX
// DiT + ae + clip_l + t5xxl); the app says what the picks lack (setPickState) and Open follows.
// Plain rows in, requests out: the scan and the file-set check run in the app (no LibTorch here).
#include <QString>
#include <QStringList>
#include <QVector>
#include <QWidget>
#include <functional>

#include "library_sources.h"

class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSortFilterProxyModel;
class QStandardItem;
class QStandardItemModel;
class QTableView;

struct LibraryRow {
    QString name, path;
    QString source;  // "hf-cache", "comfyui", "a1111", "user"
    QString kind;    // "pipeline", "component", "file", "shards", "unreadable"
    QString family, variant, layout, dtype, fp16Risk;
    qint64 parameters = 0;
    quint64 bytes = 0;
    QString error;  // empty when readable
};

class LibraryPanel : public QWidget {
    Q_OBJECT
public:
    enum Column { Name, Family, Variant, Layout, Dtype, Parameters, Size, Fp16, Source, Error };

    explicit LibraryPanel(QWidget* parent = nullptr);

    void setHfCaches(const QStringList& caches);
    void setSources(const LibrarySources& sources);
    const LibrarySources& sources() const { return m_sources; }
    void setRows(const QVector<LibraryRow>& rows, const QStringList& notes);
    const QVector<LibraryRow>& rows() const { return m_rows; }
    void setScanning(bool scanning);
    bool isScanning() const { return m_scanning; }
    // What the app says of the current picks: whether they open, and why not (or what they are).
    void setPickState(bool canOpen, const QString& text);
    QString pickText() const;
    // The ticked rows' paths, else the selected row's; in the rows' order.
    QStringList picks() const;
    // Ticks or unticks the row of `path` (a file); false when no such tickable row.
    bool setTicked(const QString& path, bool ticked);
    // The table as shown (sorted, filtered): for tests and screenshots.
    QTableView* table() const { return m_table; }

    // Asks where a source is: `kind` is "comfyui", "a1111", "folder" or "file". Tests replace
    // the file dialog with this.
    using SourceChooser = std::function<QString(QWidget* parent, const QString& kind)>;
    void setSourceChooser(SourceChooser chooser) { m_chooser = std::move(chooser); }

    static QString sizeText(quint64 bytes);

signals:
    void rescanRequested();
    void stopRequested();
    void sourcesChanged(const LibrarySources& sources);
    void picksChanged(const QStringList& paths);
    void openRequested(const QStringList& paths);

private:
    void addSource(const QString& kind);
    void removeSource();
    void showSources();
    void updateStatus();
    QStandardItem* item(const QString& text, const QVariant& sortKey = QVariant()) const;

    QListWidget* m_sourceList;
    QLineEdit* m_filter;
    QTableView* m_table;
    QStandardItemModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QPushButton *m_rescan, *m_stop, *m_open;
    QLabel *m_status, *m_pick;
    QStringList m_hfCaches, m_notes;
    LibrarySources m_sources;
    QVector<LibraryRow> m_rows;
    bool m_scanning = false;
    bool m_canOpen = false;
    bool m_filling = false;
    SourceChooser m_chooser;
};
