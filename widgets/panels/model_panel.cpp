#include "model_panel.h"

#include <QDir>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QTimer>
#include <QTreeWidget>
#include <QUrl>
#include <QVBoxLayout>

#include "ctl_bring_into_view.h"
#include "ctl_style.h"

namespace {

// A wrapped label of plain text the user can select and copy: a path, a file list.
QLabel* selectablePlainLabel(const char* objectName, QWidget* parent) {
    auto* label = new QLabel(parent);
    label->setObjectName(objectName);
    label->setTextFormat(Qt::PlainText);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

}  // namespace

ModelPanel::ModelPanel(QWidget* parent)
    : QWidget(parent),
      m_name(new QLabel(this)),
      m_folder(selectablePlainLabel("modelFolder", this)),
      m_files(selectablePlainLabel("modelFiles", this)),
      m_components(new QTreeWidget(this)),
      m_pipeline(selectablePlainLabel("modelPipeline", this)),
      m_total(new QLabel(this)),
      m_status(new QLabel(this)),
      m_busy(new QProgressBar(this)),
      m_error(ctl::errorLabel("modelError", this)),
      m_open(new QPushButton(tr("Open folder\u2026"), this)),
      m_openFiles(new QPushButton(tr("Open files\u2026"), this)) {
    setAcceptDrops(true);
    setAttribute(Qt::WA_StyledBackground);  // so the drop highlight border is painted
    setObjectName("modelPanel");
    m_name->setObjectName("modelName");
    m_name->setTextFormat(Qt::PlainText);
    QFont f = m_name->font();
    f.setBold(true);
    f.setPointSizeF(f.pointSizeF() * 1.15);
    m_name->setFont(f);
    ctl::setSubtle(m_folder);
    m_files->hide();
    m_components->setObjectName("components");
    m_components->setColumnCount(4);
    m_components->setHeaderLabels({tr("Component"), tr("Class"), tr("Stored"), tr("Parameters")});
    m_components->setRootIsDecorated(false);
    m_components->setSelectionMode(QAbstractItemView::NoSelection);
    m_components->setFocusPolicy(Qt::NoFocus);  // read-only: no focus frame on an item
    m_components->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_components->header()->setStretchLastSection(false);
    // A pipeline has three to five components: room for six rows, no more.
    m_components->setMinimumHeight(m_components->fontMetrics().height() * 6);
    m_components->setMaximumHeight(m_components->fontMetrics().height() * 8);
    m_pipeline->hide();
    m_total->setObjectName("modelTotal");
    m_status->setObjectName("modelStatus");
    m_status->setWordWrap(true);
    m_busy->setObjectName("modelBusy");
    m_busy->setRange(0, 0);
    m_busy->setMaximumHeight(8);
    m_busy->setTextVisible(false);
    m_busy->hide();
    m_error->setTextFormat(Qt::PlainText);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);  // to copy it into a report
    m_open->setObjectName("openFolder");
    m_open->setToolTip(
        tr("Open a diffusers pipeline folder (with model_index.json). You can also "
           "drop a folder onto this panel."));
    m_openFiles->setObjectName("openFiles");
    m_openFiles->setToolTip(
        tr("Open a single-file checkpoint (flux1-dev.safetensors), or pick a set of files "
           "together: the model, its VAE (ae.safetensors) and text encoders (clip_l, t5xxl). "
           "Which file is which is found from what each holds. You can also drop the files "
           "onto this panel."));

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_open);
    buttons->addWidget(m_openFiles);
    buttons->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_name);
    layout->addWidget(m_folder);
    layout->addWidget(m_pipeline);
    layout->addWidget(m_files);
    layout->addWidget(m_components, 1);
    layout->addWidget(m_total);
    layout->addWidget(m_status);
    layout->addWidget(m_busy);
    layout->addWidget(m_error);
    m_partButtons = new QWidget(this);
    m_partButtons->setObjectName("partButtons");
    auto* partRow = new QHBoxLayout(m_partButtons);
    partRow->setContentsMargins(0, 0, 0, 0);
    partRow->addStretch(1);
    m_partButtons->hide();
    layout->addWidget(m_partButtons);
    layout->addLayout(buttons);

    connect(m_open, &QPushButton::clicked, this, &ModelPanel::chooseFolder);
    connect(m_openFiles, &QPushButton::clicked, this, &ModelPanel::chooseFiles);
    m_chooser = [](QWidget* parent, const QString& start) {
        return QFileDialog::getExistingDirectory(parent, tr("Open a model folder"), start);
    };
    m_filesChooser = [](QWidget* parent, const QString& start) {
        return QFileDialog::getOpenFileNames(parent, tr("Open model files"), start,
                                             tr("Model files (*.safetensors)"));
    };
    m_name->setText(tr("No model loaded"));
    m_folder->setText(
        tr("Open a diffusers pipeline folder or model files (.safetensors), or drop them here."));
    m_total->hide();
}

QString ModelPanel::parameterText(qint64 n) {
    if (n < 1000) return QString::number(n);
    if (n < 1000000) return tr("%1 K").arg(n / 1e3, 0, 'f', n < 10000 ? 2 : 1);
    if (n < 1000000000) return tr("%1 M").arg(n / 1e6, 0, 'f', n < 10000000 ? 2 : 1);
    return tr("%1 B").arg(n / 1e9, 0, 'f', 2);
}

void ModelPanel::setModel(const ModelSummary& model) {
    m_model = model;
    m_hasModel = true;
    m_name->setText(model.name.isEmpty() ? QFileInfo(model.folder).fileName() : model.name);
    m_folder->setText(QDir::toNativeSeparators(model.folder));
    m_folder->setToolTip(QDir::toNativeSeparators(model.folder));
    QStringList lines, paths;
    for (const auto& f : model.files) {
        lines << tr("%1: %2").arg(roleText(f.role), QFileInfo(f.path).fileName());
        paths << tr("%1: %2").arg(roleText(f.role), QDir::toNativeSeparators(f.path));
    }
    m_files->setText(lines.join('\n'));
    m_files->setToolTip(paths.join('\n'));
    m_files->setVisible(!lines.isEmpty());
    m_pipeline->setText(tr("Runs as %1").arg(model.pipelineClass));
    m_pipeline->setVisible(!model.pipelineClass.isEmpty());
    m_components->clear();
    qint64 total = 0;
    for (const auto& c : model.components) {
        auto* item = new QTreeWidgetItem(
            m_components, {QString::fromStdString(c.name), QString::fromStdString(c.className),
                           QString::fromStdString(c.storedDtype), parameterText(c.parameters)});
        item->setTextAlignment(3, Qt::AlignRight | Qt::AlignVCenter);
        item->setToolTip(3, tr("%L1 parameters").arg(c.parameters));
        total += c.parameters;
    }
    m_total->setText(model.components.size() == 1
                         ? tr("%1 parameters in 1 component").arg(parameterText(total))
                         : tr("%1 parameters in %2 components")
                               .arg(parameterText(total))
                               .arg(model.components.size()));
    m_total->show();
    setLoading(false);
    clearError();
}

QString ModelPanel::roleText(const QString& role) const {
    if (role == QLatin1String("model")) return tr("model");
    if (role == QLatin1String("vae")) return tr("VAE");
    if (role == QLatin1String("text_encoder")) return tr("text encoder");
    if (role == QLatin1String("text_encoder_2")) return tr("text encoder 2");
    if (role == QLatin1String("tokenizer")) return tr("tokenizer");
    if (role == QLatin1String("text_encoder_3")) return tr("text encoder 3");
    if (role == QLatin1String("tokenizer_2")) return tr("tokenizer 2");
    if (role == QLatin1String("tokenizer_3")) return tr("tokenizer 3");
    return role;
}

void ModelPanel::setLoadingFiles(const QStringList& files) {
    QStringList names;
    for (const auto& f : files) names << QFileInfo(f).fileName();
    setLoading(true, names.join(", "));
    m_loadingFiles = files;
}

void ModelPanel::setLoading(bool loading, const QString& folder) {
    m_loading = loading;
    m_loadingFolder = loading ? folder : QString();
    m_loadingFiles.clear();
    m_open->setEnabled(!loading);
    m_openFiles->setEnabled(!loading);
    m_busy->setVisible(loading);
    if (loading) {
        m_status->setText(folder.isEmpty()
                              ? tr("Loading the model\u2026")
                              : tr("Loading %1\u2026").arg(QDir::toNativeSeparators(folder)));
        m_status->show();
        clearError();
    } else {
        m_status->clear();
        m_status->hide();
    }
}

void ModelPanel::setError(const QString& message) {
    const QString folder = m_loadingFolder;
    const bool files = !m_loadingFiles.isEmpty();
    m_failedPath = files ? m_loadingFiles.front() : folder;
    setLoading(false);
    QString text =
        folder.isEmpty() ? tr("The model could not be opened.")
        : files          ? tr("The model files %1 could not be opened.").arg(folder)
                : tr("The model in %1 could not be opened.").arg(QDir::toNativeSeparators(folder));
    if (!message.trimmed().isEmpty()) text += ' ' + message.trimmed();
    if (m_hasModel) text += ' ' + tr("%1 is still loaded.").arg(m_name->text());
    m_error->setText(text);
    m_error->show();
}

void ModelPanel::clearError() {
    m_error->clear();
    m_error->hide();
    offerParts({});
}

void ModelPanel::offerParts(const QStringList& parts) {
    auto* row = static_cast<QHBoxLayout*>(m_partButtons->layout());
    // deleteLater: this may run inside one of these buttons' clicked() (a part was chosen).
    for (QPushButton* b : m_partButtons->findChildren<QPushButton*>()) {
        row->removeWidget(b);
        b->hide();
        b->setParent(nullptr);
        b->deleteLater();
    }
    m_offered.clear();
    for (const QString& slot : parts) {
        const hs::ModelFileSlot* part = hs::modelFileSlot(slot.toStdString());
        if (!part) continue;
        m_offered << slot;
        auto* b =
            new QPushButton(part->tokenizer ? tr("Choose the %1 folder\u2026").arg(roleText(slot))
                                            : tr("Choose the %1 file\u2026").arg(roleText(slot)),
                            m_partButtons);
        b->setObjectName("choosePart_" + slot);
        connect(b, &QPushButton::clicked, this, [this, slot] { choosePart(slot); });
        row->insertWidget(row->count() - 1, b);
    }
    if (!m_offered.isEmpty()) {
        auto* library = new QPushButton(tr("Model library\u2026"), m_partButtons);
        library->setObjectName("openLibrary");
        library->setToolTip(
            tr("Pick a whole set of files from the model library; it names what "
               "a set lacks before it opens."));
        connect(library, &QPushButton::clicked, this, &ModelPanel::libraryRequested);
        row->insertWidget(row->count() - 1, library);
    }
    m_partButtons->setVisible(!m_offered.isEmpty());
    // The error can be long: scroll the panel's area so the buttons it points at are in sight,
    // once the layout has placed them.
    if (!m_offered.isEmpty())
        QTimer::singleShot(0, this, [this] {
            if (!m_partButtons->isHidden()) ctl::bringIntoView(m_partButtons);
        });
}

void ModelPanel::choosePart(const QString& slot) {
    const hs::ModelFileSlot* part = hs::modelFileSlot(slot.toStdString());
    if (m_loading || !part) return;
    const QString start =
        m_failedPath.isEmpty() ? QDir::homePath() : QFileInfo(m_failedPath).absolutePath();
    QString path;
    if (part->tokenizer) {
        if (m_chooser) path = m_chooser(this, start);
    } else if (m_filesChooser) {
        const QStringList files = m_filesChooser(this, start);
        if (!files.isEmpty()) path = files.front();
    }
    if (!path.isEmpty()) emit partChosen(slot, QFileInfo(path).absoluteFilePath());
}

QString ModelPanel::errorText() const {
    return ctl::shownText(m_error);
}

void ModelPanel::chooseFolder() {
    if (m_loading || !m_chooser) return;
    const QString start = m_hasModel ? QFileInfo(m_model.folder).absolutePath() : QDir::homePath();
    const QString dir = m_chooser(this, start);
    if (!dir.isEmpty()) emit openRequested(QDir(dir).absolutePath());
}

void ModelPanel::chooseFiles() {
    if (m_loading || !m_filesChooser) return;
    const QString start = m_hasModel ? QFileInfo(m_model.folder).absolutePath() : QDir::homePath();
    QStringList files;
    for (const auto& f : m_filesChooser(this, start)) files << QFileInfo(f).absoluteFilePath();
    if (!files.isEmpty()) emit openFilesRequested(files);
}

QStringList ModelPanel::filesOf(const QMimeData* mime) {
    if (!mime || !mime->hasUrls() || mime->urls().isEmpty()) return {};
    QStringList files;
    for (const QUrl& url : mime->urls()) {
        if (!url.isLocalFile()) return {};
        const QFileInfo info(url.toLocalFile());
        if (!info.isFile() || info.suffix().compare("safetensors", Qt::CaseInsensitive) != 0)
            return {};
        if (!files.contains(info.absoluteFilePath())) files << info.absoluteFilePath();
    }
    return files;
}

bool ModelPanel::acceptsDrop(const QMimeData* mime) const {
    return !m_loading && (!folderOf(mime).isEmpty() || !filesOf(mime).isEmpty());
}

QString ModelPanel::folderOf(const QMimeData* mime) {
    if (!mime || !mime->hasUrls() || mime->urls().size() != 1) return QString();
    const QUrl url = mime->urls().first();
    if (!url.isLocalFile()) return QString();
    const QFileInfo info(url.toLocalFile());
    if (info.isDir()) return info.absoluteFilePath();
    if (info.isFile() && info.fileName() == QLatin1String("model_index.json"))
        return info.absolutePath();
    return QString();
}

void ModelPanel::setDropHighlight(bool on) {
    setStyleSheet(on ? "#modelPanel { border: 2px dashed palette(highlight); }" : QString());
}

void ModelPanel::dragEnterEvent(QDragEnterEvent* event) {
    if (acceptsDrop(event->mimeData())) {
        event->acceptProposedAction();
        setDropHighlight(true);
    } else {
        event->ignore();
    }
}

void ModelPanel::dragMoveEvent(QDragMoveEvent* event) {
    if (acceptsDrop(event->mimeData()))
        event->acceptProposedAction();
    else
        event->ignore();
}

void ModelPanel::dragLeaveEvent(QDragLeaveEvent*) {
    setDropHighlight(false);
}

void ModelPanel::dropEvent(QDropEvent* event) {
    setDropHighlight(false);
    if (!acceptsDrop(event->mimeData())) {
        event->ignore();
        return;
    }
    event->acceptProposedAction();
    const QString dir = folderOf(event->mimeData());
    if (!dir.isEmpty())
        emit openRequested(dir);
    else
        emit openFilesRequested(filesOf(event->mimeData()));
}
