#pragma once
// CSV tables of a report (RFC 4180: comma-separated, fields with a comma, quote or line break
// quoted, quotes doubled; "\n" line ends; a header row); text cells that start like a formula
// are neutralised (csvField). Numbers use '.', up to 10 significant
// digits; a non-finite number is an empty field. Several runs go into one table, told apart by
// the "run" (0-based) and "label" columns. No LibTorch.
//
// steps:  run,label,step,sigma,timestep,seconds, then for each of latent, velocity, denoised:
//         <x>_count,<x>_finite,<x>_min,<x>_max,<x>_abs_max,<x>_mean,<x>_std,<x>_nan,<x>_pos_inf,
//         <x>_neg_inf,<x>_over_fp16,<x>_subnormal_fp16
// layers: run,label,index,name,block,component,stage,step,granularity,format,execution,count,
//         finite,min,max,abs_max,mean,std,nan,pos_inf,neg_inf,over_fp16,subnormal_fp16,
//         headroom_bits        (stage: text, step or decode; one row per probe record)
#include <string>

#include "report/report_types.h"

namespace hs {

std::string stepsCsv(const Report& report);
std::string layersCsv(const Report& report);
// Atomic (temporary file + rename). Throw FileError.
void writeStepsCsv(const std::string& path, const Report& report);
void writeLayersCsv(const std::string& path, const Report& report);

// One text field, quoted when needed; a field starting with = + - @ tab or CR is neutralised
// against spreadsheet formula injection: "'=cmd()" (quoted, with a leading '). Number columns do
// not pass through it. Exposed for tests.
std::string csvField(const std::string& s);

}  // namespace hs
