#pragma once
// Lives on the controller's worker thread: loads pipelines and runs jobs, and reports through
// queued signals carrying plain records. No LibTorch in this header (Qt's `slots` macro and
// LibTorch's headers do not mix); the pipeline is held through a forward declaration.
#include <QObject>
#include <QString>
#include <atomic>
#include <memory>

#include "run_events.h"
#include "run_meta.h"

namespace hs {
class Pipeline;
struct WorkProgress;
}  // namespace hs

// The flags the controller sets and the worker's engine calls read at every probe point and
// weight tensor (base/cancel.h). Shared, so that a worker left to finish on its own after
// the controller is gone (RunController::shutdown) still reads valid flags.
struct WorkerFlags {
    std::atomic<bool> cancel{false};   // the running job (and the load it starts)
    std::atomic<bool> closing{false};  // the studio closes: everything stops
};

class RunWorker : public RunEvents {
    Q_OBJECT
public:
    explicit RunWorker(std::shared_ptr<const WorkerFlags> flags, QObject* parent = nullptr);
    ~RunWorker() override;

public slots:
    // Opens a pipeline folder or a model file (completed by `files`, see hs::ModelFiles) for
    // `plan` on `device`; emits loaded() or loadFailed().
    // Its progress goes out as stage(0, ...); `stop` (may be null) cancels it within one
    // tensor, and then loadStopped() comes instead of loadFailed(). loadEnded(loadId) follows
    // every outcome.
    void load(const QString& model, const hs::ModelFiles& files, const hs::PrecisionPlan& plan,
              const QString& device, int loadId = 0,
              std::shared_ptr<const std::atomic<bool>> stop = nullptr);
    // Sorts files picked together into the model and its VAE and text encoders (file_set.h),
    // then loads them as load() does; a set that makes no model fails with the reason.
    void loadFiles(const QStringList& files, const hs::PrecisionPlan& plan, const QString& device,
                   int loadId = 0, std::shared_ptr<const std::atomic<bool>> stop = nullptr);
    // Runs a job, reloading first when its model, plan or device differ from the loaded ones.
    void runJob(const RunJob& job);
    // Full VAE decode of one step (kept latents needed) of job `jobId`, run with `config`:
    // stage(jobId, "decoding step 3 with the VAE"), then preview() and stage(jobId, "step 3
    // decoded in 2.1 s"), or decodeFailed(), or decodeStopped() when `stop` (may be null)
    // cancelled it (within one VAE block). decodeEnded(decodeId) follows every outcome.
    void decodeStep(int jobId, const hs::RunConfig& config, const hs::StepRecord& step,
                    int decodeId = 0, std::shared_ptr<const std::atomic<bool>> stop = nullptr);

signals:
    // Besides RunEvents' signals (run_events.h):
    void loadEnded(int loadId);      // after load()'s loaded, loadFailed or loadStopped
    void decodeEnded(int decodeId);  // after decodeStep()'s preview, decodeFailed or decodeStopped

private:
    // Loads what `cfg` names unless it is loaded; the load's progress goes out as stage(jobId,
    // "Loading transformer: shard 1/2, 1.2/4.0 GB, 3 s left") a few times a second.
    bool ensureLoaded(const hs::RunConfig& cfg, QString& error, int jobId = 0);
    // Text encoding, VAE decoding, streamed blocks and search trials of job `jobId` go out as
    // its stage; its estimate through estimate() and estimateChecked().
    void reportWork(int jobId, const hs::WorkProgress& p);
    void runSearch(const RunJob& job);

    std::shared_ptr<const WorkerFlags> m_flags;
    std::unique_ptr<hs::Pipeline> m_pipeline;
    QString m_dir, m_device, m_planText;
    hs::ModelFiles m_files;
    hs::Execution m_cpuBf16 = hs::Execution::Emulated;  // how the loaded weights hold bf16
};
