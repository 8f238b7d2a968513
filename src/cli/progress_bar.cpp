#include "cli/progress_bar.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <exception>

namespace tok::cli {

bool stderr_is_terminal() { return ::isatty(2) == 1; }

ProgressBar::ProgressBar(std::string label, std::uint64_t total, Unit unit,
                         std::function<std::uint64_t()> done, bool enabled)
    : label_(std::move(label)),
      total_(total),
      unit_(unit),
      done_(std::move(done)),
      start_(std::chrono::steady_clock::now()) {
  // A thread of its own, not core's pool: it runs beside the work for the
  // whole command, waking on a timer, where a pool thread would be one the
  // work cannot use (ThreadPool::run blocks its caller until every thread is
  // done). loop() lets nothing escape, so it can never terminate tok.
  if (enabled && stderr_is_terminal()) thread_ = std::thread([this] { loop(); });
}

ProgressBar::~ProgressBar() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
  try {
    draw(true);
  } catch (const std::exception&) {
    // As in loop(): a destructor must not throw, and the line is only a display.
  }
}

void ProgressBar::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, std::chrono::milliseconds(200), [this] { return stop_; })) {
    try {
      draw(false);
    } catch (const std::exception&) {
      // Out of memory formatting the line: skip this redraw (the work
      // reports the error, if it is one, on its own thread).
    }
  }
}

void ProgressBar::draw(bool final) {
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::uint64_t done = done_();
  double rate = secs > 0 ? done / secs : 0;
  std::string line;
  if (unit_ == Unit::kBytes) {
    line = fmt::format("{}: {:.1f} / {:.1f} MB, {:.1f} MB/s", label_, done / 1e6, total_ / 1e6,
                       rate / 1e6);
  } else {
    line = fmt::format("{}: {} / {}, {:.0f}/s", label_, done, total_, rate);
  }
  if (total_ > 0) {
    double frac = std::min(1.0, static_cast<double>(done) / total_);
    constexpr int kWidth = 24;
    int filled = static_cast<int>(frac * kWidth);
    line = fmt::format("[{}{}] {:3.0f}% ", std::string(filled, '#'),
                       std::string(kWidth - filled, '.'), frac * 100) +
           line;
    if (!final && rate > 0 && done < total_)
      line += fmt::format(", ETA {:.0f} s", (total_ - done) / rate);
  }
  std::fprintf(stderr, "\r\033[K%s%s", line.c_str(), final ? "\n" : "");
  std::fflush(stderr);
}

}  // namespace tok::cli
