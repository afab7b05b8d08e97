// LayerHeatmap: rows and columns, headroom colours, filter, first non-finite mark, clicks, speed.
#include <gtest/gtest.h>

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QMouseEvent>
#include <QScrollBar>
#include <cmath>

#include "layer_heatmap.h"
#include "view_format.h"
#include "view_heatmap_grid.h"

namespace {

hs::ProbeRecord rec(const std::string& name, hs::ProbeLevel level, int step, double absMax,
                    int64_t nan = 0, int64_t posInf = 0) {
    hs::ProbeRecord r;
    r.name = name;
    r.granularity = level;
    r.step = step;
    r.format = hs::Format::FP16;
    r.execution = hs::Execution::Emulated;
    r.stats.count = 1024;
    r.stats.finite = 1024 - nan - posInf;
    r.stats.min = -absMax / 2;
    r.stats.max = absMax;
    r.stats.absMax = absMax;
    r.stats.mean = absMax / 100;
    r.stats.std = absMax / 10;
    r.stats.nan = nan;
    r.stats.posInf = posInf;
    r.stats.subnormalFp16 = 3;
    return r;
}

const auto M = hs::ProbeLevel::Module;
const auto L = hs::ProbeLevel::Layer;
const auto O = hs::ProbeLevel::Op;

// A Flux-like run's point names: CLIP layers, 19 double blocks, 38 single blocks, the VAE.
struct Point {
    std::string name;
    hs::ProbeLevel level;
};
std::vector<Point> fluxPoints(int doubleBlocks, int singleBlocks, int layersPerBlock) {
    std::vector<Point> pts;
    pts.push_back({"transformer.x_embedder", L});
    pts.push_back({"transformer.context_embedder", L});
    const char* layer[] = {".attn", ".ff", ".norm1", ".proj_out", ".ff_context"};
    for (int b = 0; b < doubleBlocks; ++b) {
        const std::string base = "transformer.transformer_blocks." + std::to_string(b);
        for (int l = 0; l < layersPerBlock; ++l) pts.push_back({base + layer[l % 5], L});
        pts.push_back({base, M});
    }
    for (int b = 0; b < singleBlocks; ++b) {
        const std::string base = "transformer.single_transformer_blocks." + std::to_string(b);
        for (int l = 0; l < layersPerBlock; ++l) pts.push_back({base + layer[l % 5], L});
        pts.push_back({base, M});
    }
    pts.push_back({"transformer.proj_out", M});
    return pts;
}

void waitMs(int ms) {
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms) QApplication::processEvents(QEventLoop::AllEvents, 5);
}

void click(LayerHeatmap& map, int displayRow, int column) {
    QWidget* vp = map.grid()->viewport();
    const QPointF at = map.grid()->cellRect(displayRow, column).center();
    QMouseEvent press(QEvent::MouseButtonPress, at, vp->mapToGlobal(at), Qt::LeftButton,
                      Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(vp, &press);
}

}  // namespace

TEST(LayerHeatmap, RowsInFirstAppearanceOrderAndStageColumns) {
    LayerHeatmap map;
    map.addProbes({rec("text_encoder.layers.0", M, -1, 10), rec("transformer.a", L, 0, 1),
                   rec("transformer.a.op", O, 0, 1), rec("transformer.b", M, 0, 2)});
    map.addProbes({rec("transformer.a", L, 1, 3), rec("transformer.b", M, 1, 4)});
    map.addProbes({rec("vae.decoder.conv_out", M, -1, 5), rec("unnamed", L, -1, 6)});
    ASSERT_EQ(map.rowCount(), 5) << "Op points make no rows";
    EXPECT_EQ(map.rowName(0), "text_encoder.layers.0");
    EXPECT_EQ(map.rowName(1), "transformer.a");
    EXPECT_EQ(map.rowName(3), "vae.decoder.conv_out");
    const ViewHeatmapData& d = map.data();
    EXPECT_EQ(d.stepColumns(), 2);
    EXPECT_EQ(map.columnCount(), 4);  // text, step 0, step 1, decode
    EXPECT_FALSE(d.cell(0, 0)->empty()) << "text encoder in the text column";
    EXPECT_TRUE(d.cell(0, d.decodeColumn())->empty());
    EXPECT_FALSE(d.cell(3, d.decodeColumn())->empty()) << "VAE in the decode column";
    EXPECT_EQ(d.cell(1, d.columnOfStep(1))->stats.absMax, 3);
    EXPECT_FALSE(d.cell(4, d.decodeColumn())->empty()) << "unknown name after sampling: decode";
    // A step -1 record with no telling name after sampling began: the decode column.
    map.addProbes({rec("transformer.a", L, -1, 7)});
    EXPECT_FALSE(d.cell(1, d.decodeColumn())->empty());
}

// The components' roles place records outside the sampling loop, whatever the components are
// called: an encoder pass after sampling began (a second encoder, an adapter) still goes to the
// text column, a VAE point before it (an encode, say) to the decode column.
TEST(LayerHeatmap, RolesPlaceTheRecordsOutsideTheLoop) {
    LayerHeatmap map;
    map.setComponents({{"cond_stage", hs::Role::TextEncoder, "T5EncoderModel"},
                       {"unet", hs::Role::Denoiser, "UNet2DConditionModel"},
                       {"first_stage", hs::Role::Vae, "AutoencoderKL"}});
    map.addProbes({rec("first_stage.encoder.conv_out", M, -1, 1)});  // before any step
    map.addProbes({rec("unet.mid_block", M, 0, 2)});
    map.addProbes({rec("cond_stage.block.0", M, -1, 3)});  // after sampling began
    const ViewHeatmapData& d = map.data();
    ASSERT_EQ(map.rowCount(), 3);
    EXPECT_FALSE(d.cell(0, d.decodeColumn())->empty()) << "a VAE point: decode column";
    EXPECT_TRUE(d.cell(0, 0)->empty());
    EXPECT_FALSE(d.cell(2, 0)->empty()) << "a text encoder point: text column";
    EXPECT_TRUE(d.cell(2, d.decodeColumn())->empty());
    // Kept across clear(): the next run of the same model places its records the same way.
    map.clear();
    map.addProbes({rec("unet.mid_block", M, 0, 2), rec("cond_stage.block.0", M, -1, 3)});
    EXPECT_FALSE(map.data().cell(1, 0)->empty());
}

TEST(LayerHeatmap, ColoursFollowHeadroomAndNonFiniteIsMarked) {
    LayerHeatmap map;
    map.resize(900, 400);
    map.show();
    map.addProbes({rec("a", M, 0, hs::kFp16Max), rec("b", M, 0, hs::kFp16Max / (1 << 20)),
                   rec("c", M, 0, 100, 5), rec("d", M, 0, 100, 0, 7), rec("e", M, 0, 2e5)});
    map.addProbes({rec("a", M, 1, 1.0)});
    const int col = map.data().columnOfStep(0);
    const QColor atLimit = map.cellColor(0, col), headroom = map.cellColor(1, col);
    EXPECT_GT(atLimit.red(), 180);
    EXPECT_LT(atLimit.blue(), 80);
    EXPECT_GT(headroom.blue(), 120);
    EXPECT_LT(headroom.red(), 120);
    EXPECT_EQ(map.cellColor(2, col), viewNanColor());
    EXPECT_EQ(map.cellColor(3, col), viewInfColor());
    EXPECT_EQ(map.cellColor(4, col), QColor(110, 0, 20)) << "past the limit (bf16/fp32 run)";
    EXPECT_EQ(map.cellColor(1, map.data().columnOfStep(1)), QColor(232, 232, 232)) << "no record";

    // The painted grid shows the same colours.
    QApplication::processEvents();
    const QImage shot = map.grid()->viewport()->grab().toImage();
    EXPECT_EQ(shot.pixelColor(map.grid()->cellRect(2, col).center()), viewNanColor());
    EXPECT_EQ(shot.pixelColor(map.grid()->cellRect(3, col).center()), viewInfColor());
}

TEST(LayerHeatmap, DuplicateRecordsOfAStepAreMerged) {
    LayerHeatmap map;
    map.addProbes({rec("a", M, 0, 10), rec("a", M, 0, 30, 2)});
    const auto* c = map.data().cell(0, 1);
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->calls, 2);
    EXPECT_EQ(c->stats.absMax, 30);
    EXPECT_EQ(c->stats.count, 2048);
    EXPECT_EQ(c->stats.nan, 2);
}

TEST(LayerHeatmap, ClickShowsStatisticsAndEmitsNameAndStep) {
    LayerHeatmap map;
    map.resize(1000, 500);
    map.show();
    map.addProbes({rec("transformer.a", L, 0, 5), rec("transformer.b", M, 0, 6)});
    map.addProbes({rec("transformer.a", L, 1, 5), rec("transformer.b", M, 1, 60000, 3, 4)});
    QApplication::processEvents();
    std::vector<std::pair<QString, int>> got;
    QObject::connect(&map, &LayerHeatmap::cellClicked, [&](const QString& n, int s) {
        got.push_back({n, s});
    });
    click(map, 1, map.data().columnOfStep(1));
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].first, "transformer.b");
    EXPECT_EQ(got[0].second, 1);
    const QString details = map.detailsText();
    for (const char* want : {"transformer.b", "step 1", "fp16 emulated", "count", "1,024", "60000",
                             "NaN", "+Inf", "-Inf", "over fp16", "fp16-subnormal", "mean", "std"})
        EXPECT_TRUE(details.contains(want)) << want << " missing in\n" << details.toStdString();
    // The text column reports step -1.
    map.addProbes({rec("text_encoder.x", M, -1, 1)});
    map.selectCell("text_encoder.x", 0);
    EXPECT_EQ(got.back().second, -1);
    EXPECT_TRUE(map.detailsText().contains("text encoding"));
}

TEST(LayerHeatmap, FirstNonFiniteIsMarkedEvenWhenReportedFirst) {
    LayerHeatmap map;
    map.resize(1000, 500);
    map.show();
    hs::FirstNonFinite f;
    f.at = rec("transformer.blocks.3.ff", L, 2, 100, 0, 9);
    f.input = rec("transformer.blocks.3.attn", L, 2, 61000);
    map.setFirstNonFinite(f);  // the engine reports it before the step's records arrive
    EXPECT_TRUE(map.firstNonFiniteText().contains("transformer.blocks.3.ff"));
    EXPECT_TRUE(map.firstNonFiniteText().contains("step 2"));
    EXPECT_EQ(map.markedCell(), QPoint(-1, -1));
    for (int s = 0; s < 3; ++s)
        map.addProbes({rec("transformer.blocks.3.attn", L, s, 100 + s),
                       rec("transformer.blocks.3.ff", L, s, 50, 0, s == 2 ? 9 : 0),
                       rec("transformer.blocks.3", M, s, 50, s == 2 ? 30 : 0)});
    EXPECT_EQ(map.markedCell(), QPoint(1, map.data().columnOfStep(2)));
    QApplication::processEvents();
    const QImage shot = map.grid()->viewport()->grab().toImage();
    const QRect cell = map.grid()->cellRect(1, map.data().columnOfStep(2));
    EXPECT_EQ(shot.pixelColor(cell.left() - 2, cell.center().y()), QColor(Qt::black))
        << "black frame around the first non-finite cell";

    // Modules only: the mark moves to the enclosing module.
    map.setFilter(LayerHeatmap::Filter::ModulesOnly);
    EXPECT_EQ(map.rowCount(), 1);
    EXPECT_EQ(map.markedCell(), QPoint(0, map.data().columnOfStep(2)));
    EXPECT_TRUE(map.showFirstNonFinite());
    EXPECT_TRUE(map.detailsText().contains("transformer.blocks.3"));
    map.setFilter(LayerHeatmap::Filter::LayersAndModules);
    EXPECT_EQ(map.rowCount(), 3);
    map.clear();
    EXPECT_EQ(map.rowCount(), 0);
    EXPECT_EQ(map.markedCell(), QPoint(-1, -1));
    EXPECT_FALSE(map.showFirstNonFinite());
}

TEST(LayerHeatmap, StaysFastWith300PointsAnd50Steps) {
    LayerHeatmap map;
    map.resize(1200, 700);
    map.setStepCount(50);
    map.show();
    const auto pts = fluxPoints(19, 38, 4);  // 2 + 57 * 5 + 1 = 288 points
    ASSERT_GE(pts.size(), 280u);
    QElapsedTimer t;
    t.start();
    for (int s = 0; s < 50; ++s) {
        std::vector<hs::ProbeRecord> batch;
        batch.reserve(pts.size());
        for (size_t i = 0; i < pts.size(); ++i)
            batch.push_back(rec(pts[i].name, pts[i].level, s, 0.5 * (i + 1) * (s + 1)));
        map.addProbes(batch);
        QApplication::processEvents();  // the GUI thread paints between the worker's steps
    }
    const qint64 feed = t.elapsed();
    EXPECT_EQ(map.rowCount(), int(pts.size()));
    EXPECT_LT(feed, 3000) << "50 steps x 288 points took " << feed << " ms";
    t.restart();
    for (int i = 0; i < 10; ++i) map.grid()->viewport()->repaint();
    EXPECT_LT(t.elapsed() / 10.0, 50.0) << "one repaint of the grid";
    map.grid()->verticalScrollBar()->setValue(map.grid()->verticalScrollBar()->maximum());
    QApplication::processEvents();
    EXPECT_EQ(map.cellColor(map.rowCount() - 1, 50).isValid(), true);
}

TEST(LayerHeatmap, RendersRealisticRun) {
    LayerHeatmap map;
    map.resize(1200, 640);
    map.setStepCount(20);
    map.show();
    std::vector<hs::ProbeRecord> text;
    for (int l = 0; l < 12; ++l) {
        const std::string base = "text_encoder.text_model.encoder.layers." + std::to_string(l);
        text.push_back(rec(base + ".self_attn", L, -1, 4.0 * (l + 1)));
        text.push_back(rec(base, M, -1, 8.0 * (l + 1)));
    }
    map.addProbes(text);
    const auto pts = fluxPoints(19, 38, 2);
    hs::FirstNonFinite first;
    for (int s = 0; s < 20; ++s) {
        std::vector<hs::ProbeRecord> batch;
        for (size_t i = 0; i < pts.size(); ++i) {
            // Magnitudes grow along the depth; from step 6 on the single blocks from index 140
            // grow fast and pass 65504 at point 150 of step 11. Past it that step is NaN, and
            // every later step is NaN everywhere (the latent itself is NaN).
            double v = 4.0 * std::pow(1.02, double(i));
            if (i >= 140 && s >= 6) v *= std::pow(3.0, s - 5);
            const bool bad = (s == 11 && i > 150) || s > 11;
            auto r = rec(pts[i].name, pts[i].level, s, std::min(v, 60000.0), bad ? 1024 : 0);
            if (bad) r.stats.finite = 0;
            if (s == 11 && i == 150) {
                r.stats.posInf = 40;
                first.at = r;
            }
            batch.push_back(r);
        }
        map.addProbes(batch);
    }
    map.setFirstNonFinite(first);
    std::vector<hs::ProbeRecord> vae;
    for (int b = 0; b < 4; ++b)
        vae.push_back(rec("vae.decoder.up_blocks." + std::to_string(b), M, -1, 0, 4096));
    map.addProbes(vae);
    EXPECT_TRUE(map.showFirstNonFinite());
    QApplication::processEvents();
    const QImage shot = map.grab().toImage();
    EXPECT_FALSE(shot.isNull());
    const QString dir = qEnvironmentVariable("HALFSCOPE_VIEW_SHOTS");
    if (!dir.isEmpty()) {
        QDir().mkpath(dir);
        shot.save(dir + "/layer_heatmap.png");
        map.setFilter(LayerHeatmap::Filter::ModulesOnly);
        map.grid()->verticalScrollBar()->setValue(0);
        QApplication::processEvents();
        map.grab().toImage().save(dir + "/layer_heatmap_modules.png");
    }
}
