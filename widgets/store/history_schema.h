#pragma once
// The tables of the run history database (one SQLite file, see run_history.h):
//   runs              one row per run: config columns, state, verdict, text-embedding and
//                     image statistics (te_*, img_*), seconds, cancelled, error
//   components        the model's components as the run used them
//   steps             one row per finished sampling step with latent / velocity / denoised stats
//   probes            one row per recorded probe point, in call order (seq)
//   previews          image files (paths relative to the data folder) of steps and final images
//   first_non_finite  where the first Inf/NaN appeared, and the point before it
// PRAGMA user_version holds the schema version.
#include <QString>
#include <QVariantList>

class QSqlDatabase;
class QSqlQuery;

namespace history {

// 2: components.role; 3: runs.model_files (a file set, JSON), components.streamed; 4: the
// runs' estimates; 5: previews.projection (the origin of a step preview's latent-to-RGB map)
constexpr int kSchemaVersion = 5;

// Creates the tables in an empty database; accepts a database of this version; refuses a file
// that holds other tables or a newer version. False and `error` (plain words) otherwise.
bool prepareSchema(QSqlDatabase& db, QString* error);

// Runs `sql`; false and `error` = the driver's message on failure.
bool exec(QSqlDatabase& db, const QString& sql, QString* error);
// Binds `values` to the placeholders of the prepared `q`, in order, and runs it; false and
// `error` = the driver's message on failure.
bool execBound(QSqlQuery& q, const QVariantList& values, QString* error);

}  // namespace history
