#pragma once
// Owns the worker thread and the queue of runs. The GUI talks to this object only; every
// signal arrives on the GUI thread. Stop sets an atomic flag that the run reads before each
// step, so it takes effect within one step even while the worker is busy.
#include <QObject>
#include <QQueue>
#include <QThread>
#include <QVector>
#include <atomic>

#include "run_meta.h"

class RunWorker;

class RunController : public QObject {
    Q_OBJECT
public:
    explicit RunController(QObject* parent = nullptr);
    // Cancels what runs, then quits and joins the worker thread.
    ~RunController() override;

    // A pipeline folder, or a model file completed by `files` (a file set).
    void loadModel(const QString& model, const hs::ModelFiles& files, const hs::PrecisionPlan& plan,
                   const QString& device);
    // Files picked or dropped together: the worker finds which is the model, which the VAE and
    // the text encoders (file_set.h), then loads them.
    void loadFiles(const QStringList& files, const hs::PrecisionPlan& plan, const QString& device);
    // Queues one run; returns its job id.
    int start(const hs::RunConfig& config);
    // Queues the runs of a comparison (same prompt and seed, different plans), one after another.
    QVector<int> startCompare(const QVector<hs::RunConfig>& configs);
    // Queues a search for the cheapest plan that fixes `config.plan` (the failing plan).
    int startSearch(const hs::RunConfig& config, const SearchSettings& settings);
    // Cancels the running job and drops the queued ones.
    void stop();
    // Full decode of one step of a job that ran with `config` (needs keepLatents). Queued
    // behind the running job.
    void decodeStep(int jobId, const hs::RunConfig& config, const hs::StepRecord& step);

    bool isBusy() const { return m_current != 0 || !m_queue.isEmpty(); }
    int currentJob() const { return m_current; }

signals:
    void loaded(const LoadedModel& model);
    void loadFailed(const QString& message);
    void jobStarted(const RunJob& job);
    void stage(int jobId, const QString& stage);
    void stepDone(int jobId, const hs::StepRecord& step,
                  const std::vector<hs::ProbeRecord>& probes);
    void preview(int jobId, const hs::PreviewImage& preview);
    void firstNonFinite(int jobId, const hs::FirstNonFinite& first);
    void jobFinished(int jobId, const hs::RunRecord& record);
    void jobFailed(int jobId, const QString& message);
    void decodeFailed(int jobId, const QString& message);
    void searchTrial(int jobId, const hs::BisectionTrial& trial);
    void searchRemedy(int jobId, const hs::RemedyRow& row);
    void searchFinished(int jobId, const hs::PrecisionSearch& search);
    void idle();  // the queue is empty and nothing runs

private:
    int enqueue(RunJob job);
    void dispatchNext();
    void onJobEnded(int jobId);

    std::atomic<bool> m_cancel{false};
    QThread m_thread;
    RunWorker* m_worker = nullptr;  // lives on m_thread, deleted by its finished() signal
    QQueue<RunJob> m_queue;
    int m_current = 0;  // running job id, 0 when none
    int m_nextId = 1;
};
