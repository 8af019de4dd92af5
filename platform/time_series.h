// Time series (gpurf run --sample-interval N): every N cycles of the SM, what the counters
// added in that interval (IPC, issue stalls by reason, bank conflicts by kind, collector
// occupancy, cache hit ratios), one row per interval, as CSV or JSON lines (docs/results.md).
// The SM calls reach() before each cycle it ticks; the units' time-integrated counters are
// settled to each boundary (Unit::settle) without changing what they count later, so a run
// with a time series has the same statistics as one without. Every row is checked: the
// schedulers' cycles of that interval are all accounted for (issued or stalled for a reason).
#pragma once

#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "gpurf/modules/common/warp_inst.h"

namespace gpurf {

class Sm;
struct Stat;

class TimeSeries {
public:
  // `path` ends in .csv or .jsonl (else ConfigError naming --samples); `interval` >= 1.
  TimeSeries(const std::string& path, Cycle interval, Sm& sm);
  // The SM is about to tick cycle `now`: a row for every boundary up to `now`.
  void reach(Cycle now);
  // End of the run at cycle `end`: the rows up to it, the last one partial.
  void close(Cycle end);
  // A row whose identity broke (empty when all held).
  const std::string& error() const { return error_; }
  size_t rows() const { return rows_; }

private:
  // A column: the sum of some counters' elements, as counted so far.
  struct Counter {
    std::string name;
    std::vector<std::pair<const Stat*, size_t>> parts;
    uint64_t last = 0; // its value at the previous boundary
  };
  // A hit ratio: counter `hits` over the sum of counters `over`.
  struct Ratio {
    std::string name;
    int hits;
    std::vector<unsigned> over;
  };
  void add(const std::string& kind, const std::string& stat, const std::string& column);
  void ratio(const std::string& name, std::vector<std::string> parts, const std::string& over = "");
  uint64_t value(const Counter& c) const;
  int find(const std::string& name) const; // the counter's index, or -1
  uint64_t delta(const std::string& name) const;
  void row(Cycle at);
  void write_header();

  std::ofstream out_;
  bool csv_ = true;
  Cycle interval_, from_ = 0, next_;
  Sm& sm_;
  uint64_t retired_ = 0;
  unsigned schedulers_ = 0;
  std::vector<Counter> counters_;
  std::vector<Ratio> ratios_;
  std::vector<uint64_t> deltas_; // of the row being written, by counter
  std::string error_;
  size_t rows_ = 0;
  bool closed_ = false;
};

} // namespace gpurf
