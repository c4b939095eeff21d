// What the library says on stderr: notices printed once per process (a fallback, a bad
// setting), and the trace's one line per call.
#pragma once

#include <string>

namespace clgemm::blas {

// Prints "clgemm_blas: <message>" to stderr the first time `topic` is seen in this process.
void say_once(const std::string& topic, const std::string& message);

// Prints "clgemm_blas: <line>" to stderr in one write, so that lines of several threads do not
// interleave.
void say_line(const std::string& line);

}  // namespace clgemm::blas
