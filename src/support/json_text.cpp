// JSON text checked before it becomes a tree (see json_text.hpp): one SAX pass of nlohmann's
// parser, whose own stack is a vector, with a depth counter and the keys of each open object.
#include "support/json_text.hpp"

#include <nlohmann/json.hpp>
#include <set>
#include <vector>

namespace clgemm {
namespace {

using nlohmann::json;

// Stops the pass (by returning false) at the first level past the limit or the first key
// given twice, keeping the reason; a syntax error is kept the same way.
class StructureCheck : public json::json_sax_t {
 public:
  explicit StructureCheck(std::size_t max_depth) : max_depth_(max_depth) {}

  std::string problem;

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    open_objects_.emplace_back();
    return enter();
  }
  bool key(string_t& name) override {
    if (!open_objects_.empty() && !open_objects_.back().insert(name).second) {
      problem = "gives the key \"" + printable(name) + "\" twice in one object";
      return false;
    }
    return true;
  }
  bool end_object() override {
    open_objects_.pop_back();
    --depth_;
    return true;
  }
  bool start_array(std::size_t) override {
    open_objects_.emplace_back();  // an array has no keys; kept so that the levels pair up
    return enter();
  }
  bool end_array() override {
    open_objects_.pop_back();
    --depth_;
    return true;
  }
  bool parse_error(std::size_t, const std::string&,
                   const nlohmann::detail::exception& error) override {
    problem = std::string("is not valid JSON: ") + error.what();
    return false;
  }

 private:
  bool enter() {
    if (++depth_ <= max_depth_) return true;
    problem = "nests arrays and objects deeper than " + std::to_string(max_depth_) + " levels";
    return false;
  }

  // A key for a message: at most 40 bytes, control characters as '?'.
  static std::string printable(const std::string& name) {
    std::string out = name.substr(0, 40);
    for (char& c : out)
      if (static_cast<unsigned char>(c) < 0x20) c = '?';
    return name.size() > 40 ? out + "..." : out;
  }

  std::size_t max_depth_;
  std::size_t depth_ = 0;
  std::vector<std::set<std::string>> open_objects_;
};

}  // namespace

std::string json_text_problem(const std::string& text, std::size_t max_depth) {
  if (const auto nul = text.find('\0'); nul != std::string::npos)
    return "is not valid JSON: a NUL byte at byte " + std::to_string(nul);
  StructureCheck check(max_depth);
  try {
    json::sax_parse(text, &check);
  } catch (const json::exception& error) {
    return std::string("is not valid JSON: ") + error.what();
  }
  return check.problem;
}

}  // namespace clgemm
