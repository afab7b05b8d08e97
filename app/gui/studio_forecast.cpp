// The forecast of the next run under the prompt panel's progress: from the runs of this session
// that finished on the same model, plan, device and guidance mode (records/run_forecast.h).
#include <algorithm>

#include "base/work_progress.h"
#include "prompt_panel.h"
#include "records/run_forecast.h"
#include "studio.h"
#include "studio_text.h"

void Studio::rememberTimes(int jobId, const hs::RunRecord& r) {
    if (r.cancelled || !r.error.empty() || r.steps.empty()) return;
    // What a forecast reads: the config, the steps' times, the total and the estimate.
    Measured m{jobId, hs::RunRecord()};
    m.record.config = r.config;
    m.record.seconds = r.seconds;
    m.record.estimate = r.estimate;
    for (const auto& s : r.steps) {
        hs::StepRecord t;
        t.step = s.step;
        t.seconds = s.seconds;
        m.record.steps.push_back(t);
    }
    m_measured.push_back(std::move(m));
    constexpr int kKept = 16;
    if (m_measured.size() > kKept) m_measured.remove(0, m_measured.size() - kKept);
}

void Studio::updateForecast() {
    m_forecast.reset();
    if (!m_model) {
        m_v.prompt->setForecast(QString());
        return;
    }
    const hs::RunConfig next = configFromPanels();
    for (auto it = m_measured.crbegin(); it != m_measured.crend(); ++it) {
        const auto f = hs::forecastRun(it->record, next);
        if (!f) continue;
        m_forecast = f;
        const QString time = qs(hs::secondsText(f->seconds));
        QString text;
        if (f->bytes < 0)
            text = tr("Next run: about %1, from the times of run %2").arg(time).arg(it->jobId);
        else if (f->weightsOnly)
            text = tr("Next run: about %1 and %2 of weights (activations not measured on this "
                      "device), from the times of run %3")
                       .arg(time, qs(hs::bytesText(f->bytes)))
                       .arg(it->jobId);
        else
            text = tr("Next run: about %1 and %2 of memory, from the times of run %3")
                       .arg(time, qs(hs::bytesText(f->bytes)))
                       .arg(it->jobId);
        m_v.prompt->setForecast(text);
        return;
    }
    m_v.prompt->setForecast(
        tr("Next run: its time and memory are estimated after its second step (no run of this "
           "model with this plan and guidance has finished yet)"));
}
