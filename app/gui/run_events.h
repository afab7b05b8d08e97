#pragma once
// What the engine reports while it loads a model, runs a job, decodes a step or searches: the
// worker emits these on its thread and the controller re-emits each one on the GUI thread
// (run_controller.cpp), so both carry this one list.
#include <QObject>
#include <QString>
#include <vector>

#include "run_meta.h"

class RunEvents : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

signals:
    // A load of `model` completed by `files` begins (a file set: after its files were sorted).
    void loadTried(const QString& model, const hs::ModelFiles& files);
    void loaded(const LoadedModel& model);
    void loadFailed(const QString& message);
    void loadStopped(const QString& model);  // Stop cancelled the load of `model`
    // After a run's second step (its only one in a one-step run): the whole run should take
    // about `seconds` and `bytes` of memory (weights + activations; activations -1 where not
    // measured). See pipeline/run_estimate.h for the method.
    void estimate(int jobId, double seconds, double bytes, double weightBytes,
                  double activationBytes);
    // The run ended: what it took against what its estimate said.
    void estimateChecked(int jobId, double estimatedSeconds, double actualSeconds);
    void stage(int jobId, const QString& stage);
    void stepDone(int jobId, const hs::StepRecord& step,
                  const std::vector<hs::ProbeRecord>& probes);
    void preview(int jobId, const hs::PreviewImage& preview);
    void firstNonFinite(int jobId, const hs::FirstNonFinite& first);
    void jobFinished(int jobId, const hs::RunRecord& record);
    void jobFailed(int jobId, const QString& message);
    void decodeFailed(int jobId, const QString& message);
    void decodeStopped(int jobId, int step);  // Stop cancelled the decode of `step`
    void searchTrial(int jobId, const hs::BisectionTrial& trial);
    void searchRemedy(int jobId, const hs::RemedyRow& row);  // unranked, as it was tried
    void searchFinished(int jobId, const hs::PrecisionSearch& search);
};
