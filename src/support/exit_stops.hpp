// Work that must be stopped before a program's exit destroys what it uses. Exit handlers and
// the destructors of static objects run last-made first, so a thread still running when the
// program exits (background warming of a static Context, or of one never destroyed) would
// keep using objects already destroyed: a compiler's own statics made during its first builds
// among them. Such work registers a stop here; the handler that calls the stops is registered
// again after each build (renew_exit_handler), so at exit it runs before the destructors of
// every object made up to then.
#pragma once

#include <functional>

namespace clgemm::detail {

// Registers `stop` (which must return only once the work has stopped) under `owner`.
void add_exit_stop(const void* owner, std::function<void()> stop);
// Removes the stop of `owner`; after it returns, the exit handler no longer calls it (if the
// handler is running it, this waits until it has returned).
void remove_exit_stop(const void* owner);
// Registers the exit handler again when any stop is registered, so that it runs before the
// destructors of objects made since the last registration.
void renew_exit_handler();

}  // namespace clgemm::detail
