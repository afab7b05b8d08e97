#include "run_history.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLockFile>
#include <QMutex>
#include <QSet>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QStandardPaths>
#include <algorithm>
#include <atomic>
#include <map>
#include <memory>

#include "history_columns.h"
#include "history_images.h"
#include "history_schema.h"

using namespace history;

namespace {

// Runs begun and not finished by any RunHistory of this process, as "<db path>#<id>". A run in
// the database as "running" but missing here belongs to a process that is gone: interrupted.
QMutex g_runningMutex;
QSet<QString>& runningRuns() {
    static QSet<QString> s;
    return s;
}

// Across processes (a second studio window on the same history): each running run holds a
// lock file <data>/live/<id>.lock for as long as its writer lives. QLockFile records the pid, so
// a writer that crashed leaves a stale lock the next look takes over: interrupted.
std::map<QString, std::unique_ptr<QLockFile>>& liveLocks() {
    static std::map<QString, std::unique_ptr<QLockFile>> s;
    return s;
}

QString liveLockPath(const QString& dir, qint64 id) {
    return dir + QStringLiteral("/live/") + QString::number(id) + QStringLiteral(".lock");
}

// True when another live process holds run `id`'s lock. Never by the age of the file: a run
// may take hours.
bool runningElsewhere(const QString& dir, qint64 id) {
    const QString path = liveLockPath(dir, id);
    if (!QFileInfo::exists(path)) return false;
    QLockFile probe(path);
    probe.setStaleLockTime(0);
    if (probe.tryLock(0)) {  // nobody holds it (its process is gone): remove it
        probe.unlock();
        return false;
    }
    return probe.error() == QLockFile::LockFailedError;
}

const QString kStepKind = QStringLiteral("step");
const QString kFinalKind = QStringLiteral("final");

QString nowUtc() {
    return QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
}

// One integer from a query with one bound id, or `fallback` when it yields no row.
qint64 scalar(QSqlDatabase& db, const QString& sql, qint64 id, qint64 fallback, bool* ok) {
    QSqlQuery q(db);
    q.prepare(sql);
    q.bindValue(0, id);
    *ok = q.exec();
    if (!*ok || !q.next() || q.value(0).isNull()) return fallback;
    return q.value(0).toLongLong();
}

}  // namespace

QString runStateName(RunState s) {
    switch (s) {
        case RunState::Running:
            return QStringLiteral("running");
        case RunState::Finished:
            return QStringLiteral("finished");
        case RunState::Cancelled:
            return QStringLiteral("cancelled");
        case RunState::Interrupted:
            return QStringLiteral("interrupted");
    }
    return QString();
}

QString RunHistory::defaultDataDir() {
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
           QStringLiteral("/runs");
}

RunHistory::RunHistory(const QString& dataDir)
    : m_dir(QDir(dataDir.isEmpty() ? defaultDataDir() : dataDir).absolutePath()),
      m_thread(QThread::currentThread()) {
    static std::atomic<int> counter{0};
    m_connection = QStringLiteral("halfscope-history-%1").arg(++counter);
    if (!QDir().mkpath(m_dir) || !QFileInfo(m_dir).isDir()) {
        fail(tr("Cannot create the run history folder %1. Check that the path is a folder you "
                "may write to.")
                 .arg(QDir::toNativeSeparators(m_dir)));
        return;
    }
    if (!QSqlDatabase::isDriverAvailable(QStringLiteral("QSQLITE"))) {
        fail(tr("Qt's SQLite driver (QSQLITE) is not installed, so runs cannot be saved."));
        return;
    }
    const QString path = QDir::toNativeSeparators(databasePath());
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connection);
    db.setDatabaseName(databasePath());
    db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=5000"));
    if (!db.open()) {
        fail(tr("Cannot open the run history database %1: %2").arg(path, db.lastError().text()));
        return;
    }
    // The first statement that reads the file: a damaged or foreign file fails here. Switching a
    // new file to WAL needs a lock that SQLite does not wait for (no busy handler), so when
    // another connection opens the same new file at the same moment, wait and retry.
    QSqlQuery q(db);
    for (int attempt = 0;; ++attempt) {
        if (q.exec(QStringLiteral("PRAGMA journal_mode=WAL")) && q.next()) break;
        const QString code = q.lastError().nativeErrorCode();
        const bool busy = code == QLatin1String("5") || code == QLatin1String("6");
        if (busy && attempt < 100) {  // SQLITE_BUSY / SQLITE_LOCKED: up to ~5 s
            QThread::msleep(50);
            continue;
        }
        fail(busy ? tr("The run history database %1 stays locked by another program (%2). Close "
                       "other Halfscope windows and try again.")
                        .arg(path, q.lastError().text())
                  : tr("The run history database %1 is damaged or is not a Halfscope database "
                       "(%2). Move the file away and Halfscope will start a new, empty history.")
                        .arg(path, q.lastError().text()));
        return;
    }
    q.finish();  // an open statement would block the COMMIT of the schema below
    QString sqlError;
    if (!history::exec(db, QStringLiteral("PRAGMA synchronous=FULL"), &sqlError) ||
        !prepareSchema(db, &sqlError)) {
        fail(tr("The run history database %1 cannot be used: %2. Move the file away and "
                "Halfscope will start a new, empty history.")
                 .arg(path, sqlError));
        return;
    }
    m_dbKey = QFileInfo(databasePath()).canonicalFilePath();
    m_open = true;
}

RunHistory::~RunHistory() {
    {
        QMutexLocker lock(&g_runningMutex);
        for (qint64 id : m_begun) {
            runningRuns().remove(runKey(id));
            liveLocks().erase(runKey(id));  // unlocks and deletes the lock file
        }
    }
    {
        QSqlDatabase db = QSqlDatabase::database(m_connection, false);
        if (db.isValid()) db.close();
    }
    if (QSqlDatabase::contains(m_connection)) QSqlDatabase::removeDatabase(m_connection);
}

void RunHistory::setBusyTimeout(int ms) {
    if (!ready()) return;
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    QString e;
    if (!history::exec(db, QStringLiteral("PRAGMA busy_timeout=%1").arg(std::max(0, ms)), &e))
        failSql(tr("Cannot set the run history's busy timeout"), e);
}

QString RunHistory::databasePath() const {
    return m_dir + QStringLiteral("/history.sqlite");
}

QString RunHistory::imageDir(qint64 id) const {
    return m_dir + QStringLiteral("/images/%1").arg(id);
}

QString RunHistory::runKey(qint64 id) const {
    return m_dbKey + '#' + QString::number(id);
}

bool RunHistory::fail(const QString& message) {
    m_error = message;
    return false;
}

bool RunHistory::failSql(const QString& what, const QString& sqlError) {
    // SQLITE_BUSY / SQLITE_LOCKED after the busy timeout: say who is in the way.
    if (sqlError.contains(QLatin1String("locked"), Qt::CaseInsensitive) ||
        sqlError.contains(QLatin1String("busy"), Qt::CaseInsensitive))
        return fail(tr("%1: the run history database %2 is locked by another program or "
                       "Halfscope window (%3); nothing was changed. Close it and try again.")
                        .arg(what, QDir::toNativeSeparators(databasePath()), sqlError));
    return fail(tr("%1: %2").arg(what, sqlError));
}

bool RunHistory::ready() {
    if (!m_open) {
        if (m_error.isEmpty()) m_error = tr("The run history is not open.");
        return false;
    }
    if (QThread::currentThread() != m_thread)
        return fail(
            tr("Internal error: the run history was used from a thread other than the "
               "one that opened it."));
    m_error.clear();
    return true;
}

bool RunHistory::begin() {
    // IMMEDIATE takes the write lock at once, so a second writer waits (busy timeout) instead of
    // failing when it later tries to upgrade a read lock.
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    QString e;
    if (history::exec(db, QStringLiteral("BEGIN IMMEDIATE"), &e)) return true;
    return failSql(tr("Cannot write to the run history"), e);
}

bool RunHistory::commit() {
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    QString e;
    if (history::exec(db, QStringLiteral("COMMIT"), &e)) return true;
    rollback();
    return failSql(tr("Cannot save to the run history"), e);
}

void RunHistory::rollback() {
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    QString ignored;
    history::exec(db, QStringLiteral("ROLLBACK"), &ignored);
}

bool RunHistory::runExists(qint64 id) {
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    bool ok = false;
    const qint64 n =
        scalar(db, QStringLiteral("SELECT count(*) FROM runs WHERE id = ?"), id, 0, &ok);
    if (!ok) return failSql(tr("Cannot read the run history"), QSqlQuery(db).lastError().text());
    if (n == 0) return fail(tr("There is no run %1 in the history.").arg(id));
    return true;
}

qint64 RunHistory::beginRun(const hs::RunConfig& config, const std::string& effectivePlan,
                            const std::vector<hs::ComponentInfo>& components) {
    if (!ready() || !begin()) return -1;
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    QSqlQuery q(db);
    const QStringList cols =
        QStringList{"created_utc", "state"} + configColumns() + QStringList{"effective_plan"};
    QVariantList values{nowUtc(), QStringLiteral("running")};
    appendConfig(values, config);
    values << QString::fromStdString(effectivePlan);
    QString e;
    if (!q.prepare(insertSql("runs", cols)) || !execBound(q, values, &e)) {
        rollback();
        failSql(tr("Cannot record the new run"), e.isEmpty() ? q.lastError().text() : e);
        return -1;
    }
    const qint64 id = q.lastInsertId().toLongLong();
    if (!insertComponents(id, components, &e)) {
        rollback();
        failSql(tr("Cannot record the components of the new run"), e);
        return -1;
    }
    if (!commit()) return -1;
    m_begun.push_back(id);
    QMutexLocker lock(&g_runningMutex);
    runningRuns().insert(runKey(id));
    QDir().mkpath(m_dir + QStringLiteral("/live"));
    auto live = std::make_unique<QLockFile>(liveLockPath(m_dir, id));
    live->setStaleLockTime(0);
    if (live->tryLock(0)) liveLocks()[runKey(id)] = std::move(live);  // else: only this process
    return id;
}

bool RunHistory::addStep(qint64 id, const hs::StepRecord& step,
                         const std::vector<hs::ProbeRecord>& probes) {
    if (!ready() || !begin()) return false;
    if (!runExists(id)) {
        rollback();
        return false;
    }
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    bool ok = false;
    const qint64 seq = scalar(db, "SELECT max(seq) + 1 FROM steps WHERE run_id = ?", id, 0, &ok);
    qint64 probeSeq = scalar(db, "SELECT max(seq) + 1 FROM probes WHERE run_id = ?", id, 0, &ok);
    QSqlQuery q(db);
    QVariantList values{id, seq};
    appendStep(values, step);
    QString e;
    if (!q.prepare(insertSql("steps", QStringList{"run_id", "seq"} + stepColumns())) ||
        !execBound(q, values, &e)) {
        rollback();
        return failSql(tr("Cannot save step %1").arg(step.step), e);
    }
    QSqlQuery p(db);
    p.prepare(insertSql("probes", QStringList{"run_id", "seq"} + probeColumns("")));
    for (const auto& pr : probes) {
        QVariantList v{id, probeSeq++};
        appendProbe(v, pr);
        if (!execBound(p, v, &e)) {
            rollback();
            return failSql(tr("Cannot save the probe records of step %1").arg(step.step), e);
        }
    }
    return commit();
}

bool RunHistory::insertComponents(qint64 id, const std::vector<hs::ComponentInfo>& components,
                                  QString* error) {
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    QSqlQuery q(db);
    q.prepare(insertSql("components", {"run_id", "idx", "name", "class_name", "stored_dtype",
                                       "parameters", "format", "execution", "role", "streamed"}));
    for (size_t i = 0; i < components.size(); ++i) {
        const auto& c = components[i];
        QVariantList v{id,
                       int(i),
                       QString::fromStdString(c.name),
                       QString::fromStdString(c.className),
                       QString::fromStdString(c.storedDtype),
                       qlonglong(c.parameters),
                       QString::fromStdString(hs::formatName(c.format)),
                       QString::fromStdString(hs::executionName(c.execution)),
                       QString::fromStdString(hs::roleName(c.role)),
                       int(c.streamed)};
        if (!execBound(q, v, error)) return false;
    }
    return true;
}

bool RunHistory::dropPreviews(qint64 id, const QStringList& kinds, QStringList* staleFiles) {
    // The kinds are this file's constants, never user text: quoting them inline is safe.
    const QString which =
        QStringLiteral("run_id = ? AND kind IN ('%1')").arg(kinds.join(QStringLiteral("', '")));
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    QSqlQuery old(db);
    old.prepare(QStringLiteral("SELECT image_path, mask_path FROM previews WHERE ") + which);
    old.bindValue(0, id);
    if (old.exec())
        while (old.next())
            for (int c = 0; c < 2; ++c)
                if (!old.value(c).isNull()) *staleFiles << old.value(c).toString();
    old.finish();
    QSqlQuery del(db);
    del.prepare(QStringLiteral("DELETE FROM previews WHERE ") + which);
    QString e;
    if (!execBound(del, {id}, &e)) return failSql(tr("Cannot save the final image"), e);
    return true;
}

bool RunHistory::insertPreview(qint64 id, const hs::PreviewImage& preview, const QString& kind) {
    const size_t pixels = size_t(std::max(preview.width, 0)) * size_t(std::max(preview.height, 0));
    if (pixels == 0 || preview.rgb.size() != pixels * 3 ||
        (!preview.nonFinite.empty() && preview.nonFinite.size() != pixels))
        return fail(tr("The preview image of step %1 is inconsistent (%2 x %3 pixels, %4 bytes)")
                        .arg(preview.step)
                        .arg(preview.width)
                        .arg(preview.height)
                        .arg(preview.rgb.size()));
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    bool ok = false;
    const qint64 seq = scalar(db, "SELECT max(seq) + 1 FROM previews WHERE run_id = ?", id, 0, &ok);
    if (!QDir().mkpath(imageDir(id)))
        return fail(
            tr("Cannot create the image folder %1").arg(QDir::toNativeSeparators(imageDir(id))));
    QString base = QStringLiteral("%1_%2_step%3")
                       .arg(kind)
                       .arg(seq, 4, 10, QLatin1Char('0'))
                       .arg(preview.step);
    const QString rel = QStringLiteral("images/%1/").arg(id);
    // A replaced final image frees its seq; its file is removed only after the commit, so the
    // new file needs a name of its own.
    for (int n = 2; QFileInfo::exists(m_dir + '/' + rel + base + QStringLiteral(".png")); ++n)
        base = QStringLiteral("%1_%2_step%3-%4")
                   .arg(kind)
                   .arg(seq, 4, 10, QLatin1Char('0'))
                   .arg(preview.step)
                   .arg(n);
    const QString image = rel + base + QStringLiteral(".png");
    const MaskKind maskKind = maskKindOf(preview);
    const QString mask =
        maskKind == MaskKind::File ? rel + base + QStringLiteral("_mask.png") : QString();
    QString e;
    if (!writeRgbPng(m_dir + '/' + image, preview, &e)) return fail(e);
    if (!mask.isEmpty() && !writeMaskPng(m_dir + '/' + mask, preview, &e)) {
        QFile::remove(m_dir + '/' + image);
        return fail(e);
    }
    QSqlQuery q(db);
    q.prepare(
        insertSql("previews", {"run_id", "seq", "kind", "step", "full_decode", "width", "height",
                               "nonfinite_pixels", "mask_kind", "image_path", "mask_path",
                               "projection"}));
    QVariantList v{id,
                   seq,
                   kind,
                   preview.step,
                   int(preview.fullDecode),
                   preview.width,
                   preview.height,
                   nonFinitePixels(preview),
                   int(maskKind),
                   image,
                   mask.isEmpty() ? QVariant(QMetaType::fromType<QString>()) : QVariant(mask),
                   QString::fromStdString(preview.projection)};
    if (!execBound(q, v, &e)) {
        QFile::remove(m_dir + '/' + image);
        if (!mask.isEmpty()) QFile::remove(m_dir + '/' + mask);
        return failSql(tr("Cannot record the preview of step %1").arg(preview.step), e);
    }
    return true;
}

bool RunHistory::addPreview(qint64 id, const hs::PreviewImage& preview) {
    if (!ready() || !begin()) return false;
    if (!runExists(id)) {
        rollback();
        return false;
    }
    // The pipeline also reports its final image (step -1) as a preview: keep it as the run's
    // final image (finishRun replaces it), not as one more step preview.
    const bool final = preview.step < 0;
    QStringList stale;
    if (final && !dropPreviews(id, {kFinalKind}, &stale)) {
        rollback();
        return false;
    }
    if (!insertPreview(id, preview, final ? kFinalKind : kStepKind)) {
        rollback();
        return false;
    }
    if (!commit()) return false;
    for (const QString& f : stale)  // paths from the database: never outside the data folder
        if (const QString path = dataFilePath(m_dir, f); !path.isEmpty()) QFile::remove(path);
    return true;
}

void RunHistory::markStopped(qint64 id) {
    QMutexLocker lock(&g_runningMutex);
    runningRuns().remove(runKey(id));
    liveLocks().erase(runKey(id));
}

RunState RunHistory::stateOf(const QString& stored, qint64 id) const {
    if (stored == QLatin1String("finished")) return RunState::Finished;
    if (stored == QLatin1String("cancelled")) return RunState::Cancelled;
    QMutexLocker lock(&g_runningMutex);
    return runningRuns().contains(runKey(id)) || runningElsewhere(m_dir, id)
               ? RunState::Running
               : RunState::Interrupted;
}

bool RunHistory::rename(qint64 id, const QString& name) {
    if (!ready()) return false;
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    QSqlQuery q(db);
    q.prepare(QStringLiteral("UPDATE runs SET name = ? WHERE id = ?"));
    QString e;
    if (!execBound(q, {name.trimmed(), id}, &e))
        return failSql(tr("Cannot rename run %1").arg(id), e);
    if (q.numRowsAffected() == 0) return fail(tr("There is no run %1 in the history.").arg(id));
    return true;
}

bool RunHistory::remove(qint64 id) {
    if (!ready()) return false;
    {
        QMutexLocker lock(&g_runningMutex);
        if (runningRuns().contains(runKey(id)))
            return fail(tr("Run %1 is still running; stop it before deleting it.").arg(id));
        if (runningElsewhere(m_dir, id))
            return fail(tr("Run %1 is still running in another Halfscope window; stop it there "
                           "before deleting it.")
                            .arg(id));
    }
    if (!begin()) return false;
    if (!runExists(id)) {
        rollback();
        return false;
    }
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    for (const char* table : {"components", "steps", "probes", "previews", "first_non_finite"}) {
        QSqlQuery q(db);
        q.prepare(QStringLiteral("DELETE FROM %1 WHERE run_id = ?").arg(QLatin1String(table)));
        QString e;
        if (!execBound(q, {id}, &e)) {
            rollback();
            return failSql(tr("Cannot delete run %1").arg(id), e);
        }
    }
    QSqlQuery q(db);
    q.prepare(QStringLiteral("DELETE FROM runs WHERE id = ?"));
    QString e;
    if (!execBound(q, {id}, &e)) {
        rollback();
        return failSql(tr("Cannot delete run %1").arg(id), e);
    }
    if (!commit()) return false;
    // Files after the rows: a crash in between leaves stray files, never rows without images.
    if (QFileInfo::exists(imageDir(id)) && !QDir(imageDir(id)).removeRecursively())
        return fail(tr("Run %1 was deleted, but some of its image files in %2 could not be "
                       "removed.")
                        .arg(id)
                        .arg(QDir::toNativeSeparators(imageDir(id))));
    return true;
}
