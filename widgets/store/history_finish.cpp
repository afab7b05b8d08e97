// RunHistory::finishRun: the outcome of a run (see run_history.h).
#include <QDir>
#include <QFile>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <algorithm>

#include "history_columns.h"
#include "history_images.h"
#include "history_schema.h"
#include "run_history.h"

using namespace history;

namespace {

qint64 countOf(QSqlDatabase& db, const QString& sql, qint64 id) {
    QSqlQuery q(db);
    q.prepare(sql);
    q.bindValue(0, id);
    return q.exec() && q.next() ? q.value(0).toLongLong() : 0;
}

}  // namespace

bool RunHistory::finishRun(qint64 id, const hs::RunRecord& record) {
    if (!ready() || !begin()) return false;
    QStringList staleFiles;
    if (!runExists(id) || !writeOutcome(id, record, &staleFiles)) {
        rollback();
        return false;
    }
    if (!commit()) return false;
    for (const QString& f : staleFiles)
        if (const QString path = dataFilePath(m_dir, f); !path.isEmpty()) QFile::remove(path);
    m_begun.erase(std::remove(m_begun.begin(), m_begun.end(), id), m_begun.end());
    markStopped(id);
    return true;
}

bool RunHistory::writeOutcome(qint64 id, const hs::RunRecord& r, QStringList* staleFiles) {
    return writeRunRow(id, r) && writeComponents(id, r) && writeMissingSteps(id, r) &&
           writeProbes(id, r) && writePreviews(id, r, staleFiles) && writeFirstNonFinite(id, r);
}

bool RunHistory::writeRunRow(qint64 id, const hs::RunRecord& r) {
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    const QStringList cols =
        QStringList{"finished_utc", "state",     "verdict", "verdict_explanation",
                    "seconds",      "cancelled", "error"} +
        estimateColumns() + statsColumns("te_") + statsColumns("img_");
    QStringList sets;
    for (const QString& c : cols) sets << c + QStringLiteral(" = ?");
    QSqlQuery q(db);
    q.prepare(QStringLiteral("UPDATE runs SET %1, effective_plan = coalesce(nullif(?, ''), "
                             "effective_plan) WHERE id = ?")
                  .arg(sets.join(QStringLiteral(", "))));
    QVariantList v{QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs),
                   r.cancelled ? QStringLiteral("cancelled") : QStringLiteral("finished"),
                   QString::fromStdString(r.verdict),
                   QString::fromStdString(r.verdictExplanation),
                   realValue(r.seconds),
                   int(r.cancelled),
                   QString::fromStdString(r.error)};
    appendEstimate(v, r.estimate);
    appendStats(v, r.textEmbedding);
    appendStats(v, r.image);
    v << QString::fromStdString(r.effectivePlan) << id;
    QString e;
    if (!execBound(q, v, &e)) return failSql(tr("Cannot save the outcome of run %1").arg(id), e);
    return true;
}

bool RunHistory::writeComponents(qint64 id, const hs::RunRecord& r) {
    if (r.components.empty()) return true;
    QSqlQuery del(QSqlDatabase::database(m_connection, false));
    del.prepare(QStringLiteral("DELETE FROM components WHERE run_id = ?"));
    QString e;
    if (!execBound(del, {id}, &e) || !insertComponents(id, r.components, &e))
        return failSql(tr("Cannot save the components"), e);
    return true;
}

// Steps the caller did not add one by one (e.g. a run saved only at its end).
bool RunHistory::writeMissingSteps(qint64 id, const hs::RunRecord& r) {
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    const qint64 storedSteps = countOf(db, "SELECT count(*) FROM steps WHERE run_id = ?", id);
    if (qint64(r.steps.size()) <= storedSteps) return true;
    QSqlQuery q(db);
    q.prepare(insertSql("steps", QStringList{"run_id", "seq"} + stepColumns()));
    qint64 seq = countOf(db, "SELECT coalesce(max(seq) + 1, 0) FROM steps WHERE run_id = ?", id);
    QString e;
    for (size_t i = size_t(storedSteps); i < r.steps.size(); ++i) {
        QVariantList v{id, seq++};
        appendStep(v, r.steps[i]);
        if (!execBound(q, v, &e)) return failSql(tr("Cannot save the steps"), e);
    }
    return true;
}

// The record's probe list is the whole run in call order (text encoder, steps, VAE); addStep
// only saw the steps' part.
bool RunHistory::writeProbes(qint64 id, const hs::RunRecord& r) {
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    const qint64 storedProbes = countOf(db, "SELECT count(*) FROM probes WHERE run_id = ?", id);
    if (qint64(r.probes.size()) <= storedProbes) return true;
    QString e;
    QSqlQuery del(db);
    del.prepare(QStringLiteral("DELETE FROM probes WHERE run_id = ?"));
    if (!execBound(del, {id}, &e)) return failSql(tr("Cannot save the probe records"), e);
    QSqlQuery q(db);
    q.prepare(insertSql("probes", QStringList{"run_id", "seq"} + probeColumns("")));
    for (size_t i = 0; i < r.probes.size(); ++i) {
        QVariantList v{id, qint64(i)};
        appendProbe(v, r.probes[i]);
        if (!execBound(q, v, &e)) return failSql(tr("Cannot save the probe records"), e);
    }
    return true;
}

// The step previews not added one by one, and the final images, which a second finishRun
// replaces (the old files go after the commit).
bool RunHistory::writePreviews(qint64 id, const hs::RunRecord& r, QStringList* staleFiles) {
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    const qint64 storedPreviews =
        countOf(db, "SELECT count(*) FROM previews WHERE run_id = ? AND kind = 'step'", id);
    for (size_t i = size_t(storedPreviews); i < r.previews.size(); ++i)
        if (!insertPreview(id, r.previews[i], QStringLiteral("step"))) return false;
    if (!dropPreviews(id, {QStringLiteral("final"), QStringLiteral("saved")}, staleFiles))
        return false;
    if (r.finalImage && !insertPreview(id, *r.finalImage, QStringLiteral("final"))) return false;
    return !r.savedImage || insertPreview(id, *r.savedImage, QStringLiteral("saved"));
}

bool RunHistory::writeFirstNonFinite(qint64 id, const hs::RunRecord& r) {
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    QString e;
    QSqlQuery del(db);
    del.prepare(QStringLiteral("DELETE FROM first_non_finite WHERE run_id = ?"));
    if (!execBound(del, {id}, &e)) return failSql(tr("Cannot save the first non-finite point"), e);
    if (!r.firstNonFinite) return true;
    const auto& f = *r.firstNonFinite;
    QSqlQuery q(db);
    q.prepare(insertSql("first_non_finite", QStringList{"run_id", "record_index"} +
                                                probeColumns("at_") + QStringList{"has_input"} +
                                                probeColumns("in_")));
    QVariantList v{id, qlonglong(f.index)};
    appendProbe(v, f.at);
    v << int(f.input.has_value());
    appendProbe(v, f.input.value_or(hs::ProbeRecord{}));
    if (!execBound(q, v, &e)) return failSql(tr("Cannot save the first non-finite point"), e);
    return true;
}
