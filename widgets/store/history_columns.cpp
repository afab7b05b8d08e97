#include "history_columns.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlQuery>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>

namespace history {

namespace {

// The columns of a TensorStats in table order: the schema, appendStats and readStats walk this
// one list. Each is a count (INTEGER) or a real (REAL, NULL for NaN).
struct StatsColumn {
    const char* name;
    int64_t hs::TensorStats::*count;
    double hs::TensorStats::*real;
};
const StatsColumn kStatsColumns[] = {
    {"count", &hs::TensorStats::count, nullptr},
    {"finite", &hs::TensorStats::finite, nullptr},
    {"min", nullptr, &hs::TensorStats::min},
    {"max", nullptr, &hs::TensorStats::max},
    {"abs_max", nullptr, &hs::TensorStats::absMax},
    {"mean", nullptr, &hs::TensorStats::mean},
    {"std", nullptr, &hs::TensorStats::std},
    {"nan", &hs::TensorStats::nan, nullptr},
    {"pos_inf", &hs::TensorStats::posInf, nullptr},
    {"neg_inf", &hs::TensorStats::negInf, nullptr},
    {"over_fp16", &hs::TensorStats::overFp16, nullptr},
    {"subnormal_fp16", &hs::TensorStats::subnormalFp16, nullptr},
};

qint64 intFrom(const QVariant& v) {
    return v.isNull() ? 0 : v.toLongLong();
}

}  // namespace

QStringList statsColumns(const QString& prefix) {
    QStringList c;
    for (const auto& column : kStatsColumns) c << prefix + QLatin1String(column.name);
    return c;
}

QString statsColumnDefs(const QString& prefix) {
    QStringList defs;
    for (const auto& column : kStatsColumns)
        defs << prefix + QLatin1String(column.name) +
                    (column.count ? QStringLiteral(" INTEGER") : QStringLiteral(" REAL"));
    return defs.join(QStringLiteral(", "));
}

QStringList estimateColumns() {
    return {QStringLiteral("estimate_seconds"), QStringLiteral("estimate_bytes"),
            QStringLiteral("estimate_weight_bytes"), QStringLiteral("estimate_activation_bytes")};
}

QString estimateColumnDefs() {
    return estimateColumns().join(QStringLiteral(" REAL, ")) + QStringLiteral(" REAL");
}

void appendEstimate(QVariantList& values, const std::optional<hs::RunEstimate>& e) {
    auto known = [](double v) { return realValue(v >= 0 ? v : std::nan("")); };
    if (!e) {
        for (int i = 0; i < 4; ++i) values << known(-1);
        return;
    }
    values << known(e->seconds) << known(e->bytes) << known(e->weightBytes)
           << known(e->activationBytes);
}

std::optional<hs::RunEstimate> readEstimate(const QSqlQuery& q, int& col) {
    double v[4];
    for (double& x : v) {
        x = realFrom(q.value(col++));
        if (std::isnan(x)) x = -1;
    }
    if (v[0] < 0) return std::nullopt;
    return hs::RunEstimate{v[0], v[1], v[2], v[3]};
}

QVariant realValue(double v) {
    if (std::isnan(v)) return QVariant(QMetaType::fromType<double>());  // NULL
    return QVariant(v);
}

double realFrom(const QVariant& v) {
    if (v.isNull()) return std::numeric_limits<double>::quiet_NaN();
    return v.toDouble();
}

void appendStats(QVariantList& values, const hs::TensorStats& s) {
    for (const auto& column : kStatsColumns)
        values << (column.count ? QVariant(qlonglong(s.*column.count)) : realValue(s.*column.real));
}

hs::TensorStats readStats(const QSqlQuery& q, int& col) {
    hs::TensorStats s;
    for (const auto& column : kStatsColumns) {
        const QVariant v = q.value(col++);
        if (column.count)
            s.*column.count = intFrom(v);
        else
            s.*column.real = realFrom(v);
    }
    return s;
}

QStringList probeColumns(const QString& prefix) {
    return QStringList{prefix + "name", prefix + "granularity", prefix + "step", prefix + "format",
                       prefix + "execution"} +
           statsColumns(prefix);
}

QString probeColumnDefs(const QString& prefix) {
    return QStringLiteral(
               "%1name TEXT, %1granularity TEXT, %1step INTEGER, %1format TEXT, "
               "%1execution TEXT, ")
               .arg(prefix) +
           statsColumnDefs(prefix);
}

void appendProbe(QVariantList& values, const hs::ProbeRecord& p) {
    values << QString::fromStdString(p.name)
           << QString::fromStdString(hs::probeLevelName(p.granularity)) << p.step
           << QString::fromStdString(hs::formatName(p.format))
           << QString::fromStdString(hs::executionName(p.execution));
    appendStats(values, p.stats);
}

hs::ProbeRecord readProbe(const QSqlQuery& q, int& col) {
    hs::ProbeRecord p;
    p.name = q.value(col++).toString().toStdString();
    p.granularity = probeLevelFrom(q.value(col++).toString());
    p.step = q.value(col++).toInt();
    p.format = formatFrom(q.value(col++).toString());
    p.execution = executionFrom(q.value(col++).toString());
    p.stats = readStats(q, col);
    return p;
}

namespace {

// The files of a file set as a JSON object; NULL for a folder.
QVariant modelFilesValue(const hs::ModelFiles& f) {
    if (f.empty()) return QVariant(QMetaType::fromType<QString>());
    QJsonObject o;
    for (const auto& s : hs::modelFileSlots())
        if (!(f.*s.path).empty()) o.insert(s.slot, QString::fromStdString(f.*s.path));
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

hs::ModelFiles modelFilesFrom(const QVariant& v) {
    hs::ModelFiles f;
    if (v.isNull()) return f;
    const QJsonObject o = QJsonDocument::fromJson(v.toString().toUtf8()).object();
    for (const auto& s : hs::modelFileSlots()) f.*s.path = o.value(s.slot).toString().toStdString();
    return f;
}

}  // namespace

QStringList configColumns() {
    return {"model_dir", "prompt",      "negative_prompt", "seed",         "steps",
            "guidance",  "width",       "height",          "shift",        "plan",
            "device",    "probe_level", "decode_every",    "keep_latents", "model_files"};
}

QString configColumnDefs() {
    return QStringLiteral(
        "model_dir TEXT, prompt TEXT, negative_prompt TEXT, seed INTEGER, steps INTEGER, "
        "guidance REAL, width INTEGER, height INTEGER, shift REAL, plan TEXT, device TEXT, "
        "probe_level TEXT, decode_every INTEGER, keep_latents INTEGER, model_files TEXT");
}

void appendConfig(QVariantList& values, const hs::RunConfig& c) {
    // SQLite integers are signed 64-bit: the seed is stored as its bit pattern.
    values << QString::fromStdString(c.modelDir) << QString::fromStdString(c.prompt)
           << QString::fromStdString(c.negativePrompt) << qlonglong(qint64(c.seed)) << c.steps
           << realValue(c.guidance) << c.width << c.height
           << (c.shift ? realValue(*c.shift) : QVariant(QMetaType::fromType<double>()))
           << QString::fromStdString(c.plan.toString()) << QString::fromStdString(c.device)
           << QString::fromStdString(hs::probeLevelName(c.probeLevel)) << c.decodeEvery
           << int(c.keepLatents) << modelFilesValue(c.modelFiles);
}

hs::RunConfig readConfig(const QSqlQuery& q, int& col, QString* planError) {
    hs::RunConfig c;
    c.modelDir = q.value(col++).toString().toStdString();
    c.prompt = q.value(col++).toString().toStdString();
    c.negativePrompt = q.value(col++).toString().toStdString();
    c.seed = quint64(q.value(col++).toLongLong());
    c.steps = q.value(col++).toInt();
    c.guidance = realFrom(q.value(col++));
    c.width = q.value(col++).toInt();
    c.height = q.value(col++).toInt();
    const QVariant shift = q.value(col++);
    if (!shift.isNull()) c.shift = shift.toDouble();
    const std::string plan = q.value(col++).toString().toStdString();
    try {
        c.plan = hs::PrecisionPlan::parse(plan);
    } catch (const std::exception& e) {
        if (planError) *planError = QString::fromUtf8(e.what());
    }
    c.device = q.value(col++).toString().toStdString();
    c.probeLevel = probeLevelFrom(q.value(col++).toString());
    c.decodeEvery = q.value(col++).toInt();
    c.keepLatents = q.value(col++).toInt() != 0;
    c.modelFiles = modelFilesFrom(q.value(col++));
    return c;
}

QStringList stepColumns() {
    return QStringList{"step", "sigma", "timestep"} + statsColumns("lat_") + statsColumns("vel_") +
           statsColumns("den_") + QStringList{"seconds", "latent_values"};
}

QString stepColumnDefs() {
    return QStringLiteral("step INTEGER, sigma REAL, timestep REAL, ") + statsColumnDefs("lat_") +
           ", " + statsColumnDefs("vel_") + ", " + statsColumnDefs("den_") +
           QStringLiteral(", seconds REAL, latent_values BLOB");
}

void appendStep(QVariantList& values, const hs::StepRecord& s) {
    values << s.step << realValue(s.sigma) << realValue(s.timestep);
    appendStats(values, s.latent);
    appendStats(values, s.velocity);
    appendStats(values, s.denoised);
    values << realValue(s.seconds);
    if (s.latentValues.empty()) {
        values << QVariant(QMetaType::fromType<QByteArray>());
    } else {
        // Raw float32 in host byte order (x86 and ARM are both little-endian).
        values << QByteArray(reinterpret_cast<const char*>(s.latentValues.data()),
                             qsizetype(s.latentValues.size() * sizeof(float)));
    }
}

hs::StepRecord readStep(const QSqlQuery& q, int& col) {
    hs::StepRecord s;
    s.step = q.value(col++).toInt();
    s.sigma = realFrom(q.value(col++));
    s.timestep = realFrom(q.value(col++));
    s.latent = readStats(q, col);
    s.velocity = readStats(q, col);
    s.denoised = readStats(q, col);
    s.seconds = realFrom(q.value(col++));
    const QByteArray blob = q.value(col++).toByteArray();
    s.latentValues.resize(size_t(blob.size()) / sizeof(float));
    std::memcpy(s.latentValues.data(), blob.constData(), s.latentValues.size() * sizeof(float));
    return s;
}

hs::Format formatFrom(const QString& name) {
    return hs::parseFormat(name.toStdString()).value_or(hs::Format::FP32);
}

hs::Execution executionFrom(const QString& name) {
    return name == QLatin1String("emulated") ? hs::Execution::Emulated : hs::Execution::Native;
}

hs::ProbeLevel probeLevelFrom(const QString& name) {
    return hs::parseProbeLevel(name.toStdString()).value_or(hs::ProbeLevel::Module);
}

QString insertSql(const QString& table, const QStringList& columns) {
    QStringList marks;
    for (int i = 0; i < columns.size(); ++i) marks << QStringLiteral("?");
    return QStringLiteral("INSERT INTO %1 (%2) VALUES (%3)")
        .arg(table, columns.join(QStringLiteral(", ")), marks.join(QStringLiteral(", ")));
}

}  // namespace history
