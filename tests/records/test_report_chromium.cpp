// Opens a generated HTML report in headless Chromium: it must render with no console message
// (the report's Content-Security-Policy turns any external fetch into one), every embedded
// image must decode, and the page must not overflow sideways. Leaves a screenshot where
// $HALFSCOPE_SCREENSHOT says (else in a temporary folder that is removed).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "io/image_io.h"
#include "report/html_report.h"
#include "report_fixtures.h"

using namespace hs;
namespace fs = std::filesystem;

namespace {

const char* kChromium = "/usr/bin/chromium";

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

struct TempDir {
    fs::path path;
    TempDir() {
        std::string t = (fs::temp_directory_path() / "halfscope_chromium_XXXXXX").string();
        path = mkdtemp(t.data());
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

// Runs Chromium headless on `html` with `mode` ("--screenshot=..." or "--dump-dom"); stdout to
// out, stderr (the log, with its CONSOLE lines) to err. Returns the exit status.
int runChromium(const fs::path& dir, const fs::path& html, const std::string& mode,
                const fs::path& out, const fs::path& err) {
    const fs::path profile = dir / ("profile_" + out.stem().string());
    fs::create_directories(profile);
    const std::string cmd = std::string("timeout 180 ") + kChromium +
                            " --headless --no-sandbox --disable-gpu --disable-background-networking"
                            " --disable-component-update --disable-sync --no-first-run"
                            " --disable-extensions --hide-scrollbars --user-data-dir='" +
                            profile.string() + "' --enable-logging=stderr --v=0 " + mode +
                            " --window-size=1280,2400 'file://" + html.string() + "' >'" +
                            out.string() + "' 2>'" + err.string() + "'";
    return std::system(cmd.c_str());
}

std::vector<std::string> consoleLines(const std::string& log) {
    std::vector<std::string> lines;
    std::istringstream in(log);
    for (std::string l; std::getline(in, l);)
        if (l.find(":CONSOLE") != std::string::npos) lines.push_back(l);
    return lines;
}

// The report with its CSP relaxed for one inline script that checks the page after load and
// writes the result into the title, which --dump-dom prints.
std::string withCheckScript(std::string html) {
    const std::string csp = "style-src 'unsafe-inline'";
    const auto at = html.find(csp);
    if (at != std::string::npos) html.insert(at + csp.size(), "; script-src 'unsafe-inline'");
    const std::string script = R"JS(<script>
var hsErrors = 0;
window.addEventListener('error', function () { hsErrors++; });
window.addEventListener('load', function () {
  var imgs = document.images, broken = 0;
  for (var i = 0; i < imgs.length; i++)
    if (!imgs[i].complete || imgs[i].naturalWidth === 0) broken++;
  var overflow = document.documentElement.scrollWidth - window.innerWidth;
  document.title = 'HSCHECK imgs=' + imgs.length + ' broken=' + broken + ' svgs=' +
    document.querySelectorAll('svg').length + ' sections=' +
    document.querySelectorAll('section').length + ' errors=' + hsErrors +
    ' overflow=' + overflow;
});
</script>)JS";
    const auto body = html.rfind("</body>");
    html.insert(body, script);
    return html;
}

}  // namespace

TEST(ReportChromium, RendersWithoutConsoleErrors) {
    if (!fs::exists(kChromium))
        GTEST_SKIP() << kChromium << " is absent: install it (apt-get install -y "
                     << "--no-install-recommends chromium) to run this test";
    TempDir dir;
    const Report report = test::makeComparisonReport();
    const fs::path html = dir.path / "report.html";
    writeReportHtml(html.string(), report);
    const std::string text = slurp(html);

    // 1. Screenshot of the report as written.
    const fs::path shot = dir.path / "shot.png";
    const fs::path log = dir.path / "shot.log";
    ASSERT_EQ(runChromium(dir.path, html, "--screenshot='" + shot.string() + "'",
                          dir.path / "shot.out", log),
              0)
        << slurp(log);
    const auto console = consoleLines(slurp(log));
    EXPECT_TRUE(console.empty()) << console.size() << " console lines, first: " << console.front();
    ASSERT_TRUE(fs::exists(shot)) << slurp(log);
    const Image img = readImage(shot.string(), 3);
    EXPECT_EQ(img.width, 1280);
    EXPECT_EQ(img.height, 2400);
    // Not blank: count distinct colours in a coarse sample.
    std::set<uint32_t> colours;
    for (int y = 0; y < img.height; y += 7)
        for (int x = 0; x < img.width; x += 7) {
            const uint8_t* p = img.at(x, y);
            colours.insert(uint32_t(p[0]) << 16 | uint32_t(p[1]) << 8 | p[2]);
        }
    EXPECT_GT(colours.size(), 50u);
    if (const char* keep = std::getenv("HALFSCOPE_SCREENSHOT"))
        fs::copy_file(shot, keep, fs::copy_options::overwrite_existing);

    // 2. The DOM after load, checked by an injected script.
    const fs::path checked = dir.path / "checked.html";
    std::ofstream(checked, std::ios::binary) << withCheckScript(text);
    const fs::path dom = dir.path / "dom.out";
    const fs::path log2 = dir.path / "dom.log";
    ASSERT_EQ(runChromium(dir.path, checked, "--dump-dom", dom, log2), 0) << slurp(log2);
    const auto console2 = consoleLines(slurp(log2));
    EXPECT_TRUE(console2.empty()) << console2.front();
    std::smatch m;
    const std::string out = slurp(dom);
    ASSERT_TRUE(std::regex_search(out, m,
                                  std::regex("HSCHECK imgs=(\\d+) broken=(\\d+) svgs=(\\d+) "
                                             "sections=(\\d+) errors=(\\d+) overflow=(-?\\d+)")))
        << out.substr(0, 400);
    size_t imgTags = 0;
    for (size_t p = text.find("<img "); p != std::string::npos; p = text.find("<img ", p + 1))
        ++imgTags;
    EXPECT_EQ(std::stoul(m[1]), imgTags);
    EXPECT_GT(imgTags, 40u);  // 2 x (final + saved + previews)
    EXPECT_EQ(std::stoi(m[2]), 0) << "images that did not decode";
    EXPECT_EQ(std::stoi(m[3]), 7);  // |max| curve, 2 x min/max, legend, 2 heatmaps, divergence
    EXPECT_EQ(std::stoi(m[4]), 12);
    EXPECT_EQ(std::stoi(m[5]), 0);
    EXPECT_LE(std::stoi(m[6]), 0) << "the page is wider than the window";
}
