// The studio's event loop during a 20-step run on the demo model: a 5 ms heartbeat timer on the
// GUI thread records every gap between its ticks; the longest gap is the longest stall a user
// would feel (target <= 50 ms). Offscreen, with the real window, worker thread and history.
//   bench_ui_stall [runs=3] [steps=20]
#include <QApplication>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <vector>

#include "main_window.h"
#include "prompt_panel.h"
#include "runtime/demo_location.h"
#include "runtime/runtime.h"
#include "studio.h"

int main(int argc, char** argv) {
    hs::ensurePassiveOmpWait(argc, argv);
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setOrganizationName("HalfscopeBench");
    const int threads = hs::configureRuntime();
    const int runs = argc > 1 ? std::max(1, atoi(argv[1])) : 3;
    const int steps = argc > 2 ? std::max(1, atoi(argv[2])) : 20;
    QTemporaryDir dir;
    MainWindow w(dir.filePath("history"), QString::fromStdString(hs::findDemoModel()));
    w.show();
    while (!w.studio().model()) QApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);

    hs::RunConfig cfg;
    cfg.prompt = "a large red circle on the left and a small blue square, yellow background";
    cfg.steps = steps;
    w.views().prompt->setFrom(cfg);
    std::printf("%d LibTorch threads, %d runs of %d steps, heartbeat every 5 ms\n", threads, runs,
                steps);
    for (int r = 0; r < runs; ++r) {
        std::vector<double> gaps;
        QElapsedTimer clock;
        QTimer beat;
        beat.setTimerType(Qt::PreciseTimer);
        QObject::connect(&beat, &QTimer::timeout, [&] {
            gaps.push_back(clock.nsecsElapsed() / 1e6);
            clock.restart();
        });
        QElapsedTimer total;
        total.start();
        clock.start();
        beat.start(5);
        w.studio().generate();
        while (w.studio().isBusy()) QApplication::processEvents(QEventLoop::WaitForMoreEvents, 20);
        beat.stop();
        std::sort(gaps.begin(), gaps.end());
        const double worst = gaps.empty() ? 0 : gaps.back();
        const double p99 = gaps.empty() ? 0 : gaps[size_t(0.99 * double(gaps.size() - 1))];
        std::printf(
            "  run %d: %.0f ms, %zu heartbeats, longest stall %.1f ms (p99 %.1f ms) "
            "target <= 50 ms %s\n",
            r + 1, total.nsecsElapsed() / 1e6, gaps.size(), worst, p99,
            worst <= 50 ? "ok" : "MISSED");
    }
    return 0;
}
