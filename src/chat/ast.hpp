// The syntax tree of a chat template: one node type with a kind and up to
// three child slots plus child lists, as @huggingface/jinja's parser builds
// it (statements and expressions alike).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tok::chat {

enum class NodeKind {
  // Statements
  kText,
  kIf,
  kFor,
  kSet,
  kMacro,
  kCallBlock,
  kFilterBlock,
  kBreak,
  kContinue,
  kComment,
  // Expressions
  kInt,
  kFloat,
  kString,
  kArray,
  kTuple,
  kObject,
  kIdent,
  kCall,
  kMember,
  kSlice,
  kUnary,
  kBinary,
  kFilter,
  kTest,
  kSelect,
  kTernary,
  kKwarg,
  kSpread,
  kKwSpread
};

struct Node;
using NodePtr = std::unique_ptr<Node>;
using NodeList = std::vector<NodePtr>;

struct Node {
  NodeKind kind;
  std::size_t pos = 0;  // byte offset in the preprocessed template
  std::string str;      // text, identifier, string literal, operator, test or macro name
  std::int64_t ival = 0;
  double fval = 0;
  bool flag = false;  // kMember: computed ([...]); kTest: negated
  NodePtr x, y, z;    // see the parser for each kind's slots
  NodeList a, b;

  Node(NodeKind k, std::size_t p) : kind(k), pos(p) {}
};

// Slots:
//   kIf: x test, a body, b else (an elif is one kIf in b)
//   kFor: x loop variable (kIdent or kTuple), y iterable, z filter (for ... if),
//         a body, b else
//   kSet: x target, y value (or null: block set, body in a)
//   kMacro: str name, a parameters (kIdent or kKwarg), b body
//   kCallBlock: x the call (kCall), a caller parameters, b body
//   kFilterBlock: x filter (kIdent or kCall), a body
//   kArray/kTuple: a items; kObject: a keys, b values
//   kCall: x callee, a arguments (kKwarg, kSpread, kKwSpread or expressions)
//   kMember: x object, y property; kSlice: x start, y stop, z step (each may be null)
//   kUnary: str op, x; kBinary: str op, x, y; kFilter: x operand, y filter (kIdent or kCall)
//   kTest: x operand, str test; kSelect: x value, y condition
//   kTernary: x condition, y if true, z if false; kKwarg: str key, x value
struct Program {
  std::vector<std::uint32_t> lines;  // the template line of each preprocessed byte (lexer.hpp)
  NodeList body;
  std::size_t line_of(std::size_t pos) const {
    return lines.empty() ? 1 : lines[pos < lines.size() ? pos : lines.size() - 1];
  }
};

}  // namespace tok::chat
