#include "history_schema.h"

#include <QCoreApplication>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>

#include "history_columns.h"

namespace history {

namespace {

QStringList createStatements() {
    return {
        QStringLiteral("CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, "
                       "name TEXT NOT NULL DEFAULT '', created_utc TEXT NOT NULL, "
                       "finished_utc TEXT, state TEXT NOT NULL, ") +
            configColumnDefs() +
            QStringLiteral(", effective_plan TEXT, verdict TEXT, verdict_explanation TEXT, "
                           "seconds REAL, cancelled INTEGER NOT NULL DEFAULT 0, error TEXT, ") +
            estimateColumnDefs() + ", " + statsColumnDefs("te_") + ", " + statsColumnDefs("img_") +
            ")",
        QStringLiteral("CREATE TABLE components (run_id INTEGER NOT NULL, idx INTEGER NOT NULL, "
                       "name TEXT, class_name TEXT, stored_dtype TEXT, parameters INTEGER, "
                       "format TEXT, execution TEXT, role TEXT, streamed INTEGER, "
                       "PRIMARY KEY (run_id, idx))"),
        QStringLiteral("CREATE TABLE steps (run_id INTEGER NOT NULL, seq INTEGER NOT NULL, ") +
            stepColumnDefs() + QStringLiteral(", PRIMARY KEY (run_id, seq))"),
        QStringLiteral("CREATE TABLE probes (run_id INTEGER NOT NULL, seq INTEGER NOT NULL, ") +
            probeColumnDefs("") + QStringLiteral(", PRIMARY KEY (run_id, seq))"),
        QStringLiteral("CREATE TABLE previews (run_id INTEGER NOT NULL, seq INTEGER NOT NULL, "
                       "kind TEXT NOT NULL, step INTEGER, full_decode INTEGER, width INTEGER, "
                       "height INTEGER, nonfinite_pixels INTEGER, mask_kind INTEGER, "
                       "image_path TEXT, mask_path TEXT, projection TEXT, "
                       "PRIMARY KEY (run_id, seq))"),
        QStringLiteral("CREATE TABLE first_non_finite (run_id INTEGER PRIMARY KEY, "
                       "record_index INTEGER, ") +
            probeColumnDefs("at_") + QStringLiteral(", has_input INTEGER, ") +
            probeColumnDefs("in_") + ")",
        QStringLiteral("PRAGMA user_version = %1").arg(kSchemaVersion),
    };
}

int intPragma(QSqlDatabase& db, const QString& sql, bool* ok) {
    QSqlQuery q(db);
    *ok = q.exec(sql) && q.next();
    return *ok ? q.value(0).toInt() : 0;
}

}  // namespace

bool exec(QSqlDatabase& db, const QString& sql, QString* error) {
    QSqlQuery q(db);
    if (q.exec(sql)) return true;
    *error = q.lastError().text();
    return false;
}

bool execBound(QSqlQuery& q, const QVariantList& values, QString* error) {
    for (int i = 0; i < values.size(); ++i) q.bindValue(i, values[i]);
    if (q.exec()) return true;
    *error = q.lastError().text();
    return false;
}

bool prepareSchema(QSqlDatabase& db, QString* error) {
    bool ok = false;
    int version = intPragma(db, QStringLiteral("PRAGMA user_version"), &ok);
    if (!ok) {
        *error = QSqlQuery(db).lastError().text();
        return false;
    }
    if (version == kSchemaVersion) return true;
    if (version > kSchemaVersion) {
        *error = QCoreApplication::translate(
                     "RunHistory",
                     "it was written by a newer version of Halfscope (history format %1, this "
                     "version reads format %2)")
                     .arg(version)
                     .arg(kSchemaVersion);
        return false;
    }
    // Version 0: a new file, or another program's database. BEGIN IMMEDIATE takes the write lock
    // first, so two instances opening a new file at once create the tables only once.
    QString sqlError;
    if (!exec(db, QStringLiteral("BEGIN IMMEDIATE"), &sqlError)) {
        *error = sqlError;
        return false;
    }
    version = intPragma(db, QStringLiteral("PRAGMA user_version"), &ok);
    const int tables =
        intPragma(db, QStringLiteral("SELECT count(*) FROM sqlite_master WHERE type='table'"), &ok);
    if (version == 0 && tables > 0) {
        exec(db, QStringLiteral("ROLLBACK"), &sqlError);
        *error = QCoreApplication::translate(
                     "RunHistory",
                     "it is an SQLite database of another program (it holds %1 tables but no "
                     "Halfscope history)")
                     .arg(tables);
        return false;
    }
    // A new file gets every table; version 1 gains the components' role (its older rows keep
    // NULL, read back by the component's name), versions 1 and 2 the file set and the
    // components' streaming (NULL: a folder, loaded whole), versions 1 to 3 the runs' estimates
    // (NULL: none made), versions 1 to 4 the previews' projection origin (NULL: not kept).
    QStringList statements;
    if (version == 0) statements = createStatements();
    if (version == 1) statements << QStringLiteral("ALTER TABLE components ADD COLUMN role TEXT");
    if (version == 1 || version == 2)
        statements << QStringLiteral("ALTER TABLE runs ADD COLUMN model_files TEXT")
                   << QStringLiteral("ALTER TABLE components ADD COLUMN streamed INTEGER");
    if (version >= 1 && version <= 3)
        for (const QString& column : estimateColumns())
            statements << QStringLiteral("ALTER TABLE runs ADD COLUMN %1 REAL").arg(column);
    if (version >= 1 && version <= 4)
        statements << QStringLiteral("ALTER TABLE previews ADD COLUMN projection TEXT")
                   << QStringLiteral("PRAGMA user_version = %1").arg(kSchemaVersion);
    for (const QString& sql : statements) {
        if (!exec(db, sql, &sqlError)) {
            exec(db, QStringLiteral("ROLLBACK"), &sqlError);
            *error =
                QCoreApplication::translate("RunHistory", "the tables could not be created: %1")
                    .arg(sqlError);
            return false;
        }
    }
    if (!exec(db, QStringLiteral("COMMIT"), &sqlError)) {
        *error = sqlError;
        return false;
    }
    return true;
}

}  // namespace history
