#pragma once
// The loaded model: name, folder or file, the files of a file set with their parts, and its
// components (class, stored dtype, parameters), with "Open folder…" and "Open files…" buttons
// and drag-and-drop of a folder or of .safetensors files onto the panel. The panel only asks for
// a model (openRequested, openFilesRequested): the app finds which file is the model and which
// the VAE and the text encoders, loads them and answers with setModel() or setError(). An error
// is shown under the previous model, which stays visible (and loaded).
#include <QString>
#include <QStringList>
#include <QVector>
#include <QWidget>
#include <functional>
#include <vector>

#include "records/run_types.h"

class QLabel;
class QMimeData;
class QProgressBar;
class QPushButton;
class QTreeWidget;

// One file of a model opened from files, with its part: "model" (the checkpoint holding the
// denoiser), or the slot it gives: "vae", "text_encoder", "text_encoder_2", "tokenizer" ...
struct ModelFileRole {
    QString role;
    QString path;
};

struct ModelSummary {
    QString name;    // e.g. the folder's name or model_index.json's _name_or_path
    QString folder;  // absolute path of the pipeline folder, or of the model file
    std::vector<hs::ComponentInfo> components;
    QVector<ModelFileRole> files = {};  // a file set's files, the model first; empty otherwise
    QString pipelineClass = {};         // the pipeline it runs as: "FluxPipeline", ...
};

class ModelPanel : public QWidget {
    Q_OBJECT
public:
    explicit ModelPanel(QWidget* parent = nullptr);

    // Shows `model`, ends loading and clears any error.
    void setModel(const ModelSummary& model);
    bool hasModel() const { return m_hasModel; }
    const ModelSummary& model() const { return m_model; }

    // While loading: the buttons and drops are disabled and "Loading <folder>…" is shown.
    void setLoading(bool loading, const QString& folder = QString());
    // As setLoading(true), for files picked or dropped together.
    void setLoadingFiles(const QStringList& files);
    bool isLoading() const { return m_loading; }
    // Ends loading and shows why the folder could not be opened; the previous model stays.
    void setError(const QString& message);
    void clearError();
    QString errorText() const;
    // After setError: a button per part the error names (slots of hs::modelFileSlots(),
    // "tokenizer_2", "vae": a folder for a tokenizer, a file for weights) that asks for it and
    // emits partChosen, and one that opens the model library. Cleared with the error.
    void offerParts(const QStringList& parts);
    QStringList offeredParts() const { return m_offered; }

    // Replaces the folder dialog (QFileDialog::getExistingDirectory), e.g. in tests. The chooser
    // returns the chosen folder or an empty string when cancelled.
    using DirectoryChooser = std::function<QString(QWidget* parent, const QString& start)>;
    void setDirectoryChooser(DirectoryChooser chooser) { m_chooser = std::move(chooser); }
    // Replaces the files dialog (QFileDialog::getOpenFileNames for *.safetensors): returns the
    // chosen files, none when cancelled.
    using FilesChooser = std::function<QStringList(QWidget* parent, const QString& start)>;
    void setFilesChooser(FilesChooser chooser) { m_filesChooser = std::move(chooser); }

    // The folder a drop of `mime` would open: one local folder, or the folder of a dropped
    // model_index.json; empty when the drop is not a model folder.
    static QString folderOf(const QMimeData* mime);
    // The files a drop of `mime` would open: one or more local .safetensors files (absolute
    // paths, in the order dropped); empty when anything else is in the drop.
    static QStringList filesOf(const QMimeData* mime);
    // "950", "12.3 K", "9.88 M", "1.20 B"
    static QString parameterText(qint64 n);

signals:
    void openRequested(const QString& dir);
    // Model files picked or dropped together (absolute paths): a checkpoint alone, or a set of
    // the model, its VAE and text encoders in any order.
    void openFilesRequested(const QStringList& files);
    // A part offered by offerParts was picked: `slot` ("tokenizer_2"), its folder or file.
    void partChosen(const QString& slot, const QString& path);
    void libraryRequested();

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dragMoveEvent(QDragMoveEvent* event) override;
    void dragLeaveEvent(QDragLeaveEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void chooseFolder();
    void chooseFiles();
    void choosePart(const QString& slot);
    bool acceptsDrop(const QMimeData* mime) const;
    QString roleText(const QString& role) const;
    void setDropHighlight(bool on);

    ModelSummary m_model;
    bool m_hasModel = false;
    bool m_loading = false;
    QString m_loadingFolder;
    QStringList m_loadingFiles;
    DirectoryChooser m_chooser;
    FilesChooser m_filesChooser;
    QStringList m_offered;
    QString m_failedPath;  // what the failed load opened: the folder the part dialogs start in

    QLabel* m_name;
    QLabel* m_folder;
    QLabel* m_files;
    QTreeWidget* m_components;
    QLabel* m_pipeline;
    QLabel* m_total;
    QLabel* m_status;
    QProgressBar* m_busy;
    QWidget* m_partButtons;
    QLabel* m_error;
    QPushButton* m_open;
    QPushButton* m_openFiles;
};
