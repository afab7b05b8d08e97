#pragma once
// The run history: every run saved while it runs, in one SQLite database plus PNG files in a
// data folder (default: QStandardPaths::AppDataLocation/runs):
//   <dir>/history.sqlite          tables described in history_schema.h
//   <dir>/images/<run id>/*.png   previews, final and saved images (paths stored relative)
//
// Durability: WAL journal mode, synchronous=FULL, one transaction per addStep/addPreview. In WAL
// mode a commit appends its pages to the -wal file and fsyncs it; a crash (of the process or the
// machine) at any point leaves every committed step readable and drops only the step that was
// being written. WAL also lets the history browser read (its own instance, GUI thread) while the
// worker writes (another instance, worker thread) without either blocking the other; a rollback
// journal would lock readers out during every step's commit.
//
// Threads: a QSqlDatabase connection may only be used in the thread that made it, so each
// RunHistory opens its own connection (unique name) in its constructor and must be used in that
// thread only (calls from another thread fail with a message, they do not crash). Use one
// instance per thread on the same folder; writes wait up to 5 s for each other (busy timeout,
// see setBusyTimeout).
//
// Errors (folder not writable, damaged database, disk full) never throw and never crash: the
// call returns false / -1 / nullopt and errorString() says what happened in plain words.
#include <QCoreApplication>
#include <QDateTime>
#include <QString>
#include <QStringList>
#include <QThread>
#include <QVector>
#include <optional>
#include <string>
#include <vector>

#include "records/run_types.h"

enum class RunState {
    Running,      // begun by a RunHistory of this process and not finished yet
    Finished,     // finishRun() without cancel (an error run is finished, with error set)
    Cancelled,    // finishRun() with RunRecord::cancelled
    Interrupted,  // begun, never finished, and not running in this process (a crash or kill)
};
QString runStateName(RunState s);  // "running", "finished", "cancelled", "interrupted"

struct RunSummary {
    qint64 id = -1;
    QString name;       // empty until renamed (the browser shows "Run <id>")
    QDateTime created;  // UTC
    QString prompt;
    // The model the run used, as its record has it (RunConfig::modelDir): a pipeline folder or a
    // single-file checkpoint; empty for runs saved without one.
    QString model;
    QString plan;           // the user's plan (RunConfig::plan) as text
    QString effectivePlan;  // stored-dtype defaults + user rules
    QString device;
    quint64 seed = 0;
    QString verdict;  // "ok", "nan/inf", "black", "flat" or empty (not finished)
    QString error;    // the run's own error message, if it failed
    int stepsDone = 0;
    int stepsTotal = 0;
    RunState state = RunState::Interrupted;
};

class RunHistory {
    Q_DECLARE_TR_FUNCTIONS(RunHistory)
public:
    // Opens (creating if needed) the history in `dataDir`; empty: defaultDataDir().
    explicit RunHistory(const QString& dataDir = QString());
    ~RunHistory();
    RunHistory(const RunHistory&) = delete;
    RunHistory& operator=(const RunHistory&) = delete;

    static QString defaultDataDir();  // AppDataLocation + "/runs"

    bool isOpen() const { return m_open; }
    // The last error in plain words (empty after a successful call that had nothing to report).
    QString errorString() const { return m_error; }
    QString dataDir() const { return m_dir; }
    QString databasePath() const;
    // How long a write waits for a lock that another connection or program holds (5000 ms
    // unless set). The GUI thread's instance uses a short wait, so that a locked database gives
    // a message ("... is locked by another program") instead of a frozen window.
    void setBusyTimeout(int ms);

    // Saves the config and components of a new run in state "running". Returns its id, or -1.
    qint64 beginRun(const hs::RunConfig& config, const std::string& effectivePlan,
                    const std::vector<hs::ComponentInfo>& components);
    // One finished step and the probe records collected during it, in one transaction.
    bool addStep(qint64 id, const hs::StepRecord& step, const std::vector<hs::ProbeRecord>& probes);
    // Writes the preview as PNG (plus a mask PNG when any pixel is non-finite) and records it.
    // A preview with step < 0 (the pipeline's final image) is kept as the final image.
    bool addPreview(qint64 id, const hs::PreviewImage& preview);
    // Stores the outcome: verdict, explanation, text/image stats, first non-finite point, final
    // and saved images, seconds, cancelled, error. The record's probe list replaces the saved one
    // when it is longer (it also holds the text-encoder and VAE points, which come outside
    // addStep); steps and previews the record has beyond the saved ones are appended.
    bool finishRun(qint64 id, const hs::RunRecord& record);

    // Newest first.
    QVector<RunSummary> list();
    std::optional<RunSummary> summary(qint64 id);
    // Everything back: config (plan included), components, steps, probes, previews, first
    // non-finite point, final and saved images. Missing or damaged image files are left out and
    // named in errorString(); nullopt only when the run itself cannot be read.
    std::optional<hs::RunRecord> load(qint64 id);
    bool rename(qint64 id, const QString& name);
    // Deletes the rows and the image files of a run.
    bool remove(qint64 id);

    // Folder of a run's image files.
    QString imageDir(qint64 id) const;

private:
    bool ready();
    bool fail(const QString& message);
    bool failSql(const QString& what, const QString& sqlError);
    bool begin();
    bool commit();
    void rollback();
    bool runExists(qint64 id);
    bool insertComponents(qint64 id, const std::vector<hs::ComponentInfo>& components,
                          QString* error);
    // Deletes a run's previews of these kinds; their files are added to `staleFiles`, to be
    // removed after the commit (a rollback must find them still there).
    bool dropPreviews(qint64 id, const QStringList& kinds, QStringList* staleFiles);
    bool insertPreview(qint64 id, const hs::PreviewImage& preview, const QString& kind);
    // finishRun's writes, in its transaction: each returns false after failSql().
    bool writeOutcome(qint64 id, const hs::RunRecord& record, QStringList* staleFiles);
    bool writeRunRow(qint64 id, const hs::RunRecord& record);
    bool writeComponents(qint64 id, const hs::RunRecord& record);
    bool writeMissingSteps(qint64 id, const hs::RunRecord& record);
    bool writeProbes(qint64 id, const hs::RunRecord& record);
    bool writePreviews(qint64 id, const hs::RunRecord& record, QStringList* staleFiles);
    bool writeFirstNonFinite(qint64 id, const hs::RunRecord& record);
    void markStopped(qint64 id);  // out of the registry of runs running in this process
    RunState stateOf(const QString& stored, qint64 id) const;
    QString runKey(qint64 id) const;

    QString m_dir;
    QString m_connection;
    QString m_dbKey;  // canonical database path: names this history in the running-run registry
    QThread* m_thread = nullptr;
    bool m_open = false;
    QString m_error;
    std::vector<qint64> m_begun;  // runs this instance began and has not finished
};
