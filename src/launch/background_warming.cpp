// The background warming thread and the settings that start it (CLGEMM_WARM,
// set_default_warm_mode).
#include "launch/background_warming.hpp"

#include <cstdlib>
#include <string>

#include "clgemm/errors.hpp"
#include "clgemm/warm.hpp"
#include "support/exit_stops.hpp"

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace clgemm {

namespace {
// -1: the per-device default; else a WarmMode.
std::atomic<int> default_mode{-1};
}  // namespace

void set_default_warm_mode(WarmMode mode) {
  default_mode.store(int(mode));
}

void reset_default_warm_mode() {
  default_mode.store(-1);
}

WarmMode warm_mode_for(const DeviceLimits& device) {
  const char* setting = std::getenv("CLGEMM_WARM");
  const std::string value = setting ? setting : "";
  if (value == "off") return WarmMode::Off;
  if (value == "background") return WarmMode::Background;
  if (!value.empty() && value != "auto")
    throw Error(ErrorCode::InvalidArgument,
                "CLGEMM_WARM = '" + value + "' is not one of off, background, auto");
  if (const int mode = default_mode.load(); mode >= 0) return WarmMode(mode);
  // A CPU device's compiles take the cores the caller's own work runs on. Oclgrind 21.10's
  // checking plugins crash (llvm::Value::getName in Uninitialized) when a program builds on
  // one thread while a kernel runs on another.
  if (device.type == DeviceType::CPU || device.platform_name == "Oclgrind") return WarmMode::Off;
  return WarmMode::Background;
}

const char* warm_outcome_name(WarmOutcome outcome) {
  switch (outcome) {
    case WarmOutcome::InMemory:
      return "in memory";
    case WarmOutcome::OnDisk:
      return "on disk";
    case WarmOutcome::Compiled:
      return "compiled";
    case WarmOutcome::Failed:
      return "failed";
  }
  return "unknown";
}

namespace detail {

void BackgroundWarming::stop_and_join() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

BackgroundWarming::~BackgroundWarming() {
  // After this the exit handler no longer calls stop_and_join(); if it already has, the
  // thread is joined and joinable() is false.
  remove_exit_stop(this);
  stop_and_join();
}

void BackgroundWarming::start(std::function<void(const std::atomic<bool>& stop)> work) {
  if (thread_.joinable()) return;
  // Each build renews the exit handler (ProgramCache), so at exit it stops this thread
  // before the objects its builds made are destroyed.
  add_exit_stop(this, [this] { stop_and_join(); });
  finished_.store(false);
  thread_ = std::thread([this, work = std::move(work)] {
#ifdef __linux__
    // Linux applies nice to one thread: the caller's own threads keep their priority.
    setpriority(PRIO_PROCESS, id_t(syscall(SYS_gettid)), 10);
#endif
    work(stop_);
    finished_.store(true);
  });
}

}  // namespace detail
}  // namespace clgemm
