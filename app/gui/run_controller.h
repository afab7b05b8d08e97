#pragma once
// Owns the worker thread and the queue of runs. The GUI talks to this object only; every
// signal arrives on the GUI thread. Stop sets an atomic flag that the engine reads at every
// probe point and weight tensor (base/cancel.h), so it takes effect within one block of a
// load, the text encoder, a step, the VAE decode or a search trial, even while the worker is
// busy.
#include <QMap>
#include <QObject>
#include <QQueue>
#include <QThread>
#include <QVector>
#include <atomic>
#include <memory>

#include "run_events.h"
#include "run_meta.h"

class RunWorker;
struct WorkerFlags;

class RunController : public RunEvents {
    Q_OBJECT
public:
    explicit RunController(QObject* parent = nullptr);
    // shutdown(), then the thread is gone (or left to end on its own, see there).
    ~RunController() override;

    // Closing: drops the queue, cancels the running job, load or decode, and joins the worker
    // for at most `waitMs`. The engine stops within one block, so the join normally ends at
    // once; a single LibTorch op longer than `waitMs` (a huge image on a CPU) cannot be
    // interrupted, and then the thread is left to finish that op and end on its own (it only
    // touches the shared flags and its own objects) instead of freezing the window. Events the
    // worker posted before it ended (a cancelled run's record) are delivered by the caller's
    // QCoreApplication::sendPostedEvents(controller). Returns whether the worker ended.
    // Nothing is started afterwards.
    bool shutdown(int waitMs = 1000);

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
    // Cancels the running job and the model loads in flight (within one tensor) and drops the
    // queued jobs.
    void stop();
    // Full decode of one step of a job that ran with `config` (needs keepLatents). Queued
    // behind the running job; stop() cancels it within one VAE block.
    void decodeStep(int jobId, const hs::RunConfig& config, const hs::StepRecord& step);

    // A job runs or waits, or a model load (loadModel, loadFiles) or a decode is in flight.
    bool isBusy() const {
        return m_current != 0 || !m_queue.isEmpty() || isLoading() || !m_decodes.isEmpty();
    }
    bool isLoading() const { return !m_loads.isEmpty(); }
    // A decode of a step of job `jobId` is queued or running.
    bool isDecoding(int jobId) const;
    int currentJob() const { return m_current; }
    // The job id with which a load's progress arrives as stage().
    static constexpr int kLoadJob = 0;

signals:
    // The worker's events (run_events.h) arrive as RunEvents' signals; these are the
    // controller's own.
    void jobStarted(const RunJob& job);
    void idle();  // the queue is empty and nothing runs

private:
    int enqueue(RunJob job);
    void dispatchNext();
    void onJobEnded(int jobId);
    int newLoad();  // a load's id, with its stop flag in m_loads

    std::shared_ptr<WorkerFlags> m_flags;
    QThread* m_thread;  // no parent: left alive when shutdown() gives up waiting for it
    bool m_shutDown = false;
    bool m_joined = false;
    RunWorker* m_worker = nullptr;  // lives on m_thread, deleted by its finished() signal
    QQueue<RunJob> m_queue;
    int m_current = 0;  // running job id, 0 when none
    int m_nextId = 1;
    // The loads in flight (queued on the worker or loading), each with the flag Stop sets.
    QMap<int, std::shared_ptr<std::atomic<bool>>> m_loads;
    int m_nextLoadId = 1;
    // The decodes in flight: their job and the flag Stop sets.
    struct Decode {
        int jobId = 0;
        std::shared_ptr<std::atomic<bool>> stop;
    };
    QMap<int, Decode> m_decodes;
    int m_nextDecodeId = 1;
};
