#pragma once
// File > Reproduce image... and a PNG dropped on the window: how an image was made, read from its
// metadata (reproduce/reproduce.h: ComfyUI's graph, an A1111 / Forge infotext), into the prompt
// panel; the model files it names looked up in the model library with the studio's folders, on
// a thread of its own (the scan and A1111's model hash can take long), and opened as a library
// pick opens; and the image's own picture in a tile beside the run's final image. Generate then
// runs the reproduction with the image's ComfyUI sampler and scheduler (on a model whose runs
// take them); a run with other panel settings, or another model, puts the original away.
//
// An image that does not read (no metadata, a chunk over the cap, a graph with a cycle) is said
// in a message box and changes nothing. Files not found are named with the folders searched,
// with the choice of the model library or the model already open.
#include <QObject>
#include <QPointer>
#include <QString>
#include <atomic>
#include <memory>
#include <string>

class ImageView;
class LogPanel;
class PromptPanel;
class QAction;
class QMessageBox;
class QMimeData;
class QThread;
class QWidget;
class Studio;
struct LoadedModel;
struct StudioViews;
namespace hs {
struct ReproduceSettings;
struct RunConfig;
}  // namespace hs

class ReproduceImage : public QObject {
    Q_OBJECT
public:
    // `window`: where drops land and the messages show, and the parent; `library`: File > Model
    // library, offered when files are missing. The original's tile goes beside views.image.
    ReproduceImage(Studio& studio, const StudioViews& views, QAction* library, QWidget* window);
    ~ReproduceImage() override;

    // File > Reproduce image... ("reproduceImageAction"): picks a PNG and reproduces it.
    QAction* action() const { return m_action; }
    // Reads `path`'s settings into the panels and starts looking its files up. False, with a
    // message box and nothing changed, when the image does not read.
    bool reproduce(const QString& path);
    bool isLookingUp() const { return m_thread != nullptr; }
    // The image's own picture ("originalImage"), hidden until an image is reproduced.
    ImageView* original() const { return m_original; }
    // The message in view ("reproduceMessage": an image that does not read, files missing), or
    // null. The missing files' one has "reproduceOpenLibrary" and "reproduceKeepModel" buttons.
    QMessageBox* message() const;
    // How long destroying this waits for a lookup in flight to stop.
    static constexpr int kCloseWaitMs = 1000;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    struct Lookup;
    void chooseImage();
    void showOriginal(const QString& path);
    void lookUp();
    void onLookedUp(const Lookup& result);
    // The image's settings onto the prompt panel, for `model` (its samplers; null: none open).
    // With `notes`, what runs otherwise than the image says goes to the log.
    void applySettings(const LoadedModel* model, bool notes);
    void keepCurrentModel();
    void onModelLoaded(const LoadedModel& m);
    // Generate's run: the reproduction (the panels as the image's settings left them, the same
    // model) takes the image's ComfyUI sampler; another run hides the original (clearOriginal).
    void amendRun(hs::RunConfig& cfg);
    void clearOriginal();
    void showMessage(const QString& text, bool offerLibrary);
    void releaseThread();
    QString searchedFolders() const;
    static QString imageOf(const QMimeData* mime);

    Studio& m_studio;
    PromptPanel* m_prompt;
    LogPanel* m_log;
    QAction* m_library;
    QWidget* m_window;
    QAction* m_action;
    ImageView* m_original;
    QPointer<QMessageBox> m_message;
    QString m_path;  // the image being reproduced
    std::unique_ptr<hs::ReproduceSettings> m_settings;
    bool m_pending = false;  // the settings wait for the next model load (the image's files)
    std::unique_ptr<hs::RunConfig> m_reproduced;   // the panels' run as the settings left them
    QString m_reproducedModel;                     // the model they were set for
    std::string m_comfySampler, m_comfyScheduler;  // the image's; "": the model's own runs
    QThread* m_thread = nullptr;
    std::shared_ptr<std::atomic<bool>> m_cancel;
};
