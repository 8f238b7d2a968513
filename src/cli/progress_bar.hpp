// ProgressBar: a one-line progress display on stderr, redrawn a few times a
// second by its own thread from a counter the worker updates. It draws only
// when stderr is a terminal, so logs and pipes stay clean.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace tok::cli {

class ProgressBar {
 public:
  enum class Unit { kBytes, kCount };
  // done() is polled; total 0 means unknown. Draws nothing when disabled or
  // when stderr is not a terminal.
  ProgressBar(std::string label, std::uint64_t total, Unit unit,
              std::function<std::uint64_t()> done, bool enabled);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

 private:
  void loop();
  void draw(bool final);

  std::string label_;
  std::uint64_t total_;
  Unit unit_;
  std::function<std::uint64_t()> done_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

// True when stderr is a terminal.
bool stderr_is_terminal();

}  // namespace tok::cli
