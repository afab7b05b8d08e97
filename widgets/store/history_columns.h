#pragma once
// Column layout of the run history tables (see run_history.h): how a TensorStats, a ProbeRecord
// or a RunConfig becomes SQL columns and back. One list per record, so the CREATE TABLE, the
// INSERT and the SELECT can never disagree about the order.
#include <QString>
#include <QStringList>
#include <QVariant>
#include <QVariantList>

#include "records/run_types.h"

class QSqlQuery;

namespace history {

// The 12 TensorStats columns under a prefix: "lat_" -> lat_count, lat_finite, lat_min, ...
QStringList statsColumns(const QString& prefix);
// "lat_count INTEGER, lat_finite INTEGER, lat_min REAL, ..." for CREATE TABLE.
QString statsColumnDefs(const QString& prefix);
void appendStats(QVariantList& values, const hs::TensorStats& s);
// Reads the 12 columns starting at `col` and advances `col` past them. SQLite stores NaN as NULL
// (it has no NaN), so NULL reads back as NaN.
hs::TensorStats readStats(const QSqlQuery& q, int& col);

// A probe record: name, granularity, step, format, execution, then its stats.
QStringList probeColumns(const QString& prefix);
QString probeColumnDefs(const QString& prefix);
void appendProbe(QVariantList& values, const hs::ProbeRecord& p);
hs::ProbeRecord readProbe(const QSqlQuery& q, int& col);

// RunConfig: model_dir, prompt, ..., keep_latents (the plan as its text form).
QStringList configColumns();
QString configColumnDefs();
void appendConfig(QVariantList& values, const hs::RunConfig& c);
// Throws nothing: a plan text that no longer parses comes back as an empty plan, and `planError`
// (when given) says why.
hs::RunConfig readConfig(const QSqlQuery& q, int& col, QString* planError = nullptr);

// StepRecord: step, sigma, timestep, lat_*, vel_*, den_*, seconds, latent_values (float32 BLOB).
QStringList stepColumns();
QString stepColumnDefs();
void appendStep(QVariantList& values, const hs::StepRecord& s);
hs::StepRecord readStep(const QSqlQuery& q, int& col);

// RunEstimate: estimate_seconds, estimate_bytes, estimate_weight_bytes,
// estimate_activation_bytes, all REAL; NULL for a run without an estimate or a part unknown.
QStringList estimateColumns();
QString estimateColumnDefs();
void appendEstimate(QVariantList& values, const std::optional<hs::RunEstimate>& e);
std::optional<hs::RunEstimate> readEstimate(const QSqlQuery& q, int& col);

// NaN-safe double for binding: SQLite would store NaN as NULL anyway, this says so explicitly.
QVariant realValue(double v);
double realFrom(const QVariant& v);  // NULL -> NaN

hs::Format formatFrom(const QString& name);  // unknown names fall back to fp32
hs::Execution executionFrom(const QString& name);
hs::ProbeLevel probeLevelFrom(const QString& name);

// "INSERT INTO table (a, b) VALUES (?, ?)".
QString insertSql(const QString& table, const QStringList& columns);

}  // namespace history
