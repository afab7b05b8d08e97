// RunHistory::list, summary and load: reading runs back (see run_history.h).
#include <QCoreApplication>
#include <QDir>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <cmath>

#include "history_columns.h"
#include "history_images.h"
#include "history_schema.h"
#include "run_history.h"

using namespace history;

namespace {

const char* const kSummarySelect =
    "SELECT r.id, r.name, r.created_utc, r.prompt, r.plan, r.effective_plan, r.device, r.seed, "
    "r.verdict, r.error, r.steps, r.state, "
    "(SELECT count(*) FROM steps s WHERE s.run_id = r.id), r.model_dir FROM runs r ";
// The columns readComponents and readPreviews read, by index.
const char* const kComponentColumns =
    "name, class_name, stored_dtype, parameters, format, execution, role, streamed";
const char* const kPreviewColumns =
    "kind, step, full_decode, width, height, mask_kind, image_path, mask_path, projection";

// A read transaction: every SELECT of one load sees the same snapshot, even while another
// connection commits steps (WAL readers keep their snapshot until COMMIT).
struct ReadSnapshot {
    explicit ReadSnapshot(QSqlDatabase& db) : m_db(db) {
        QString e;
        history::exec(m_db, QStringLiteral("BEGIN"), &e);
    }
    ~ReadSnapshot() {
        QString e;
        history::exec(m_db, QStringLiteral("COMMIT"), &e);
    }
    QSqlDatabase& m_db;
};

RunSummary summaryFrom(const QSqlQuery& q) {
    RunSummary s;
    s.id = q.value(0).toLongLong();
    s.name = q.value(1).toString();
    s.created = QDateTime::fromString(q.value(2).toString(), Qt::ISODateWithMs);
    s.created.setTimeSpec(Qt::UTC);
    s.prompt = q.value(3).toString();
    s.plan = q.value(4).toString();
    s.effectivePlan = q.value(5).toString();
    s.device = q.value(6).toString();
    s.seed = quint64(q.value(7).toLongLong());
    s.verdict = q.value(8).toString();
    s.error = q.value(9).toString();
    s.stepsTotal = q.value(10).toInt();
    s.stepsDone = q.value(12).toInt();
    s.model = q.value(13).toString();  // a column since format 1
    return s;
}

// One SELECT of a load: `sql` with the run id bound to its one placeholder. A query that fails
// adds the driver's message to `problems` and yields no rows.
QSqlQuery selectRun(QSqlDatabase& db, const QString& sql, qint64 id, QStringList& problems) {
    QSqlQuery q(db);
    q.prepare(sql);
    q.bindValue(0, id);
    if (!q.exec()) problems << q.lastError().text();
    return q;
}

// The rows of one run in `table` (components, steps, probes, previews): `columns` of each, in
// the order of `orderBy`.
QSqlQuery selectRunRows(QSqlDatabase& db, const QString& columns, const char* table,
                        const char* orderBy, qint64 id, QStringList& problems) {
    return selectRun(db,
                     QStringLiteral("SELECT %1 FROM %2 WHERE run_id = ? ORDER BY %3")
                         .arg(columns, QLatin1String(table), QLatin1String(orderBy)),
                     id, problems);
}

QString runRowSql() {
    return QStringLiteral("SELECT ") + configColumns().join(", ") +
           QStringLiteral(
               ", effective_plan, verdict, verdict_explanation, "
               "seconds, cancelled, error, ") +
           estimateColumns().join(", ") + ", " + statsColumns("te_").join(", ") + ", " +
           statsColumns("img_").join(", ") + QStringLiteral(" FROM runs WHERE id = ?");
}

// The runs row (runRowSql's columns): config, outcome, text-embedding and image statistics.
void readRunRow(const QSqlQuery& q, hs::RunRecord& r, QString* planError) {
    int col = 0;
    r.config = readConfig(q, col, planError);
    r.effectivePlan = q.value(col++).toString().toStdString();
    r.verdict = q.value(col++).toString().toStdString();
    r.verdictExplanation = q.value(col++).toString().toStdString();
    r.seconds = realFrom(q.value(col++));
    if (std::isnan(r.seconds)) r.seconds = 0;
    r.cancelled = q.value(col++).toInt() != 0;
    r.error = q.value(col++).toString().toStdString();
    r.estimate = readEstimate(q, col);
    r.textEmbedding = readStats(q, col);
    r.image = readStats(q, col);
}

void readComponents(QSqlDatabase& db, qint64 id, hs::RunRecord& r, QStringList& problems) {
    QSqlQuery q = selectRunRows(db, kComponentColumns, "components", "idx", id, problems);
    while (q.next()) {
        hs::ComponentInfo c;
        c.name = q.value(0).toString().toStdString();
        c.className = q.value(1).toString().toStdString();
        c.storedDtype = q.value(2).toString().toStdString();
        c.parameters = q.value(3).toLongLong();
        c.format = formatFrom(q.value(4).toString());
        c.execution = executionFrom(q.value(5).toString());
        const auto role = hs::parseRole(q.value(6).toString().toStdString());
        c.role = role ? *role : hs::legacyRoleOf(c.name);  // rows written before version 2
        c.streamed = q.value(7).toInt() != 0;              // NULL before version 3: whole
        r.components.push_back(std::move(c));
    }
}

void readSteps(QSqlDatabase& db, qint64 id, hs::RunRecord& r, QStringList& problems) {
    QSqlQuery q = selectRunRows(db, stepColumns().join(", "), "steps", "seq", id, problems);
    while (q.next()) {
        int col = 0;
        r.steps.push_back(readStep(q, col));
    }
}

void readProbes(QSqlDatabase& db, qint64 id, hs::RunRecord& r, QStringList& problems) {
    QSqlQuery q = selectRunRows(db, probeColumns("").join(", "), "probes", "seq", id, problems);
    while (q.next()) {
        int col = 0;
        r.probes.push_back(readProbe(q, col));
    }
}

QString outsidePath(const QString& stored) {
    return QCoreApplication::translate("RunHistory",
                                       "the image path '%1' is not inside the history's data "
                                       "folder; the image was not read")
        .arg(stored.left(200));
}

// Step previews, the final and the saved image, read back from their PNG files under `dir`. A
// preview whose picture cannot be read is left out; one whose mask cannot be read is kept.
void readPreviews(QSqlDatabase& db, qint64 id, const QString& dir, hs::RunRecord& r,
                  QStringList& problems) {
    QSqlQuery q = selectRunRows(db, kPreviewColumns, "previews", "seq", id, problems);
    while (q.next()) {
        hs::PreviewImage p;
        const QString kind = q.value(0).toString();
        p.step = q.value(1).toInt();
        p.fullDecode = q.value(2).toInt() != 0;
        p.width = q.value(3).toInt();
        p.height = q.value(4).toInt();
        p.projection = q.value(8).toString().toStdString();  // NULL (format 4 and older): ""
        const auto maskKind = MaskKind(q.value(5).toInt());
        QString e;
        // Paths from the database stay inside the data folder; any other is never read.
        const QString image = dataFilePath(dir, q.value(6).toString());
        if (image.isEmpty()) {
            problems << outsidePath(q.value(6).toString());
            continue;
        }
        if (!readRgbPng(image, p, &e)) {
            problems << e;
            continue;
        }
        if (maskKind == MaskKind::AllFinite) {
            p.nonFinite.assign(size_t(p.width) * size_t(p.height), 0);
        } else if (maskKind == MaskKind::File) {
            // The picture is still worth showing without its mask.
            const QString mask = dataFilePath(dir, q.value(7).toString());
            if (mask.isEmpty())
                problems << outsidePath(q.value(7).toString());
            else if (!readMaskPng(mask, p, &e))
                problems << e;
        }
        if (kind == QLatin1String("final"))
            r.finalImage = std::move(p);
        else if (kind == QLatin1String("saved"))
            r.savedImage = std::move(p);
        else
            r.previews.push_back(std::move(p));
    }
}

void readFirstNonFinite(QSqlDatabase& db, qint64 id, hs::RunRecord& r, QStringList& problems) {
    QSqlQuery q =
        selectRun(db,
                  QStringLiteral("SELECT record_index, ") + probeColumns("at_").join(", ") +
                      ", has_input, " + probeColumns("in_").join(", ") +
                      QStringLiteral(" FROM first_non_finite WHERE run_id = ?"),
                  id, problems);
    if (!q.next()) return;
    hs::FirstNonFinite f;
    int col = 0;
    f.index = size_t(q.value(col++).toLongLong());
    f.at = readProbe(q, col);
    const bool hasInput = q.value(col++).toInt() != 0;
    hs::ProbeRecord in = readProbe(q, col);
    if (hasInput) f.input = in;
    r.firstNonFinite = f;
}

}  // namespace

QVector<RunSummary> RunHistory::list() {
    QVector<RunSummary> out;
    if (!ready()) return out;
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    QSqlQuery q(db);
    if (!q.exec(QLatin1String(kSummarySelect) + QStringLiteral("ORDER BY r.id DESC"))) {
        failSql(tr("Cannot read the run history"), q.lastError().text());
        return out;
    }
    while (q.next()) {
        RunSummary s = summaryFrom(q);
        s.state = stateOf(q.value(11).toString(), s.id);
        out.push_back(s);
    }
    return out;
}

std::optional<RunSummary> RunHistory::summary(qint64 id) {
    if (!ready()) return std::nullopt;
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    QSqlQuery q(db);
    q.prepare(QLatin1String(kSummarySelect) + QStringLiteral("WHERE r.id = ?"));
    q.bindValue(0, id);
    if (!q.exec()) {
        failSql(tr("Cannot read the run history"), q.lastError().text());
        return std::nullopt;
    }
    if (!q.next()) {
        fail(tr("There is no run %1 in the history.").arg(id));
        return std::nullopt;
    }
    RunSummary s = summaryFrom(q);
    s.state = stateOf(q.value(11).toString(), s.id);
    return s;
}

std::optional<hs::RunRecord> RunHistory::load(qint64 id) {
    if (!ready()) return std::nullopt;
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    ReadSnapshot snapshot(db);
    hs::RunRecord r;
    QStringList problems;
    {
        // Without its runs row there is no run to return; the other tables only add problems.
        QSqlQuery q = selectRun(db, runRowSql(), id, problems);
        if (!problems.isEmpty()) {
            failSql(tr("Cannot read run %1").arg(id), problems.join("; "));
            return std::nullopt;
        }
        if (!q.next()) {
            fail(tr("There is no run %1 in the history.").arg(id));
            return std::nullopt;
        }
        QString planError;
        readRunRow(q, r, &planError);
        if (!planError.isEmpty())
            problems << tr("the saved plan does not parse: %1").arg(planError);
    }
    readComponents(db, id, r, problems);
    readSteps(db, id, r, problems);
    readProbes(db, id, r, problems);
    readPreviews(db, id, m_dir, r, problems);
    readFirstNonFinite(db, id, r, problems);
    if (!problems.isEmpty())
        m_error = tr("Run %1 was read with problems: %2").arg(id).arg(problems.join("; "));
    return r;
}
