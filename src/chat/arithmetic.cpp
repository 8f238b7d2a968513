// Arithmetic and comparison of numbers (Interpreter::numeric), as
// @huggingface/jinja computes them (`/` always gives a float, `%` takes the
// sign of the dividend, `//` floors, a division by zero gives Infinity or
// NaN) but with integers exact in 64 bits: where Python's big integers would
// grow past them (2**63, 9223372036854775807 + 1, INT64_MIN // -1) the render
// stops with "integer overflow" instead of wrapping or trapping.
#include <cmath>
#include <cstdint>

#include "chat/interpreter.hpp"

namespace tok::chat {

namespace {

// base ** exp for exp >= 0 by squaring; false on overflow.
bool int_pow(std::int64_t base, std::int64_t exp, std::int64_t* out) {
  std::int64_t r = 1;
  while (exp > 0) {
    if ((exp & 1) && __builtin_mul_overflow(r, base, &r)) return false;
    exp >>= 1;
    if (exp > 0 && __builtin_mul_overflow(base, base, &base)) return false;
  }
  *out = r;
  return true;
}

std::int64_t as_int(const Value& v) { return v.kind == Kind::kInt ? v.i : v.b ? 1 : 0; }

}  // namespace

Value Interpreter::numeric(const std::string& op, const Value& l, const Value& r) {
  bool ints = l.kind != Kind::kFloat && r.kind != Kind::kFloat;  // integers or booleans
  auto overflow = [&]() -> Value {
    fail("integer overflow in '" + op + "' (results must fit in 64 bits)");
  };
  double a = l.number(), b = r.number();
  if (op == "**") {
    if (a == 0 && b < 0) fail("0.0 cannot be raised to a negative power");
    if (ints && as_int(r) >= 0) {
      std::int64_t res;
      return int_pow(as_int(l), as_int(r), &res) ? Value::integer(res) : overflow();
    }
    double res = std::pow(a, b);
    if (!std::isfinite(res)) fail("'**' result is not a finite number");
    return Value::real(res);
  }
  if (ints) {
    std::int64_t x = as_int(l), y = as_int(r), res = 0;
    if (op == "+") return __builtin_add_overflow(x, y, &res) ? overflow() : Value::integer(res);
    if (op == "-") return __builtin_sub_overflow(x, y, &res) ? overflow() : Value::integer(res);
    if (op == "*") return __builtin_mul_overflow(x, y, &res) ? overflow() : Value::integer(res);
    if (op == "/") return Value::real(a / b);
    if (op == "//") {
      if (y == 0) return Value::real(std::floor(a / b));
      if (x == INT64_MIN && y == -1) return overflow();
      std::int64_t q = x / y;
      if (x % y != 0 && ((x < 0) != (y < 0))) --q;
      return Value::integer(q);
    }
    if (op == "%") {
      if (y == 0) return Value::real(std::fmod(a, b));
      // INT64_MIN % -1 traps on x86 although its value is 0.
      return Value::integer(y == -1 ? 0 : x % y);
    }
    if (op == "<") return Value::boolean(x < y);
    if (op == ">") return Value::boolean(x > y);
    if (op == "<=") return Value::boolean(x <= y);
    if (op == ">=") return Value::boolean(x >= y);
  } else {
    if (op == "+") return Value::real(a + b);
    if (op == "-") return Value::real(a - b);
    if (op == "*") return Value::real(a * b);
    if (op == "/") return Value::real(a / b);
    if (op == "//") return Value::real(std::floor(a / b));
    if (op == "%") return Value::real(std::fmod(a, b));
    if (op == "<") return Value::boolean(a < b);
    if (op == ">") return Value::boolean(a > b);
    if (op == "<=") return Value::boolean(a <= b);
    if (op == ">=") return Value::boolean(a >= b);
  }
  fail("unsupported operator '" + op + "' between " + std::string(kind_name(l.kind)) + " and " +
       std::string(kind_name(r.kind)));
}

}  // namespace tok::chat
