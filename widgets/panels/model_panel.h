#pragma once
// The loaded model: name, folder, and its components (class, stored dtype, parameters), with an
// "Open folder…" button and drag-and-drop of a folder onto the panel. The panel only asks for a
// model (openRequested); the app loads it and answers with setModel() or setError(). An error is
// shown under the previous model, which stays visible (and loaded).
#include <QString>
#include <QWidget>
#include <functional>
#include <vector>

#include "records/run_types.h"

class QLabel;
class QMimeData;
class QProgressBar;
class QPushButton;
class QTreeWidget;

struct ModelSummary {
    QString name;    // e.g. the folder's name or model_index.json's _name_or_path
    QString folder;  // absolute path of the pipeline folder
    std::vector<hs::ComponentInfo> components;
};

class ModelPanel : public QWidget {
    Q_OBJECT
public:
    explicit ModelPanel(QWidget* parent = nullptr);

    // Shows `model`, ends loading and clears any error.
    void setModel(const ModelSummary& model);
    bool hasModel() const { return m_hasModel; }
    const ModelSummary& model() const { return m_model; }

    // While loading: the button and drops are disabled and "Loading <folder>…" is shown.
    void setLoading(bool loading, const QString& folder = QString());
    bool isLoading() const { return m_loading; }
    // Ends loading and shows why the folder could not be opened; the previous model stays.
    void setError(const QString& message);
    void clearError();
    QString errorText() const;

    // Replaces the folder dialog (QFileDialog::getExistingDirectory), e.g. in tests. The chooser
    // returns the chosen folder or an empty string when cancelled.
    using DirectoryChooser = std::function<QString(QWidget* parent, const QString& start)>;
    void setDirectoryChooser(DirectoryChooser chooser) { m_chooser = std::move(chooser); }

    // The folder a drop of `mime` would open: one local folder, or the folder of a dropped
    // model_index.json; empty when the drop is not a model folder.
    static QString folderOf(const QMimeData* mime);
    // "950", "12.3 K", "9.88 M", "1.20 B"
    static QString parameterText(qint64 n);

signals:
    void openRequested(const QString& dir);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dragMoveEvent(QDragMoveEvent* event) override;
    void dragLeaveEvent(QDragLeaveEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void chooseFolder();
    void setDropHighlight(bool on);

    ModelSummary m_model;
    bool m_hasModel = false;
    bool m_loading = false;
    QString m_loadingFolder;
    DirectoryChooser m_chooser;

    QLabel* m_name;
    QLabel* m_folder;
    QTreeWidget* m_components;
    QLabel* m_total;
    QLabel* m_status;
    QProgressBar* m_busy;
    QLabel* m_error;
    QPushButton* m_open;
};
