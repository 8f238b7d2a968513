// Shared by the parts of `tok count`: the columns being counted (one per
// model, or one bare encoding), the per-input rows, and the rendering of the
// results as a table, JSON or CSV.
#pragma once

#include "cost/count_report.hpp"

namespace tok::cli {

// The report itself lives in cost (cost/count_report.hpp), so that Python's
// count_files builds the same JSON from it.
using Column = cost::CountColumn;
using Row = cost::CountRow;
using CountReport = cost::CountReport;
using cost::row_cost;
using cost::total_cost;

// Renderers (count_output.cpp). Each writes to stdout through Output.
void print_table(const CountReport& r);
// legacy: no -m and one encoding, {"encoding", "files", "total"}.
void print_json(const CountReport& r, bool legacy);
void print_csv(const CountReport& r);
// Warnings on stderr: windows exceeded, estimates, output limits.
void warn_limits(const CountReport& r);

}  // namespace tok::cli
