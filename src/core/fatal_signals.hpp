// What tok does when a signal would end it: every terminating signal the
// process can catch (SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1/2, SIGALRM,
// SIGVTALRM, SIGPROF, SIGXCPU, real-time signals, and the crashes SIGSEGV,
// SIGBUS, SIGABRT, ...) first removes the temporary files of outputs still
// being written (AtomicFile), then ends the process with the signal's default
// action, so the parent still sees "killed by SIGINT". A SIGBUS from reading
// a mapped input that shrank is survived instead (MappedFile). SIGPIPE and
// SIGXFSZ are ignored: a closed pipe or a file size limit surfaces as a write
// error that the writer reports and cleans up after.
#pragma once

namespace tok {

// Installs the handlers; a signal that was ignored when tok started (nohup)
// stays ignored. Call once, from main, before any thread starts.
void install_fatal_signal_handlers();

// While one of these exists, asynchronous terminating signals (SIGINT, ...)
// are held back and acted on when the last one ends: used around creating a
// temporary and its registration, and around renaming several outputs into
// place, so a signal never leaves one half done. Works across threads (a
// process-wide count, not a per-thread mask). Crashes are never deferred.
class DeferSignals {
 public:
  DeferSignals();
  ~DeferSignals();
  DeferSignals(const DeferSignals&) = delete;
  DeferSignals& operator=(const DeferSignals&) = delete;
};

}  // namespace tok
