// Building programs ahead, so that no call waits for a compile it could have avoided: what
// Context::warm_up() reports, the background warming a Context starts when it opens
// (CLGEMM_WARM), and the notice a call prints while it compiles (CLGEMM_NOTICES).
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "clgemm/device.hpp"
#include "clgemm/export.h"

namespace clgemm {

// What warming found for one program.
enum class WarmOutcome {
  InMemory,  // already built in this Context
  OnDisk,    // already in the disk cache (left there: a call loads it in milliseconds)
  Compiled,  // compiled now, kept in the Context and stored in the disk cache
  Failed,    // its build failed (a call needing it would fail the same way)
};
CLGEMM_API const char* warm_outcome_name(WarmOutcome outcome);  // "in memory", "on disk", ...

// One program warmed, passed to the progress callback after it is done.
struct CLGEMM_API WarmUpProgress {
  std::size_t index = 0;  // 1 to total
  std::size_t total = 0;
  std::string kernel;         // the catalogue name, or a helper: scale_c, copy_padded, ...
  std::string build_options;  // its full option string
  WarmOutcome outcome = WarmOutcome::Compiled;
  double seconds = 0;  // spent on this program
  std::string error;   // for Failed: the error's text
};
using WarmUpCallback = std::function<void(const WarmUpProgress&)>;

// What Context::warm_up() did.
struct CLGEMM_API WarmUpReport {
  std::size_t programs = 0;  // the set's size
  std::size_t compiled = 0, on_disk = 0, in_memory = 0, failed = 0;
  double seconds = 0;
  std::string first_error;  // the first failure's text, empty when none failed
  bool stopped = false;     // background warming only: stopped by the Context's destruction
};

// Whether a Context starts warming in the background when it opens. CLGEMM_WARM says it:
// "off", "background", or "auto" (also when unset or empty): the process default, which is
// Background on GPUs and accelerators and Off on CPU devices (where compiling competes with
// the caller's own work on the same cores) and on the Oclgrind simulator (which crashes when a
// program builds while a kernel runs), unless set_default_warm_mode() changed it.
enum class WarmMode { Off, Background };
// The mode for a Context on `device`; throws Error(InvalidArgument) naming CLGEMM_WARM for any
// other value.
CLGEMM_API WarmMode warm_mode_for(const DeviceLimits& device);
// What "auto" means in this process from now on (the tools, which measure, choose Off).
// `Background` or `Off` for every device; reset_default_warm_mode() restores the
// per-device default. Safe to call from any thread.
CLGEMM_API void set_default_warm_mode(WarmMode mode);
CLGEMM_API void reset_default_warm_mode();

// A call that must compile a program (neither in its Context nor in the disk cache) prints
// one line on stderr when the compile lasts more than a second: "clgemm: compiling kernel
// 'blocked' for '<device>' (first use on this machine; ...) ...". CLGEMM_NOTICES=0 turns it
// off (1, empty or unset: on; any other value is said once on stderr and leaves it on); so does
// set_compile_notices(false), for programs that say it themselves (the tools).
CLGEMM_API void set_compile_notices(bool enabled);
// Whether calls print the notice now: neither CLGEMM_NOTICES=0 nor set_compile_notices(false).
CLGEMM_API bool compile_notices_enabled();

}  // namespace clgemm
