// Result<T>: a value or an Error carrying a human-readable, one-line message.
// Loaders and parsers return it; only cli/ turns an Error into "tok: error: ..."
// and an exit status. The message names the file, the position and what to do.
#pragma once

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <variant>

namespace tok {

struct Error {
  std::string message;
};

template <class... Args>
[[nodiscard]] Error make_error(fmt::format_string<Args...> f, Args&&... args) {
  return Error{fmt::format(f, std::forward<Args>(args)...)};
}

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Error error) : v_(std::move(error)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// Result<void>.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error e) : error_(std::move(e)), ok_(false) {}
  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

}  // namespace tok

// Propagate an error from an expression returning Result<T> or Status.
#define TOK_TRY(expr)                                          \
  do {                                                         \
    auto&& tok_try_ = (expr);                                  \
    if (!tok_try_.ok()) return ::tok::Error{tok_try_.error()}; \
  } while (0)

// Bind the value of a Result<T> or return its error.
#define TOK_CONCAT_INNER(a, b) a##b
#define TOK_CONCAT(a, b) TOK_CONCAT_INNER(a, b)
#define TOK_ASSIGN(lhs, expr) TOK_ASSIGN_IMPL(TOK_CONCAT(tok_res_, __LINE__), lhs, expr)
#define TOK_ASSIGN_IMPL(tmp, lhs, expr)            \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return ::tok::Error{tmp.error()}; \
  lhs = std::move(tmp).value()

// Invariant check that stays on in release builds: a broken invariant is a
// bug in tok, never a user error, so it aborts with the location.
#define TOK_ASSERT(cond)                                                                   \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      std::fprintf(stderr, "tok: internal error: %s:%d: assertion failed: %s\n", __FILE__, \
                   __LINE__, #cond);                                                       \
      std::abort();                                                                        \
    }                                                                                      \
  } while (0)
