#pragma once
// Text helpers of the Studio's translation units (studio.cpp, studio_events.cpp,
// studio_records.cpp): one definition each, so a run's plan reads the same in the plot legend,
// the log and Compare.
#include <QString>
#include <QStringList>
#include <QVector>
#include <string>
#include <vector>

#include "records/precision_plan.h"

// The engine's records hold UTF-8 std::string; the views take QString.
inline QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

// "transformer=fp16" for a plan, "stored dtypes" (translated) for the empty one.
QString planLabel(const hs::PrecisionPlan& p);

// Short titles for compared plans, naming only what differs ("transformer fp16", "bf16"), with
// the studio's words for the stored dtypes; `components`: the model's, when known.
QStringList planTitles(const QVector<hs::PrecisionPlan>& plans,
                       const std::vector<std::string>& components = {});
