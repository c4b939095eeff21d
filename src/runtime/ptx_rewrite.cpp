// The PTX rewrite (see ptx_rewrite.hpp): one pass over the lines that tracks /* */ comments,
// turns marked comments into code, checks every other "//@", and retargets the one .target
// directive; the .version directive is checked against what sm_90a needs.
#include "runtime/ptx_rewrite.hpp"

#include <cctype>
#include <optional>
#include <vector>

#include "clgemm/errors.hpp"

namespace clgemm::detail {
namespace {

constexpr std::size_t kMarkerLength = 3;  // "//@"

bool is_blank(char c) {
  return c == ' ' || c == '\t';
}

std::string trimmed(const std::string& s) {
  std::size_t begin = 0, end = s.size();
  while (begin < end && (is_blank(s[begin]) || s[begin] == '\r')) ++begin;
  while (end > begin && (is_blank(s[end - 1]) || s[end - 1] == '\r')) --end;
  return s.substr(begin, end - begin);
}

// The line as an error message quotes it: without its indentation, at most 100 characters.
std::string quoted(const std::string& line) {
  std::string text = trimmed(line);
  if (text.size() > 100) text = text.substr(0, 97) + "...";
  return "'" + text + "'";
}

[[noreturn]] void fail(std::size_t line_number, const std::string& line, const std::string& what) {
  throw Error(ErrorCode::BuildFailed, "PTX rewrite to sm_90a: line " + std::to_string(line_number) +
                                          " " + quoted(line) + ": " + what);
}

[[noreturn]] void fail(const std::string& what) {
  throw Error(ErrorCode::BuildFailed, "PTX rewrite to sm_90a: " + what);
}

bool starts_at(const std::string& s, std::size_t at, const char* prefix) {
  return s.compare(at, std::char_traits<char>::length(prefix), prefix) == 0;
}

// The directive a line begins with (".target", ".version", ...), or "" when it begins with
// something else. `first` is the line's first non-blank character.
std::string directive(const std::string& line, std::size_t first) {
  if (first >= line.size() || line[first] != '.') return "";
  std::size_t end = first + 1;
  while (end < line.size() &&
         (std::isalnum(static_cast<unsigned char>(line[end])) || line[end] == '_'))
    ++end;
  return line.substr(first, end - first);
}

// The marked statement of a marker line (after "//@" and its blanks), checked.
std::string marked_statement(std::size_t number, const std::string& line, std::size_t marker) {
  const std::size_t after = marker + kMarkerLength;
  const std::string statement = trimmed(line.substr(after));
  if (statement.empty()) fail(number, line, "the marker '//@' has no statement after it");
  if (!is_blank(line[after]))
    fail(number, line, "the marker '//@' must be followed by a blank, then the statement");
  if (statement.back() != ';')
    fail(number, line, "the marked statement does not end in ';' (one PTX statement per marker)");
  if (statement.find("/*") != std::string::npos)
    fail(number, line, "the marked statement holds '/*', which would comment out what follows");
  for (std::size_t i = 0; i + 1 < statement.size(); ++i) {
    if (statement[i] != '%') continue;
    const char next = statement[i + 1];
    if (std::isdigit(static_cast<unsigned char>(next)) || next == '[') {
      std::size_t end = i + 1;
      while (end < statement.size() && !is_blank(statement[end]) && statement[end] != ',' &&
             statement[end] != '}' && statement[end] != ';')
        ++end;
      fail(number, line,
           "operand '" + statement.substr(i, end - i) +
               "' was not replaced by a register: a marker must be in the string of an asm "
               "statement whose operands the compiler substitutes");
    }
  }
  return statement;
}

// The .target directive's entries, each with its offset in the line.
struct TargetEntry {
  std::string name;
  std::size_t at = 0;
};

std::vector<TargetEntry> target_entries(const std::string& line, std::size_t first) {
  std::size_t end = line.find("//", first);
  if (end == std::string::npos) end = line.size();
  std::vector<TargetEntry> entries;
  std::size_t at = first + std::char_traits<char>::length(".target");
  while (at < end) {
    while (at < end && (is_blank(line[at]) || line[at] == ',' || line[at] == '\r')) ++at;
    std::size_t stop = at;
    while (stop < end && !is_blank(line[stop]) && line[stop] != ',' && line[stop] != '\r') ++stop;
    if (stop > at) entries.push_back({line.substr(at, stop - at), at});
    at = stop;
  }
  return entries;
}

// Retargets a .target line to sm_90a in place, or says why it cannot be.
std::string retargeted(std::size_t number, const std::string& line, std::size_t first) {
  const auto entries = target_entries(line, first);
  std::optional<TargetEntry> architecture;
  for (const auto& entry : entries) {
    if (entry.name.rfind("sm_", 0) == 0) {
      if (architecture) fail(number, line, "the .target directive names two sm_ targets");
      architecture = entry;
    } else if (entry.name != "texmode_independent" && entry.name != "texmode_unified" &&
               entry.name != "debug" && entry.name != "map_f64_to_f32") {
      fail(number, line, "unknown target '" + entry.name + "' in the .target directive");
    }
  }
  if (!architecture) fail(number, line, "the .target directive names no sm_ target");
  if (architecture->name == "sm_90a") return line;  // rewritten already
  if (architecture->name != "sm_90")
    fail(number, line,
         "the PTX targets " + architecture->name +
             ", but the rewrite to sm_90a takes PTX compiled for sm_90 (compute capability 9.0)");
  std::string out = line;
  out.insert(architecture->at + architecture->name.size(), "a");
  return out;
}

// The PTX ISA version of a .version line, checked against sm_90a's 8.0.
void check_version(std::size_t number, const std::string& line, std::size_t first) {
  std::size_t at = first + std::char_traits<char>::length(".version");
  while (at < line.size() && is_blank(line[at])) ++at;
  std::size_t end = at;
  while (end < line.size() && std::isdigit(static_cast<unsigned char>(line[end]))) ++end;
  if (end == at || end >= line.size() || line[end] != '.')
    fail(number, line, "the .version directive is not of the form MAJOR.MINOR");
  int major = 0;
  for (std::size_t i = at; i < end && major < 8; ++i) major = major * 10 + (line[i] - '0');
  if (major < 8) fail(number, line, "sm_90a needs PTX ISA 8.0 or newer");
}

RewrittenPtx rewrite_to_sm90a(const std::string& ptx) {
  RewrittenPtx out;
  out.text.reserve(ptx.size() + 16);
  bool in_block_comment = false;
  std::size_t target_line = 0, version_line = 0;
  std::size_t number = 0;
  for (std::size_t begin = 0; begin <= ptx.size();) {
    std::size_t end = ptx.find('\n', begin);
    const bool last = end == std::string::npos;
    if (last) end = ptx.size();
    const std::string line = ptx.substr(begin, end - begin);
    ++number;
    std::size_t first = 0;
    while (first < line.size() && is_blank(line[first])) ++first;

    const bool block_comment_at_start = in_block_comment;
    std::optional<std::size_t> marker;
    bool line_comment = false;
    for (std::size_t at = 0; at < line.size();) {
      if (in_block_comment) {
        if (starts_at(line, at, "*/")) {
          in_block_comment = false;
          at += 2;
          continue;
        }
        if (starts_at(line, at, kPtxMarker))
          fail(number, line, "a marker '//@' inside a /* */ comment would stay a comment");
        ++at;
        continue;
      }
      if (starts_at(line, at, kPtxMarker)) {
        if (at != first || line_comment)
          fail(number, line,
               "'//@' after other text: a marker must begin its line (only blanks before it)");
        marker = at;
        line_comment = true;
        at += kMarkerLength;
        continue;
      }
      if (line_comment) {
        ++at;
        continue;
      }
      if (starts_at(line, at, "//")) {
        line_comment = true;
        at += 2;
      } else if (starts_at(line, at, "/*")) {
        in_block_comment = true;
        at += 2;
      } else {
        ++at;
      }
    }

    std::string rewritten = line;
    if (marker) {
      const std::string statement = marked_statement(number, line, *marker);
      rewritten = line.substr(0, first) + statement + (line.back() == '\r' ? "\r" : "");
      ++out.markers;
    } else if (!block_comment_at_start) {
      const std::string name = directive(line, first);
      if (name == ".target") {
        if (target_line)
          fail(number, line,
               "a second .target directive (the first is on line " + std::to_string(target_line) +
                   ")");
        target_line = number;
        rewritten = retargeted(number, line, first);
      } else if (name == ".version") {
        if (version_line)
          fail(number, line,
               "a second .version directive (the first is on line " + std::to_string(version_line) +
                   ")");
        version_line = number;
        check_version(number, line, first);
      }
    }
    out.text += rewritten;
    if (last) break;
    out.text += '\n';
    begin = end + 1;
  }
  if (!target_line) fail("the PTX has no .target directive to change to sm_90a");
  if (!version_line) fail("the PTX has no .version directive (sm_90a needs PTX ISA 8.0)");
  return out;
}

}  // namespace

const char* ptx_rewrite_name(PtxRewrite rewrite) {
  switch (rewrite) {
    case PtxRewrite::None:
      return "none";
    case PtxRewrite::Sm90a:
      return "sm_90a";
  }
  return "unknown";
}

bool runs_sm90a(const DeviceLimits& device) {
  return device.vendor.find("NVIDIA") != std::string::npos && device.compute_capability == 90;
}

RewrittenPtx rewrite_ptx(const std::string& ptx, PtxRewrite rewrite) {
  // Drivers may count a terminating NUL in a binary's size: set it aside, put it back after.
  std::size_t text_end = ptx.size();
  while (text_end > 0 && ptx[text_end - 1] == '\0') --text_end;
  const std::string text = ptx.substr(0, text_end), nuls = ptx.substr(text_end);

  if (rewrite == PtxRewrite::None) {
    std::size_t number = 0;
    for (std::size_t begin = 0; begin < text.size();) {
      std::size_t end = text.find('\n', begin);
      if (end == std::string::npos) end = text.size();
      const std::string line = text.substr(begin, end - begin);
      ++number;
      std::size_t first = 0;
      while (first < line.size() && is_blank(line[first])) ++first;
      if (starts_at(line, first, kPtxMarker))
        throw Error(ErrorCode::BuildFailed,
                    "PTX line " + std::to_string(number) + " " + quoted(line) +
                        " holds the marker '//@', but its build did not ask for the PTX rewrite to "
                        "sm_90a (KernelSpec::ptx_rewrite): the marked statement would be missing");
      begin = end + 1;
    }
    return {ptx, 0};
  }
  RewrittenPtx out = rewrite_to_sm90a(text);
  out.text += nuls;
  return out;
}

}  // namespace clgemm::detail
