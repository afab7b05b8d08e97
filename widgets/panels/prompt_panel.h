#pragma once
// What to generate: prompt, negative prompt, seed, steps, guidance, size, sampler, scheduler shift,
// preview decoding and probe detail, the Generate / Stop buttons and the progress of a run.
// The panel edits only its own fields of a RunConfig: model folder, precision plan, device and
// keepLatents belong to other panels and are left as they are by applyTo().
#include <QSet>
#include <QStringList>
#include <QWidget>

#include "records/run_types.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class SeedEdit;
class SnapSpinBox;

class PromptPanel : public QWidget {
    Q_OBJECT
public:
    explicit PromptPanel(QWidget* parent = nullptr);

    // Writes prompt, negativePrompt, seed, steps, guidance, width, height (snapped), scheduler,
    // shift, decodeEvery and probeLevel into `config`.
    void applyTo(hs::RunConfig& config) const;
    // Shows those fields of `config` (sizes snapped to the current constraints).
    void setFrom(const hs::RunConfig& config);

    // Sizes the model accepts: multiples of `multiple` (e.g. VAE factor 8 x patch 2 = 16) in
    // [minSize, maxSize]. Current values snap into the new constraints.
    void setSizeConstraints(int multiple, int minSize, int maxSize);
    // A prompt longer than `noteAboveChars` characters gets a note that the text encoder reads
    // only `maxTokens` tokens and cuts off the rest. Defaults: 2000 characters, 77 tokens.
    void setPromptLimits(int noteAboveChars, int maxTokens);
    bool truncationNoteShown() const;
    // A model that understands only these words (lower case; the demo model's grammar): the
    // prompt's other words are named under it as they are typed. Empty: any text, no check.
    void setVocabulary(const QStringList& words);
    // Words of the prompt and the negative prompt outside that vocabulary, once each.
    QStringList wordsNotUnderstood() const;
    // A model that takes no negative prompt (FLUX.1): the field is emptied and disabled, with
    // `why` as its tooltip, and applyTo() writes an empty negative prompt. The text is kept and
    // comes back when a model that takes one is loaded.
    void setNegativePromptSupported(bool supported, const QString& why = QString());
    bool negativePromptSupported() const { return m_negativeSupported; }
    // The samplers the model lets a run pick (RunConfig::scheduler ids, with labels), after "the
    // model's own". Empty lists hide the choice. The current pick is kept when still offered.
    void setSamplers(const QStringList& ids, const QStringList& labels);

    // Generate, Stop, the progress bar and the forecast, at the bottom of the panel; the window
    // may move it into a layout of its own (below a scroll area, always in sight).
    QWidget* runBar() const { return m_runBar; }
    bool isRunning() const { return m_running; }
    QString progressText() const;  // what the progress bar says now
    // What the next run should take, under the progress bar (empty: hidden).
    void setForecast(const QString& forecast);
    QString forecastText() const;

public slots:
    // Running: Generate disabled, Stop enabled, progress reset. Not running: the reverse; the
    // progress bar keeps the last state so the user sees how far the run got.
    void setRunning(bool running);
    // `step` finished steps of `steps`; secondsPerStep <= 0 hides the time. `run` names the
    // run among several (a comparison's "run 1 of 2, bf16") before the steps.
    void setProgress(int step, int steps, double secondsPerStep, const QString& run = QString());
    // A stage outside the step loop ("text encoder", "vae decode", a model load, a streamed
    // block, a search trial), shown in the progress bar.
    void setStage(const QString& stage);
    // The run's estimate ("about 12 s in all"), shown after the step count until the next run.
    void setEstimate(const QString& estimate);

signals:
    void generateRequested();
    void stopRequested();
    // Steps, guidance, size or full decodes changed: what a run takes changes with them.
    void runSettingsChanged();

private:
    void updateNote();
    void requestGenerate();

    QPlainTextEdit* m_prompt;
    QPlainTextEdit* m_negative;
    QLabel* m_note;
    SeedEdit* m_seed;
    QSpinBox* m_steps;
    QDoubleSpinBox* m_guidance;
    SnapSpinBox* m_width;
    SnapSpinBox* m_height;
    QLabel* m_sizeHint;
    QComboBox* m_sampler;
    QLabel* m_samplerLabel;
    QCheckBox* m_shiftOn;
    QDoubleSpinBox* m_shift;
    QSpinBox* m_decodeEvery;
    QComboBox* m_probeLevel;
    QPushButton* m_generate;
    QPushButton* m_stop;
    QProgressBar* m_progress;
    QLabel* m_forecast;
    QWidget* m_runBar;
    bool m_running = false;
    bool m_negativeSupported = true;
    QString m_negativeKept;  // the text while the model takes no negative prompt
    int m_noteAboveChars = 2000;
    int m_maxTokens = 77;
    QSet<QString> m_vocabulary;
    int m_lastStep = 0, m_lastSteps = 0;
    bool m_stageShown = false;  // a stage was shown since the work began
    QString m_estimate;
};
