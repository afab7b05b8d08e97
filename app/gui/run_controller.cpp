#include "run_controller.h"

#include <QDeadlineTimer>

#include "run_worker.h"

namespace {

// Connects each of `events` of `from` to the same signal of `to`, which re-emits it.
template <typename... Signal>
void forwardEvents(RunEvents* from, RunEvents* to, Signal... events) {
    (QObject::connect(from, events, to, events), ...);
}

}  // namespace

RunController::RunController(QObject* parent)
    : RunEvents(parent), m_flags(std::make_shared<WorkerFlags>()), m_thread(new QThread) {
    registerRunMetaTypes();
    m_worker = new RunWorker(m_flags);
    m_worker->moveToThread(m_thread);
    connect(m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    // Every connection is made before the thread starts; worker -> controller ones are queued
    // (different threads), so handlers below run on the GUI thread.
    forwardEvents(m_worker, this, &RunEvents::loadTried, &RunEvents::loaded, &RunEvents::loadFailed,
                  &RunEvents::loadStopped, &RunEvents::estimate, &RunEvents::estimateChecked,
                  &RunEvents::stage, &RunEvents::stepDone, &RunEvents::preview,
                  &RunEvents::firstNonFinite, &RunEvents::decodeFailed, &RunEvents::decodeStopped,
                  &RunEvents::searchTrial, &RunEvents::searchRemedy);
    // A load or decode that ends may leave the controller idle.
    connect(m_worker, &RunWorker::loadEnded, this, [this](int loadId) {
        m_loads.remove(loadId);
        if (!isBusy()) emit idle();
    });
    connect(m_worker, &RunWorker::decodeEnded, this, [this](int decodeId) {
        m_decodes.remove(decodeId);
        if (!isBusy()) emit idle();
    });
    // A job's end is re-emitted, then the next queued job starts.
    connect(m_worker, &RunEvents::searchFinished, this,
            [this](int id, const hs::PrecisionSearch& s) {
                emit searchFinished(id, s);
                onJobEnded(id);
            });
    connect(m_worker, &RunEvents::jobFinished, this, [this](int id, const hs::RunRecord& r) {
        emit jobFinished(id, r);
        onJobEnded(id);
    });
    connect(m_worker, &RunEvents::jobFailed, this, [this](int id, const QString& message) {
        emit jobFailed(id, message);
        onJobEnded(id);
    });
    m_thread->setObjectName("halfscope-worker");
    m_thread->start();
}

RunController::~RunController() {
    if (shutdown()) delete m_thread;
}

bool RunController::shutdown(int waitMs) {
    if (m_shutDown) return m_joined;
    m_shutDown = true;
    m_queue.clear();
    for (const auto& flag : m_loads) *flag = true;
    m_flags->closing = true;  // loads, runs, searches and decodes stop at their next block
    m_flags->cancel = true;
    m_thread->requestInterruption();
    m_thread->quit();
    m_joined = m_thread->wait(QDeadlineTimer(waitMs));
    // Each was cancelled above (the closing flag); an end that never arrives is not awaited.
    m_loads.clear();
    m_decodes.clear();
    if (!m_joined) {
        // One long op is still running: its events must not reach a controller that is gone.
        disconnect(m_worker, nullptr, this, nullptr);
        connect(m_thread, &QThread::finished, m_thread, &QObject::deleteLater);
    }
    return m_joined;
}

int RunController::newLoad() {
    const int id = m_nextLoadId++;
    m_loads.insert(id, std::make_shared<std::atomic<bool>>(false));
    return id;
}

void RunController::loadModel(const QString& model, const hs::ModelFiles& files,
                              const hs::PrecisionPlan& plan, const QString& device) {
    if (m_shutDown) return;
    const int id = newLoad();
    QMetaObject::invokeMethod(
        m_worker,
        [w = m_worker, model, files, plan, device, id, stop = m_loads.value(id)] {
            w->load(model, files, plan, device, id, stop);
        },
        Qt::QueuedConnection);
}

void RunController::loadFiles(const QStringList& files, const hs::PrecisionPlan& plan,
                              const QString& device) {
    if (m_shutDown) return;
    const int id = newLoad();
    QMetaObject::invokeMethod(
        m_worker,
        [w = m_worker, files, plan, device, id, stop = m_loads.value(id)] {
            w->loadFiles(files, plan, device, id, stop);
        },
        Qt::QueuedConnection);
}

int RunController::enqueue(RunJob job) {
    job.id = m_nextId++;
    m_queue.enqueue(job);
    if (!m_current) dispatchNext();
    return job.id;
}

int RunController::start(const hs::RunConfig& config) {
    RunJob job;
    job.config = config;
    return enqueue(job);
}

int RunController::startSearch(const hs::RunConfig& config, const SearchSettings& settings) {
    RunJob job;
    job.kind = RunJob::Kind::Search;
    job.config = config;
    job.search = settings;
    return enqueue(job);
}

QVector<int> RunController::startCompare(const QVector<hs::RunConfig>& configs) {
    QVector<int> ids;
    for (int i = 0; i < configs.size(); ++i) {
        RunJob job;
        job.compareIndex = i;
        job.config = configs[i];
        job.config.keepLatents = true;  // the divergence curve compares latents step by step
        ids.push_back(enqueue(job));
    }
    return ids;
}

void RunController::stop() {
    m_queue.clear();
    if (m_current) m_flags->cancel = true;
    for (const auto& flag : m_loads) *flag = true;  // a queued load stops at its first tensor
    for (const auto& d : m_decodes) *d.stop = true;
}

void RunController::decodeStep(int jobId, const hs::RunConfig& config, const hs::StepRecord& step) {
    if (m_shutDown) return;
    const int id = m_nextDecodeId++;
    m_decodes.insert(id, {jobId, std::make_shared<std::atomic<bool>>(false)});
    QMetaObject::invokeMethod(
        m_worker,
        [w = m_worker, jobId, config, step, id, stop = m_decodes.value(id).stop] {
            w->decodeStep(jobId, config, step, id, stop);
        },
        Qt::QueuedConnection);
}

bool RunController::isDecoding(int jobId) const {
    for (const auto& d : m_decodes)
        if (d.jobId == jobId) return true;
    return false;
}

void RunController::dispatchNext() {
    if (m_queue.isEmpty()) {
        m_current = 0;
        if (!isBusy()) emit idle();  // else idle comes when the load or decode ends
        return;
    }
    if (m_shutDown) {
        m_current = 0;
        return;
    }
    RunJob job = m_queue.dequeue();
    m_current = job.id;
    m_flags->cancel = false;  // nothing runs now: the flag belongs to this job from here on
    emit jobStarted(job);
    QMetaObject::invokeMethod(m_worker, "runJob", Qt::QueuedConnection, Q_ARG(RunJob, job));
}

void RunController::onJobEnded(int jobId) {
    if (jobId == m_current) dispatchNext();
}
