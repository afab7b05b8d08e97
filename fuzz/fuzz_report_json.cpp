// libFuzzer target: reading a saved report (halfscope.report JSON, version 1). The input is the
// file's text. reportFromJson must either refuse it with a ReportFormatError naming the key path
// or give a Report that writes back to JSON and reads back again (the findings are recomputed
// from the records, so the diagnosis code runs on whatever records the file describes). Any
// other escape goes to hs::fuzz::escapedException (abort under HALFSCOPE_FUZZ_STRICT=1).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "fuzz_util.h"
#include "io/bounded_read.h"
#include "report/report_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        hs::checkJsonDepth(text);  // what readReportJson does before parsing
    } catch (const std::runtime_error&) {
        return 0;
    }
    try {
        const hs::Report report = hs::reportFromJson(text);
        const std::string again = hs::reportToJson(report);
        hs::reportFromJson(again);
    } catch (const hs::ReportFormatError&) {
    } catch (const std::exception& e) {
        hs::fuzz::escapedException(e);
    }
    return 0;
}
