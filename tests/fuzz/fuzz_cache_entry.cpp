// Fuzzes the reader of the on-disk program cache's entries, BinaryCache::parse_entry
// (src/binary_cache.hpp), on arbitrary bytes: with a fixed realistic key, and with a key taken
// from the input (its first byte gives the key's length). Oracle: an accepted file is intact,
// i.e. it is what format_entry writes for that key and binary (the size line may have leading
// zeros); format_entry / parse_entry round trip for any non-empty binary and any key (keys are
// stored on one line, so the reader is given the key as load() passes it); and no single-byte
// substitution, deletion or truncation of a valid entry yields a different binary.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "runtime/binary_cache.hpp"

namespace {

using Binary = std::vector<unsigned char>;
using clgemm::detail::BinaryCache;

const std::string kKey =
    "Portable Computing Language | OpenCL 3.0 PoCL 3.1 | pthread-skylake-avx512 | 3.1 | "
    "-D TILE=16 -D ITEM=4 -cl-mad-enable | source 0123456789abcdef";

std::string current_input;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_cache_entry: %s (input of %zu bytes)\n", what.c_str(),
               current_input.size());
  std::abort();
}

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

// The header lines and the rest of a file.
struct Parts {
  std::vector<std::string> lines;
  std::string rest;
};
Parts split(const std::string& file) {
  Parts parts;
  std::size_t at = 0;
  for (int i = 0; i < 4; ++i) {
    const std::size_t end = file.find('\n', at);
    if (end == std::string::npos) break;
    parts.lines.push_back(file.substr(at, end - at));
    at = end + 1;
  }
  parts.rest = file.substr(std::min(at, file.size()));
  return parts;
}

// parse_entry(file, key) must return nothing, or the binary `file` really holds.
void check_accepted(const std::string& file, const std::string& key) {
  const auto binary = BinaryCache::parse_entry(file, key);
  if (!binary) return;
  if (binary->empty()) fail("accepted an entry with an empty binary");
  const Parts got = split(file);
  if (got.lines.size() != 4) fail("accepted a file without its four header lines");
  if (got.rest != std::string(binary->begin(), binary->end()))
    fail("returned a binary other than the bytes after the header");
  if (got.lines[1] != key) fail("accepted an entry stored under another key");
  if (got.lines[2].find_first_not_of("0123456789") != std::string::npos ||
      std::stoull(got.lines[2]) != binary->size())
    fail("accepted an entry whose size line is not its byte count");
  if (key.find_first_of("\r") == std::string::npos) {
    // Then format_entry writes exactly this key, and the tag and checksum lines must match.
    const Parts canonical = split(BinaryCache::format_entry(key, *binary));
    if (got.lines[0] != canonical.lines[0]) fail("accepted an entry with another format tag");
    if (got.lines[3] != canonical.lines[3]) fail("accepted an entry whose checksum is wrong");
  }
}

void check_round_trip(const std::string& key, const Binary& binary) {
  const std::string file = BinaryCache::format_entry(key, binary);
  const auto back = BinaryCache::parse_entry(file, one_line(key));
  if (!back || *back != binary) fail("format_entry / parse_entry do not round trip");
  // Under the key as given, a key with a line break cannot match what was stored.
  const auto raw = BinaryCache::parse_entry(file, key);
  if (raw && *raw != binary) fail("parse_entry under the raw key returned another binary");
  if (key.find_first_of("\n\r") == std::string::npos && !raw)
    fail("parse_entry rejects the entry under its own one-line key");
}

// Each single-byte change of a valid entry: nothing, or (never, in fact) the same binary.
void check_mutations(const std::string& key, const Binary& binary, unsigned char flip) {
  const std::string file = BinaryCache::format_entry(key, binary);
  const std::string read_key = one_line(key);
  auto expect_not_other = [&](const std::string& damaged, const char* how, std::size_t at) {
    const auto got = BinaryCache::parse_entry(damaged, read_key);
    if (got && *got != binary)
      fail(std::string("a ") + how + " at byte " + std::to_string(at) +
           " of a valid entry yields a different binary");
  };
  for (std::size_t at = 0; at < file.size(); ++at) {
    std::string damaged = file;
    damaged[at] = char(static_cast<unsigned char>(damaged[at]) ^ (flip ? flip : 1));
    expect_not_other(damaged, "substitution", at);
    expect_not_other(file.substr(0, at) + file.substr(at + 1), "deletion", at);
    expect_not_other(file.substr(0, at), "truncation", at);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  current_input.assign(reinterpret_cast<const char*>(data), size);
  // The whole input as a file under the fixed key.
  check_accepted(current_input, kKey);
  if (size == 0) return 0;

  // A key from the input: its first byte gives the length.
  const std::size_t key_length = std::min<std::size_t>(data[0] % 128, size - 1);
  const std::string key = current_input.substr(1, key_length);
  const std::string rest = current_input.substr(1 + key_length);
  check_accepted(rest, key);

  // Round trips and damage of valid entries made of the input's bytes. The damage check
  // parses the entry three times per byte, so it gets a shorter key and binary.
  const Binary binary(rest.begin(), rest.begin() + std::min<std::size_t>(rest.size(), 256));
  if (!binary.empty()) {
    check_round_trip(kKey, binary);
    check_round_trip(key, binary);
    check_mutations(
        key.substr(0, 24),
        Binary(binary.begin(), binary.begin() + std::min<std::size_t>(binary.size(), 32)), data[0]);
  }
  return 0;
}
