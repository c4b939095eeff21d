// Fuzzes the option-string parser (clgemm/kernels.hpp): parse_option_assignment ("TILE=8") and
// parse_kernel_selection ("coarsened:TILE=16,ITEM=4", the C API's kernel argument) on arbitrary
// bytes. Oracle: only clgemm::Error (code InvalidOption) may escape; a successful parse gives an
// identifier name and, formatted again (as "kernel:NAME=value,..." and through
// format_build_options' "-D NAME=value"), parses back to the same result; an assignment parses
// alone exactly when it parses as the only override of a selection.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "clgemm/errors.hpp"
#include "clgemm/kernels.hpp"

namespace {

[[noreturn]] void fail(const std::string& what, const std::string& input) {
  std::fprintf(stderr, "fuzz_option_parser: %s\n  input: '%s' (%zu bytes)\n", what.c_str(),
               input.c_str(), input.size());
  std::abort();
}

bool is_identifier(const std::string& s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
      return false;
  return true;
}

std::string format_selection(const clgemm::KernelSelection& selection) {
  std::string text = selection.kernel;
  const char* separator = ":";
  for (const auto& [name, value] : selection.overrides) {
    text += separator + name + "=" + std::to_string(value);
    separator = ",";
  }
  return text;
}

// The parameters of format_build_options' "-D A=1 -D B=2", read back with the public parser.
clgemm::KernelOptions parse_build_options(const std::string& text, const std::string& input) {
  clgemm::KernelOptions options;
  std::size_t at = 0;
  while (at < text.size()) {
    if (text.compare(at, 3, "-D ") != 0) fail("format_build_options gave '" + text + "'", input);
    at += 3;
    const std::size_t end = std::min(text.find(' ', at), text.size());
    const auto [name, value] = clgemm::parse_option_assignment(text.substr(at, end - at));
    if (!options.emplace(name, value).second) fail("format_build_options repeats " + name, input);
    at = end + 1;
  }
  return options;
}

// Runs `parse`; returns whether it succeeded. Anything but an InvalidOption Error aborts.
template <typename Parse>
bool parses(Parse&& parse, const char* what, const std::string& input) {
  try {
    parse();
    return true;
  } catch (const clgemm::Error& error) {
    if (error.code() != clgemm::ErrorCode::InvalidOption)
      fail(std::string(what) + " threw clgemm::Error of code " +
               clgemm::error_code_name(error.code()) + ": " + error.what(),
           input);
    return false;
  } catch (const std::exception& error) {
    fail(std::string(what) + " threw a non-clgemm exception: " + error.what(), input);
  } catch (...) {
    fail(std::string(what) + " threw something that is not a std::exception", input);
  }
}

void check_assignment(const std::string& text) {
  std::pair<std::string, long> parsed;
  const bool ok = parses([&] { parsed = clgemm::parse_option_assignment(text); },
                         "parse_option_assignment", text);
  if (ok) {
    if (!is_identifier(parsed.first)) fail("accepted a name that is no identifier", text);
    const std::string again = parsed.first + "=" + std::to_string(parsed.second);
    std::pair<std::string, long> reparsed;
    if (!parses([&] { reparsed = clgemm::parse_option_assignment(again); },
                "parse_option_assignment (re-parse)", text) ||
        reparsed != parsed)
      fail("'" + again + "' does not parse back to the same assignment", text);
  }
  // Without a comma, the text is one override of a selection; it must be accepted there too.
  if (text.find(',') == std::string::npos) {
    clgemm::KernelSelection selection;
    const bool as_override =
        parses([&] { selection = clgemm::parse_kernel_selection("tile:" + text); },
               "parse_kernel_selection (as an override)", text);
    if (as_override != ok)
      fail(std::string("the assignment ") + (ok ? "parses" : "fails") +
               " alone but not as the override of 'tile:'",
           text);
    if (ok &&
        (selection.overrides.size() != 1 || selection.overrides.begin()->first != parsed.first ||
         selection.overrides.begin()->second != parsed.second))
      fail("the override differs from the assignment parsed alone", text);
  }
}

void check_selection(const std::string& text) {
  clgemm::KernelSelection selection;
  if (!parses([&] { selection = clgemm::parse_kernel_selection(text); }, "parse_kernel_selection",
              text))
    return;
  if (selection.kernel.empty()) fail("the kernel name is empty (expected 'auto')", text);
  if (selection.kernel.find(':') != std::string::npos) fail("the kernel name holds ':'", text);
  if (text.find(':') == std::string::npos && !selection.overrides.empty())
    fail("overrides without a ':'", text);
  for (const auto& [name, value] : selection.overrides)
    if (!is_identifier(name))
      fail("accepted an override name that is no identifier: " + name, text);

  const std::string again = format_selection(selection);
  clgemm::KernelSelection reparsed;
  if (!parses([&] { reparsed = clgemm::parse_kernel_selection(again); },
              "parse_kernel_selection (re-parse)", text) ||
      reparsed.kernel != selection.kernel || reparsed.overrides != selection.overrides)
    fail("'" + again + "' does not parse back to the same selection", text);

  const std::string build_options = clgemm::format_build_options(selection.overrides);
  clgemm::KernelOptions from_build;
  if (!parses([&] { from_build = parse_build_options(build_options, text); },
              "parse_option_assignment (of format_build_options)", text) ||
      from_build != selection.overrides)
    fail("format_build_options gave '" + build_options + "', which does not read back", text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  check_selection(text);
  check_assignment(text);
  return 0;
}
