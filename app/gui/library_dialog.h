#pragma once
// File > Model library: the library panel in a window, with the engine behind it. Scans run on
// their own thread (the window stays responsive; Stop ends one at the next folder entry), the
// folders the user adds persist in QSettings (library/comfyui, library/a1111, library/user), the
// picks are checked as a file set by the engine (what a split set lacks is named before Open is
// enabled), and Open loads through the studio as File > Open does. The first show scans.
#include <QDialog>
#include <QPointer>
#include <atomic>
#include <memory>
#include <vector>

class LibraryPanel;
class QThread;
class Studio;
struct LibrarySources;
namespace hs {
struct LibraryEntry;  // library/library_entry.h: its `slots` member meets Qt's macro in the .cpp
struct LibraryReport;
}  // namespace hs

class LibraryDialog : public QDialog {
    Q_OBJECT
public:
    LibraryDialog(Studio* studio, QWidget* parent = nullptr);
    ~LibraryDialog() override;

    LibraryPanel* panel() const { return m_panel; }
    // Starts a scan of the Hugging Face cache and the added folders (a running one is stopped
    // and started again, so the latest folders count).
    void rescan();
    void stop();
    bool isScanning() const { return m_thread != nullptr; }
    // How long closing the dialog waits for a scan in flight to stop.
    static constexpr int kCloseWaitMs = 1000;

protected:
    void showEvent(QShowEvent* event) override;

private:
    void onScanned(const hs::LibraryReport& report);
    void onSourcesChanged(const LibrarySources& sources);
    void checkPicks(const QStringList& paths);
    void open(const QStringList& paths);
    std::vector<hs::LibraryEntry> entriesAt(const QStringList& paths) const;

    Studio* m_studio;
    LibraryPanel* m_panel;
    QThread* m_thread = nullptr;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    bool m_again = false;    // sources changed during a scan: scan again when it ends
    bool m_scanned = false;  // a scan was started in this window's life
    std::vector<hs::LibraryEntry> m_entries;
};
