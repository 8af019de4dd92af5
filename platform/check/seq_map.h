// Values keyed by instruction sequence number, for the checkers' per-instruction state. The
// numbers in flight lie in a window much smaller than the table, so nearly every key has its
// own direct slot (key mod size); a key whose slot is taken goes to an ordinary hash map. No
// allocation and no hashing per instruction in the common case.
#pragma once

#include <cstdint>
#include <new>
#include <unordered_map>
#include <vector>

namespace gpurf {

template <class T> class SeqMap {
public:
  explicit SeqMap(unsigned log2_slots = 12)
      : slots_(size_t(1) << log2_slots), mask_((uint64_t(1) << log2_slots) - 1) {}

  T* find(uint64_t key) {
    Slot& s = slot(key);
    if (s.key == key) return &s.value;
    if (overflow_.empty()) return nullptr;
    auto it = overflow_.find(key);
    return it == overflow_.end() ? nullptr : &it->second;
  }
  // The value of `key`, default-constructed (`T()`, built in place: a T whose constructor
  // leaves scratch arrays unset is not zeroed) if it had none.
  T& operator[](uint64_t key) {
    if (T* v = find(key)) return *v;
    return add(key);
  }
  // A new entry for `key`, which has none (not looked up), built as by operator[].
  T& add(uint64_t key) {
    ++size_;
    Slot& s = slot(key);
    if (s.key != kFree) return overflow_[key];
    s.key = key;
    s.value.~T();
    return *::new (&s.value) T();
  }
  void erase(uint64_t key) {
    Slot& s = slot(key);
    if (s.key == key) {
      s.key = kFree;
      --size_;
    } else {
      size_ -= overflow_.erase(key);
    }
  }
  size_t size() const { return size_; }

private:
  // A free slot's key: no key is ever this (sequence numbers count from 1), so a lookup is
  // one compare.
  static constexpr uint64_t kFree = ~uint64_t(0);
  struct Slot {
    uint64_t key = kFree;
    T value{};
  };
  Slot& slot(uint64_t key) { return slots_[key & mask_]; }
  std::vector<Slot> slots_;
  uint64_t mask_; // slots - 1
  std::unordered_map<uint64_t, T> overflow_;
  size_t size_ = 0;
};

} // namespace gpurf
