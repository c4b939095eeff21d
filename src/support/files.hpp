// Internal: safe access to the files clgemm reads and writes (the tuning database, cached program
// binaries, the tuner's state, the tools' reports). Reading never opens anything but a regular
// file, so a FIFO or device where a file is expected cannot block the caller. Writing is
// atomic (a new, exclusively created temporary file renamed over the target: readers see the
// old file or the new one, never a part), never through a symbolic link, and writers of one
// file that read, merge and write take turns under a lock, so none loses another's update.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

namespace clgemm {

// The contents of the regular file at `path` (symbolic links are followed for reading), or
// nullopt when nothing exists there. Throws Error(FileError) naming the path when something
// else is there (a directory, FIFO, socket or device), when it is larger than `max_bytes`,
// or when it cannot be read.
std::optional<std::string> read_regular_file(const std::string& path,
                                             std::size_t max_bytes = std::size_t(1) << 30);

// Replaces the file at `path` with `contents` atomically, creating missing parent
// directories. Refuses (Error(FileError)) when `path` is a symbolic link or anything but a
// regular file; the temporary file is removed on every failure. Temporary files that crashed
// writers left beside `path` for over an hour are removed.
void write_file_atomically(const std::string& path, const std::string& contents);

// Read, change and write `path` under an exclusive lock on "<path>.lock" that concurrent
// writers (threads or processes) take in turn: `update` gets the current contents (nullopt
// when the file does not exist) and returns the new ones, which are written atomically.
void update_file_locked(
    const std::string& path,
    const std::function<std::string(const std::optional<std::string>&)>& update);

// $CLGEMM_CACHE_DIR as clgemm reads it: nullopt when it is unset or empty (the per-user
// directory applies), an empty string when it says off (in any case: off, OFF, Off), else the
// directory made absolute against the working directory of this moment, so that a later
// change of directory does not move the cache.
std::optional<std::string> cache_directory_setting();

// A per-user directory for clgemm's files of one kind: $<xdg_variable>/clgemm when that is
// set, else <home>/<home_relative>/clgemm with the home from $HOME or, without it, the
// password database, else a private /tmp/clgemm-<uid> (created with mode 0700; refused unless
// it is a directory of this user that no one else can write). Empty when none can be had.
std::string per_user_directory(const char* xdg_variable, const char* home_relative);

}  // namespace clgemm
