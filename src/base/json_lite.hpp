// A small JSON reader and the writer's string escaping, for the two files the block copier reads
// (its calibration cache and a `pinbench blocks --recommend` rules file). The transfer library
// carries no JSON library of its own (its consumers link nothing of ours but it), and these files
// are small, so a strict reader of plain JSON is enough: objects, arrays, strings with the usual
// escapes, numbers, true, false and null. Anything else, or more than 64 levels deep, is refused
// with the byte offset where reading stopped. No CUDA, no threads.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace pinbench::json_lite {

// Malformed text: what was wrong and where.
class ParseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Value {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool boolean = false;
  double number = 0.0;
  std::string text;
  std::vector<Value> items;              // kArray
  std::map<std::string, Value> members;  // kObject (a repeated key is refused)

  bool is(Kind k) const { return kind == k; }
  // The member `key` of an object, or nullptr when absent (or this is not an object).
  const Value* find(const std::string& key) const;
};

// Throws ParseError for anything but one JSON value, optionally surrounded by white space.
Value parse(std::string_view text);

// `s` as a JSON string literal, quotes included.
std::string quote(std::string_view s);

// What kind of value this is, in words ("a number"), for error messages.
const char* kind_words(Value::Kind k);

}  // namespace pinbench::json_lite
