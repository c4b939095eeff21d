// Internal: a thread-safe memo of bounded size, keyed by bytes. A Context remembers what
// costs more than a small launch to work out again (what `auto` chose for a shape, a kernel's
// resolved parameters, a prepared call); when a cache reaches its capacity it is emptied and
// fills again with what the program calls now.
#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

namespace clgemm::detail {

// The entries each of a Context's caches holds at most.
constexpr std::size_t kContextCacheCapacity = 4096;

template <typename Value>
class BoundedCache {
 public:
  explicit BoundedCache(std::size_t capacity = kContextCacheCapacity) : capacity_(capacity) {}

  std::optional<Value> find(const std::string& key) const {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = entries_.find(key);
    if (it == entries_.end()) return std::nullopt;
    return it->second;
  }

  // Remembers `value` under `key` (replacing an earlier one), emptying the cache first when it
  // is full.
  void insert(std::string key, Value value) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (entries_.size() >= capacity_ && !entries_.count(key)) entries_.clear();
    entries_.insert_or_assign(std::move(key), std::move(value));
  }

 private:
  mutable std::mutex mutex_;
  std::size_t capacity_;
  std::unordered_map<std::string, Value> entries_;
};

// The bytes of a cache key, written field by field in a fixed order: numbers as their eight
// bytes, texts with their length first, so no two different field lists give the same key.
class CacheKey {
 public:
  CacheKey& number(long long value) {
    bytes_.append(reinterpret_cast<const char*>(&value), sizeof value);
    return *this;
  }
  CacheKey& text(const std::string& value) {
    number(static_cast<long long>(value.size()));
    bytes_ += value;
    return *this;
  }
  std::string take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

}  // namespace clgemm::detail
