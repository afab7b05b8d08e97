#include "library_panel.h"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

#include "model_panel.h"

namespace {

constexpr int kPathRole = Qt::UserRole + 1;  // column 0: the entry's path
constexpr int kSortRole = Qt::UserRole + 2;  // every column: the value it sorts by
constexpr int kKindRole = Qt::UserRole + 3;  // source list: "hf", "comfyui", "a1111", "user"

// The library's fixed words (core/library: where an entry was found, its kind or layout, its
// fp16 risk), listed for lupdate. shownValue() looks a value up with itself as the source text:
// English shows it as it is, and a name (a family, a single-file layout) has no translation.
[[maybe_unused]] const char* const kLibraryWords[] = {
    QT_TRANSLATE_NOOP("LibraryPanel", "hf-cache"),
    QT_TRANSLATE_NOOP("LibraryPanel", "comfyui"),
    QT_TRANSLATE_NOOP("LibraryPanel", "a1111"),
    QT_TRANSLATE_NOOP("LibraryPanel", "user"),
    QT_TRANSLATE_NOOP("LibraryPanel", "pipeline"),
    QT_TRANSLATE_NOOP("LibraryPanel", "component"),
    QT_TRANSLATE_NOOP("LibraryPanel", "file"),
    QT_TRANSLATE_NOOP("LibraryPanel", "shards"),
    QT_TRANSLATE_NOOP("LibraryPanel", "unreadable"),
    QT_TRANSLATE_NOOP("LibraryPanel", "diffusers pipeline"),
    QT_TRANSLATE_NOOP("LibraryPanel", "diffusers folder"),
    QT_TRANSLATE_NOOP("LibraryPanel", "transformers folder"),
    QT_TRANSLATE_NOOP("LibraryPanel", "sharded safetensors"),
    QT_TRANSLATE_NOOP("LibraryPanel", "weights fit fp16"),
    QT_TRANSLATE_NOOP("LibraryPanel", "unknown")};

QString shownValue(const QString& value) {
    QStringList parts = value.split("; ");  // several single-file layouts
    for (QString& part : parts) part = LibraryPanel::tr(part.toUtf8().constData());
    return parts.join(QStringLiteral("; "));
}

QString defaultChooser(QWidget* parent, const QString& kind) {
    if (kind == "file")
        return QFileDialog::getOpenFileName(parent, LibraryPanel::tr("Add a model file"), QString(),
                                            LibraryPanel::tr("Model files (*.safetensors *.json)"));
    const QString title = kind == "comfyui" ? LibraryPanel::tr("The ComfyUI folder (with models/)")
                          : kind == "a1111"
                              ? LibraryPanel::tr("The AUTOMATIC1111 or Forge folder (with models/)")
                              : LibraryPanel::tr("A folder of models");
    return QFileDialog::getExistingDirectory(parent, title);
}

}  // namespace

LibraryPanel::LibraryPanel(QWidget* parent) : QWidget(parent), m_chooser(defaultChooser) {
    // Where to look.
    m_sourceList = new QListWidget;
    m_sourceList->setObjectName("librarySources");
    auto* addComfy = new QPushButton(tr("Add ComfyUI folder..."));
    auto* addA1111 = new QPushButton(tr("Add A1111/Forge folder..."));
    auto* addFolder = new QPushButton(tr("Add folder..."));
    auto* addFile = new QPushButton(tr("Add file..."));
    auto* remove = new QPushButton(tr("Remove"));
    addComfy->setObjectName("addComfyui");
    addA1111->setObjectName("addA1111");
    addFolder->setObjectName("addFolder");
    addFile->setObjectName("addFile");
    remove->setObjectName("removeSource");
    connect(addComfy, &QPushButton::clicked, this, [this] { addSource("comfyui"); });
    connect(addA1111, &QPushButton::clicked, this, [this] { addSource("a1111"); });
    connect(addFolder, &QPushButton::clicked, this, [this] { addSource("folder"); });
    connect(addFile, &QPushButton::clicked, this, [this] { addSource("file"); });
    connect(remove, &QPushButton::clicked, this, &LibraryPanel::removeSource);
    auto* sourceButtons = new QVBoxLayout;
    for (auto* b : {addComfy, addA1111, addFolder, addFile, remove}) sourceButtons->addWidget(b);
    sourceButtons->addStretch();
    auto* sources = new QWidget;
    auto* sourceRow = new QHBoxLayout(sources);
    sourceRow->setContentsMargins(0, 0, 0, 0);
    sourceRow->addWidget(m_sourceList, 1);
    sourceRow->addLayout(sourceButtons);

    // What is there.
    m_filter = new QLineEdit;
    m_filter->setObjectName("libraryFilter");
    m_filter->setPlaceholderText(tr("Filter: name, family, dtype, error..."));
    m_filter->setClearButtonEnabled(true);
    m_model = new QStandardItemModel(this);
    m_model->setHorizontalHeaderLabels({tr("Name"), tr("Family"), tr("Variant"), tr("Layout"),
                                        tr("Stored"), tr("Parameters"), tr("Size"), tr("fp16"),
                                        tr("Source"), tr("Error")});
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(kSortRole);
    m_proxy->setFilterKeyColumn(-1);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    connect(m_filter, &QLineEdit::textChanged, m_proxy,
            &QSortFilterProxyModel::setFilterFixedString);
    m_table = new QTableView;
    m_table->setObjectName("libraryTable");
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(Name, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->setWordWrap(false);  // one line a model; a cut cell has its text in a tooltip
    m_table->horizontalHeader()->setStretchLastSection(true);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            [this] { emit picksChanged(picks()); });
    connect(m_model, &QStandardItemModel::itemChanged, this, [this](QStandardItem* i) {
        if (!m_filling && i->column() == Name && i->isCheckable()) emit picksChanged(picks());
    });
    connect(m_table, &QTableView::doubleClicked, this, [this] {
        if (m_canOpen) emit openRequested(picks());
    });

    m_rescan = new QPushButton(tr("Rescan"));
    m_stop = new QPushButton(tr("Stop"));
    m_open = new QPushButton(tr("Open"));
    m_rescan->setObjectName("libraryRescan");
    m_stop->setObjectName("libraryStop");
    m_open->setObjectName("libraryOpen");
    m_stop->setEnabled(false);
    m_open->setEnabled(false);
    connect(m_rescan, &QPushButton::clicked, this, &LibraryPanel::rescanRequested);
    connect(m_stop, &QPushButton::clicked, this, &LibraryPanel::stopRequested);
    connect(m_open, &QPushButton::clicked, this, [this] { emit openRequested(picks()); });
    m_status = new QLabel;
    m_status->setObjectName("libraryStatus");
    m_status->setWordWrap(true);
    m_pick =
        new QLabel(tr("Select a model, or tick the files of a split set (the model, its VAE "
                      "and text encoders)."));
    m_pick->setObjectName("libraryPick");
    m_pick->setWordWrap(true);
    m_pick->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_rescan);
    buttons->addWidget(m_stop);
    buttons->addWidget(m_status, 1);
    buttons->addWidget(m_open);

    auto* models = new QWidget;
    auto* modelsLayout = new QVBoxLayout(models);
    modelsLayout->setContentsMargins(0, 0, 0, 0);
    modelsLayout->addWidget(m_filter);
    modelsLayout->addWidget(m_table, 1);
    modelsLayout->addWidget(m_pick);
    modelsLayout->addLayout(buttons);

    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(sources);
    split->addWidget(models);
    split->setStretchFactor(1, 4);
    split->setSizes({110, 500});  // a few sources, many models
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(split);
    showSources();
    updateStatus();
}

QString LibraryPanel::sizeText(quint64 n) {
    if (n >= 1000ull * 1000 * 1000) return tr("%1 GB").arg(n / 1e9, 0, 'f', 1);
    if (n >= 1000ull * 1000) return tr("%1 MB").arg(n / 1e6, 0, 'f', 1);
    if (n >= 1000) return tr("%1 kB").arg(n / 1e3, 0, 'f', 1);
    return tr("%1 B").arg(n);
}

void LibraryPanel::setHfCaches(const QStringList& caches) {
    m_hfCaches = caches;
    showSources();
}

void LibraryPanel::setSources(const LibrarySources& sources) {
    m_sources = sources;
    showSources();
}

void LibraryPanel::showSources() {
    m_sourceList->clear();
    auto add = [this](const QString& kind, const QString& label, const QString& path) {
        auto* i = new QListWidgetItem(label.arg(path), m_sourceList);
        i->setData(kKindRole, kind);
        i->setData(kPathRole, path);
        i->setToolTip(path);
    };
    if (m_hfCaches.isEmpty())
        new QListWidgetItem(tr("Hugging Face cache: none found ($HF_HOME/hub, "
                               "~/.cache/huggingface/hub)"),
                            m_sourceList);
    for (const auto& c : m_hfCaches) add("hf", tr("Hugging Face cache: %1"), c);
    for (const auto& c : m_sources.comfyui) add("comfyui", tr("ComfyUI: %1"), c);
    for (const auto& c : m_sources.a1111) add("a1111", tr("AUTOMATIC1111/Forge: %1"), c);
    for (const auto& c : m_sources.user) add("user", tr("Added: %1"), c);
}

void LibraryPanel::addSource(const QString& kind) {
    const QString path = m_chooser(this, kind);
    if (path.isEmpty()) return;
    QStringList& list = kind == "comfyui" ? m_sources.comfyui
                        : kind == "a1111" ? m_sources.a1111
                                          : m_sources.user;
    if (list.contains(path)) return;
    list << path;
    showSources();
    emit sourcesChanged(m_sources);
}

void LibraryPanel::removeSource() {
    auto* i = m_sourceList->currentItem();
    if (!i) return;
    const QString kind = i->data(kKindRole).toString();
    const QString path = i->data(kPathRole).toString();
    QStringList* list = kind == "comfyui" ? &m_sources.comfyui
                        : kind == "a1111" ? &m_sources.a1111
                        : kind == "user"  ? &m_sources.user
                                          : nullptr;
    if (!list) return;  // the Hugging Face cache is found, not added
    list->removeAll(path);
    showSources();
    emit sourcesChanged(m_sources);
}

QStandardItem* LibraryPanel::item(const QString& text, const QVariant& sortKey) const {
    auto* i = new QStandardItem(text);
    if (!text.isEmpty()) i->setToolTip(text);
    i->setData(sortKey.isValid() ? sortKey : QVariant(text.toLower()), kSortRole);
    return i;
}

void LibraryPanel::setRows(const QVector<LibraryRow>& rows, const QStringList& notes) {
    m_rows = rows;
    m_notes = notes;
    m_filling = true;  // a new row's check state is not a pick
    m_model->removeRows(0, m_model->rowCount());
    for (const auto& r : rows) {
        QList<QStandardItem*> cells;
        auto* name = item(r.name);
        name->setData(r.path, kPathRole);
        name->setToolTip(r.path);
        // A single readable file can be one part of a split set.
        if (r.kind == "file" && r.error.isEmpty()) {
            name->setCheckable(true);
            name->setCheckState(Qt::Unchecked);
        }
        cells << name << item(r.family) << item(r.variant) << item(shownValue(r.layout))
              << item(r.dtype)
              << item(r.parameters ? ModelPanel::parameterText(r.parameters) : QString(),
                      r.parameters)
              << item(r.bytes ? sizeText(r.bytes) : QString(), r.bytes)
              << item(shownValue(r.fp16Risk)) << item(shownValue(r.source)) << item(r.error);
        if (!r.error.isEmpty()) {
            for (auto* c : cells) {
                c->setForeground(QColor(200, 40, 40));
                c->setToolTip(r.error);
            }
        }
        m_model->appendRow(cells);
    }
    m_filling = false;
    m_table->resizeColumnsToContents();
    // Long variants and layouts are cut (their tooltips say them whole) so that more of the Error
    // column stays in view; selecting a broken row also says its error under the table.
    for (int c = 0; c < Error; ++c)
        m_table->setColumnWidth(c, qMin(m_table->columnWidth(c), c == Name ? 320 : 180));
    updateStatus();
    emit picksChanged(picks());
}

void LibraryPanel::setScanning(bool scanning) {
    m_scanning = scanning;
    m_rescan->setEnabled(!scanning);
    m_stop->setEnabled(scanning);
    updateStatus();
}

void LibraryPanel::updateStatus() {
    int broken = 0;
    for (const auto& r : m_rows) broken += !r.error.isEmpty();
    QString s = m_scanning ? tr("Scanning... (the list so far stays usable)")
                           : tr("%n model(s)", nullptr, m_rows.size());
    if (!m_scanning && broken)
        s += tr(", %n cannot be read (see the Error column)", nullptr, broken);
    if (!m_scanning && !m_notes.isEmpty()) s += "\n" + m_notes.join("\n");
    m_status->setText(s);
}

void LibraryPanel::setPickState(bool canOpen, const QString& text) {
    m_canOpen = canOpen;
    m_open->setEnabled(canOpen);
    m_pick->setText(text);
}

QString LibraryPanel::pickText() const {
    return m_pick->text();
}

QStringList LibraryPanel::picks() const {
    QStringList ticked;
    for (int r = 0; r < m_model->rowCount(); ++r) {
        const auto* i = m_model->item(r, Name);
        if (i->isCheckable() && i->checkState() == Qt::Checked)
            ticked << i->data(kPathRole).toString();
    }
    if (!ticked.isEmpty()) return ticked;
    const auto rows = m_table->selectionModel()->selectedRows(Name);
    if (rows.isEmpty()) return {};
    return {rows.first().data(kPathRole).toString()};
}

bool LibraryPanel::setTicked(const QString& path, bool ticked) {
    for (int r = 0; r < m_model->rowCount(); ++r) {
        auto* i = m_model->item(r, Name);
        if (i->data(kPathRole).toString() != path || !i->isCheckable()) continue;
        i->setCheckState(ticked ? Qt::Checked : Qt::Unchecked);
        return true;
    }
    return false;
}
