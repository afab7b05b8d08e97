#pragma once
// The studio's behaviour behind the main window: turns the panels into runs on the controller,
// routes each run's events into the views and the run history, and builds comparisons,
// precision searches and reports. MainWindow only lays the views out.
#include <QObject>
#include <QPointer>
#include <QVector>
#include <functional>
#include <optional>

#include "fix_panel.h"
#include "records/run_forecast.h"
#include "run_controller.h"

class CompareView;
class FailureBanner;
class FixPanel;
class HistoryBrowser;
class ImageView;
class LayerHeatmap;
class LogPanel;
class ModelPanel;
class PrecisionPanel;
class PreviewStrip;
class PromptPanel;
class RunHistory;
class StepPlot;

struct StudioViews {
    PromptPanel* prompt = nullptr;
    PrecisionPanel* precision = nullptr;
    ModelPanel* model = nullptr;
    StepPlot* plot = nullptr;
    PreviewStrip* previews = nullptr;
    LayerHeatmap* layers = nullptr;
    ImageView* image = nullptr;
    LogPanel* log = nullptr;
    CompareView* compare = nullptr;
    HistoryBrowser* history = nullptr;
    FixPanel* fix = nullptr;
    FailureBanner* banner = nullptr;  // the Run tab's: the shown run's first failure
};

class Studio : public QObject {
    Q_OBJECT
public:
    // `history` may be closed (an unwritable data folder): runs still work, unsaved.
    Studio(const StudioViews& views, RunHistory* history, QObject* parent = nullptr);
    ~Studio() override;

    RunController& controller() { return *m_controller; }
    // The window closes: cancels what runs (a load, a run, a comparison, a search) and joins
    // the worker within about a second, delivers the record of the run it stopped, and marks
    // every run still unfinished in the history as cancelled. Called by the Close event of the
    // parent window; nothing starts afterwards.
    void shutdown();
    // How long a write to the history on this (the GUI) thread waits for a lock that another
    // program holds before it gives up with a message, instead of freezing the window.
    static constexpr int kHistoryBusyTimeoutMs = 100;
    const std::optional<LoadedModel>& model() const { return m_model; }
    bool isBusy() const { return m_controller->isBusy(); }

    // A pipeline folder, or a model file completed by `files` (its VAE, text encoders).
    void openModel(const QString& dir, const hs::ModelFiles& files = {});
    // Files picked or dropped together: which is the model and which its VAE and text encoders
    // is found from what each holds (file_set.h).
    void openFiles(const QStringList& files);
    // The last load that was tried again, with `path` as its part `slot` ("tokenizer_2", "vae"):
    // what the model panel's part buttons do after a load failed for want of that part.
    void openWithPart(const QString& slot, const QString& path);
    void generate();
    // Called with each Generate's run before it starts, to change it (a reproduction's sampler).
    void setRunAmendment(std::function<void(hs::RunConfig&)> amend) { m_amend = std::move(amend); }
    void stop();
    // Same prompt and seed under each plan (2-4), one after another.
    void compare(const QVector<hs::PrecisionPlan>& plans, const QStringList& labels);
    void compareBf16VsFp16();        // every component bf16 vs every component fp16
    void compareOneModuleAtATime();  // stored dtypes vs each component alone in fp16
    void findMinimalFix(const FixSettings& settings);
    void applyPlan(const QString& planText);
    // The best passing remedy plans (2-4) side by side in the compare tab.
    void compareRemedies(const QStringList& planTexts);
    // The GPU advice and remedy costs speak for: the precision panel's target, else the device
    // the runs use.
    hs::DeviceInfo adviceTarget() const;
    // The last run, or the last comparison with its search, as HTML + JSON + CSV.
    bool exportReport(const QString& htmlPath, QString* error);
    void openHistoryRun(qint64 id);
    void compareHistoryRuns(const QVector<qint64>& ids);

    // What the views show: the last single run and the runs of the last comparison.
    const std::optional<hs::RunRecord>& lastRun() const { return m_lastRun; }
    const QVector<hs::RunRecord>& compareRuns() const { return m_compareRuns; }
    // What the panels' next run should take (shown under the prompt panel's progress), from a
    // finished run of this session; none before one of this model, plan and guidance mode.
    const std::optional<hs::RunForecast>& forecast() const { return m_forecast; }
    // Shows a finished record in the single-run views (curves, previews, layers, image), as a
    // run opened from the history; the tab stays as it is.
    void showRecord(const hs::RunRecord& r);

signals:
    void busyChanged(bool busy);
    void modelLoaded(const LoadedModel& model);
    void showCompare();  // the main window brings the comparison to the front
    void showRun();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    // The device choice's cap on the GPU's memory, set on its allocator before a load allocates
    // there (runtime/gpu_memory.h); logged, or its refusal logged as an error.
    void applyGpuMemoryCap();
    struct Job {
        int compareIndex = -1;
        bool search = false;
        qint64 historyId = -1;
        bool ended = false;            // its record arrived (finished, failed or cancelled)
        bool historyDeferred = false;  // a step write failed: the rest is saved at the end
        hs::RunConfig config;
        QVector<hs::StepRecord> steps;  // kept for decode on click
    };
    hs::RunConfig configFromPanels() const;
    // What the controller reports, each signal to one handler below (studio_events.cpp).
    void connectController();
    // A model's load: into the panels and the log.
    void onLoaded(const LoadedModel& m);
    void onLoadFailed(const QString& message);
    void onLoadStopped(const QString& dir);
    // A run's end for the progress line: "done in 0.48 s: nan/inf", or "stopped".
    static QString endedText(const hs::RunRecord& r);
    // A run or a comparison's run, from its start to its record: into the views and the history.
    void onJobStarted(const RunJob& job);
    void onStage(int id, const QString& stage);
    void onEstimate(int id, double seconds, double bytes, double weights, double activations);
    void onEstimateChecked(int id, double estimated, double actual);
    void onStep(int id, const hs::StepRecord& s, const std::vector<hs::ProbeRecord>& probes);
    void onPreview(int id, const hs::PreviewImage& p);
    void onFirstNonFinite(int id, const hs::FirstNonFinite& f);
    void onFinished(int id, const hs::RunRecord& r);
    void onFailed(int id, const QString& message);
    // A decode of a step on click, a search's trials and end, and the end of all work.
    void onDecodeFailed(int id, const QString& message);
    void onDecodeStopped(int id, int step);
    void onSearchTrial(int id, const hs::BisectionTrial& t);
    void onSearchRemedy(int id, const hs::RemedyRow& r);
    void onSearchFinished(int id, const hs::PrecisionSearch& s);
    void onIdle();  // the queue is empty and nothing runs
    void updateDivergence();
    // The Run tab's banner for the run the views show: its first failure, else its verdict when
    // the image failed, else hidden (studio_records.cpp).
    void showFailureOf(const hs::RunRecord& r);
    // "run 1 of 2, bf16" for a job of the current comparison, else empty.
    QString compareRunName(int jobId) const;
    void decodeStep(int compareIndex, int step);
    // Saves a run's outcome; when the history refuses (locked by another program), keeps the
    // record and tries again every few seconds and at close.
    void finishInHistory(int jobId, qint64 historyId, const hs::RunRecord& record);
    void saveUnsaved();
    // Keeps a finished run's times for forecasts; shows the forecast of the panels' next run
    // (studio_forecast.cpp).
    void rememberTimes(int jobId, const hs::RunRecord& record);
    void updateForecast();

    StudioViews m_v;
    RunHistory* m_history;
    RunController* m_controller;
    std::optional<LoadedModel> m_model;
    // The model and files of the last load begun (a file set's after sorting): a failed load's
    // missing part is added to these.
    QString m_triedModel;
    hs::ModelFiles m_triedFiles;
    QMap<int, Job> m_jobs;
    int m_viewJob = 0;  // job whose steps the single-run views show
    std::optional<hs::RunRecord> m_lastRun;
    QVector<hs::RunRecord> m_compareRuns;
    QVector<int> m_compareJobs;
    QStringList m_compareTitles;  // the compared runs' titles, as the compare view shows them
    std::optional<hs::PrecisionSearch> m_lastSearch;
    bool m_closed = false;
    struct Unsaved {
        int jobId;
        qint64 historyId;
        hs::RunRecord record;
    };
    QVector<Unsaved> m_unsaved;  // outcomes a locked history refused, to write again
    std::function<void(hs::RunConfig&)> m_amend;
    bool m_lastWasCompare = false;  // what Export report writes: the comparison or the last run
    struct Measured {
        int jobId;
        hs::RunRecord record;  // config, steps' times, seconds and estimate only
    };
    QVector<Measured> m_measured;  // this session's finished runs, newest last, at most 16
    std::optional<hs::RunForecast> m_forecast;
};
