// halfscope: the studio.
#include <QApplication>
#include <QMainWindow>

#include "environment_view.h"
#include "runtime/devices.h"
#include "runtime/runtime.h"
#include "torch_include.h"

namespace {

QVector<EnvironmentRow> environmentRows() {
    const auto e = hs::environmentInfo();
    QVector<EnvironmentRow> rows;
    rows.push_back({QObject::tr("Halfscope"), QString::fromStdString(e.halfscopeVersion)});
    rows.push_back({QObject::tr("LibTorch"), QString::fromStdString(e.torchVersion)});
    rows.push_back({QObject::tr("Threads"), QString::number(e.threads)});
    rows.push_back({QObject::tr("CPU"), QString::fromStdString(e.cpu.model)});
    rows.push_back({QObject::tr("CPU bf16 (avx512_bf16 / amx)"),
                    e.cpu.avx512bf16 || e.cpu.amxBf16 ? QObject::tr("yes") : QObject::tr("no")});
    for (const auto& d : e.cuda)
        rows.push_back({QObject::tr("CUDA %1").arg(d.index),
                        QString::fromStdString(d.name + " — " + d.capabilityNote())});
    if (e.cuda.empty()) rows.push_back({QObject::tr("CUDA"), QObject::tr("no CUDA device")});
    return rows;
}

}  // namespace

int main(int argc, char** argv) {
    hs::ensurePassiveOmpWait(argc, argv);
    QApplication app(argc, argv);
    QApplication::setApplicationName("Halfscope");
    QApplication::setOrganizationName("Halfscope");
    hs::configureRuntime();
    QMainWindow window;
    window.setWindowTitle(QObject::tr("Halfscope"));
    auto* env = new EnvironmentView(&window);
    env->setRows(environmentRows());
    window.setCentralWidget(env);
    window.resize(900, 600);
    window.show();
    return app.exec();
}
