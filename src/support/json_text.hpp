// Internal: JSON text checked before it becomes a tree. nlohmann's parser, its tree's
// destructor and its serializer all recurse once per level of nesting, so a small file nested
// deeply (180 KB of brackets is 90,000 levels) overflows the stack of whatever reads it. Every
// JSON file clgemm and its tools read (tuning files, the tuner's state file) is checked here
// first, by a SAX pass that keeps its own stack and never recurses.
#pragma once

#include <cstddef>
#include <string>

namespace clgemm {

// The deepest nesting of arrays and objects accepted in a JSON file (a tuning file needs 4:
// the file, its entries, an entry, its options).
constexpr std::size_t kMaxJsonDepth = 64;

// Why `text` must not be parsed into a tree, or empty when it may be: it is not JSON (text
// after the value, a NUL byte, which nlohmann's parser takes for the end, included), it nests
// arrays and objects deeper than `max_depth` levels, or one object gives a key twice (which
// nlohmann would resolve silently to the last).
std::string json_text_problem(const std::string& text, std::size_t max_depth = kMaxJsonDepth);

}  // namespace clgemm
