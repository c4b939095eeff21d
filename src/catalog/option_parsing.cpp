// Reading kernel parameters as users write them ("TILE=8", "coarsened:TILE=16,ITEM=4"): the
// one parser behind the C API's kernel argument and the tools' -D options. Every malformed
// text is an Error(InvalidOption) that quotes it; nothing is read past a mistake.
#include <cctype>
#include <cerrno>
#include <cstdlib>

#include "clgemm/errors.hpp"
#include "clgemm/kernels.hpp"
#include "support/error_boundary.hpp"

namespace clgemm {
namespace {

std::string trim(const std::string& s) {
  std::size_t begin = 0, end = s.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(s[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(s[end - 1]))) --end;
  return s.substr(begin, end - begin);
}

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (unsigned char c : s)
    if (!std::isalnum(c) && c != '_') return false;
  return true;
}

[[noreturn]] void malformed(const std::string& text, const std::string& why) {
  throw Error(ErrorCode::InvalidOption,
              "kernel parameter '" + text + "' " + why + " (expected NAME=integer, e.g. TILE=8)",
              Argument::Kernel);
}

}  // namespace

std::pair<std::string, long> parse_option_assignment(const std::string& text) try {
  const std::size_t equals = text.find('=');
  if (equals == std::string::npos) malformed(text, "has no '='");
  const std::string name = trim(text.substr(0, equals));
  const std::string value = trim(text.substr(equals + 1));
  if (name.empty()) malformed(text, "has no name before '='");
  if (!is_identifier(name)) malformed(text, "has a name that is not an identifier");
  if (value.empty()) malformed(text, "has no value after '='");
  const std::size_t digits = (value[0] == '-' || value[0] == '+') ? 1 : 0;
  if (digits == value.size()) malformed(text, "has no digits in its value");
  for (std::size_t i = digits; i < value.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(value[i])))
      malformed(text, "has a value that is not a decimal integer");
  errno = 0;
  const long number = std::strtol(value.c_str(), nullptr, 10);
  if (errno == ERANGE) malformed(text, "has a value outside the range of a long");
  return {name, number};
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

KernelSelection parse_kernel_selection(const std::string& text) try {
  KernelSelection selection;
  const std::size_t colon = text.find(':');
  const std::string name = trim(text.substr(0, colon));
  if (!name.empty()) selection.kernel = name;
  if (colon == std::string::npos) return selection;
  std::size_t start = colon + 1;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const auto [option, value] = parse_option_assignment(text.substr(start, comma - start));
    if (!selection.overrides.emplace(option, value).second)
      throw Error(ErrorCode::InvalidOption,
                  "kernel parameter " + option + " is given twice in '" + text + "'",
                  Argument::Kernel);
    start = comma + 1;
  }
  return selection;
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

}  // namespace clgemm
