#include "core/fatal_signals.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>

#include "core/atomic_file.hpp"
#include "core/mapped_file.hpp"

namespace tok {
namespace {

std::atomic<int> g_defer{0};     // live DeferSignals objects
std::atomic<int> g_deferred{0};  // a signal that arrived meanwhile (0: none)

// Signals raised by the faulting instruction itself: they cannot wait.
bool synchronous(int sig) {
  return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL || sig == SIGTRAP ||
         sig == SIGSYS || sig == SIGABRT;
}

// Returns only in theory: raise() of a signal whose default action ends the
// process does not come back. It is deliberately not noreturn (no [[noreturn]],
// no _exit fallback the compiler would infer it from): under AddressSanitizer
// a call to a noreturn function is preceded by __asan_handle_no_return, which
// on the alternate signal stack asks for the thread's stack bounds and so
// calls calloc, and a signal that arrived while malloc held the allocator's
// lock then deadlocked in the handler.
void die_of(int sig) {
  remove_pending_temporaries();
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, sig);
  ::pthread_sigmask(SIG_UNBLOCK, &s, nullptr);
  ::raise(sig);
}

void on_fatal(int sig, siginfo_t* info, void*) {
  int saved = errno;
  if (sig == SIGBUS && info && recover_mapped_fault(info->si_addr)) {
    errno = saved;
    return;
  }
  if (!synchronous(sig) && g_defer.load() > 0) {
    g_deferred.store(sig);
    // The deferring side may have ended between the check and the store, and
    // then never sees the signal: act now (acting twice is harmless).
    if (g_defer.load() > 0) {
      errno = saved;
      return;
    }
  }
  die_of(sig);
}

// Under AddressSanitizer its own SIGSEGV/SIGFPE/SIGILL handlers print the
// report that matters more than a tidy exit.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

alignas(16) char g_alt_stack[64 * 1024];  // SIGSEGV from a stack overflow needs another stack

}  // namespace

DeferSignals::DeferSignals() { g_defer.fetch_add(1); }

DeferSignals::~DeferSignals() {
  if (g_defer.fetch_sub(1) == 1) {
    if (int sig = g_deferred.exchange(0)) die_of(sig);
  }
}

void install_fatal_signal_handlers() {
  stack_t st{};
  st.ss_sp = g_alt_stack;
  st.ss_size = sizeof(g_alt_stack);
  ::sigaltstack(&st, nullptr);
  std::int8_t sigs[64] = {SIGHUP,    SIGINT,  SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2,   SIGALRM,
                          SIGVTALRM, SIGPROF, SIGXCPU, SIGIO,   SIGPWR,  SIGSTKFLT, SIGSEGV,
                          SIGBUS,    SIGFPE,  SIGILL,  SIGTRAP, SIGSYS,  SIGABRT};
  int n = 20;
  for (int s = SIGRTMIN; s <= SIGRTMAX && n < 64; ++s) sigs[n++] = static_cast<std::int8_t>(s);
  for (int i = 0; i < n; ++i) {
    if (kSanitized && (sigs[i] == SIGSEGV || sigs[i] == SIGFPE || sigs[i] == SIGILL)) continue;
    struct sigaction old {};
    if (::sigaction(sigs[i], nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    struct sigaction sa {};
    sa.sa_sigaction = on_fatal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigfillset(&sa.sa_mask);  // one handler at a time
    ::sigaction(sigs[i], &sa, nullptr);
  }
}

}  // namespace tok
