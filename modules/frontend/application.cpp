#include "gpurf/modules/frontend/application.h"

#include <algorithm>
#include <cstdlib>

namespace gpurf {

size_t AppRunner::buffer(const std::string& name) const {
  for (size_t i = 0; i < spec_.buffers.size(); ++i)
    if (spec_.buffers[i].name == name) return i;
  throw WorkloadError("no buffer '" + name + "'"); // the loader checked the names
}

int64_t AppRunner::eval(const AppStep& s, const std::string& text, IFunctionalMemory& mem) const {
  const ElementReader element = [&](const std::string& name, int64_t index) -> int64_t {
    const size_t b = buffer(name);
    const LaunchBuffer& lb = spec_.buffers[b];
    if (index < 0 || uint64_t(index) >= lb.count)
      throw ExprError(name + "[" + std::to_string(index) + "]: outside the buffer's " +
                      std::to_string(lb.count) + " elements");
    uint8_t bytes[8] = {};
    mem.read(addr_[b] + uint64_t(index) * lb.elem_bytes, bytes, lb.elem_bytes);
    return lb.decode(bytes);
  };
  try {
    return eval_expr(text, spec_.vars, element);
  } catch (const ExprError& e) {
    throw WorkloadError(s.where + ": '" + text + "': " + e.what());
  }
}

const AppStep* AppRunner::next(IFunctionalMemory& mem) {
  while (!frames_.empty()) {
    Frame& f = frames_.back();
    if (f.next == f.steps->size()) {
      if (f.loop && again(f, mem))
        f.next = 0;
      else
        frames_.pop_back();
      continue;
    }
    const AppStep& s = (*f.steps)[f.next++];
    if (s.kind == AppStep::Kind::Launch) {
      ++launches_;
      return &s;
    }
    run(s, mem); // may push a frame: `f` is not used after this
  }
  return nullptr;
}

bool AppRunner::again(Frame& f, IFunctionalMemory& mem) {
  const AppStep& s = *f.loop;
  if (s.kind == AppStep::Kind::For) {
    int64_t& v = spec_.vars[s.var];
    if (__builtin_add_overflow(v, f.step, &v))
      throw WorkloadError(s.where + ": for: '" + s.var + "' overflows");
    return f.step > 0 ? v < f.to : v > f.to;
  }
  if (!eval(s, s.cond, mem)) return false;
  if (++f.passes > s.max)
    throw WorkloadError(s.where + ": repeat: '" + s.cond + "' still holds after " +
                        std::to_string(s.max) + " passes (max)");
  return true;
}

void AppRunner::run(const AppStep& s, IFunctionalMemory& mem) {
  switch (s.kind) {
  case AppStep::Kind::Launch:
    break;
  case AppStep::Kind::For: {
    Frame f{&s.body, 0, &s};
    spec_.vars[s.var] = eval(s, s.from, mem);
    f.to = eval(s, s.to, mem);
    f.step = eval(s, s.step, mem);
    if (!f.step) throw WorkloadError(s.where + ": for: step is 0");
    const int64_t v = spec_.vars[s.var];
    if (f.step > 0 ? v < f.to : v > f.to) frames_.push_back(f);
    break;
  }
  case AppStep::Kind::Repeat:
    frames_.push_back({&s.body, 0, &s});
    break;
  case AppStep::Kind::Set:
    for (const auto& [var, text] : s.assign) spec_.vars[var] = eval(s, text, mem);
    break;
  case AppStep::Kind::Swap:
    std::swap(addr_[buffer(s.a)], addr_[buffer(s.b)]);
    break;
  case AppStep::Kind::Copy: {
    const uint64_t from = addr_[buffer(s.a)], to = addr_[buffer(s.b)];
    const uint64_t bytes = spec_.buffers[buffer(s.a)].bytes();
    std::vector<uint8_t> chunk(65536);
    for (uint64_t off = 0; off < bytes; off += chunk.size()) {
      const unsigned n = unsigned(std::min<uint64_t>(chunk.size(), bytes - off));
      mem.read(from + off, chunk.data(), n);
      mem.write(to + off, chunk.data(), n);
    }
    break;
  }
  case AppStep::Kind::Fill: {
    const size_t b = buffer(s.a);
    const LaunchBuffer& lb = spec_.buffers[b];
    const int64_t first = eval(s, s.first, mem), stride = eval(s, s.stride, mem);
    int64_t count = eval(s, s.count, mem);
    if (first < 0 || uint64_t(first) >= lb.count || stride < 1)
      throw WorkloadError(s.where + ": fill: first element " + std::to_string(first) +
                          " or stride " + std::to_string(stride) + " outside buffer '" + s.a +
                          "' (" + std::to_string(lb.count) + " elements; stride >= 1)");
    const uint64_t room = (lb.count - uint64_t(first) + uint64_t(stride) - 1) / uint64_t(stride);
    if (count < 0) count = int64_t(room);
    if (uint64_t(count) > room)
      throw WorkloadError(s.where + ": fill: " + std::to_string(count) + " elements from " +
                          std::to_string(first) + " with stride " + std::to_string(stride) +
                          " run past buffer '" + s.a + "' (" + std::to_string(lb.count) +
                          " elements)");
    char* end = nullptr;
    const double fv = std::strtod(s.value.c_str(), &end);
    const bool literal = end != s.value.c_str() && *end == '\0';
    const int64_t iv = lb.is_float() && literal ? 0 : eval(s, s.value, mem);
    uint8_t e[8] = {};
    lb.encode(literal ? fv : double(iv), iv, e);
    if (stride == 1) { // contiguous: in chunks
      std::vector<uint8_t> chunk(size_t(std::min<uint64_t>(uint64_t(count), 8192)) * lb.elem_bytes);
      for (size_t i = 0; i < chunk.size(); i += lb.elem_bytes)
        std::copy(e, e + lb.elem_bytes, chunk.begin() + long(i));
      const uint64_t bytes = uint64_t(count) * lb.elem_bytes;
      for (uint64_t off = 0; off < bytes; off += chunk.size())
        mem.write(addr_[b] + uint64_t(first) * lb.elem_bytes + off, chunk.data(),
                  unsigned(std::min<uint64_t>(chunk.size(), bytes - off)));
    } else {
      for (int64_t i = 0; i < count; ++i)
        mem.write(addr_[b] + uint64_t(first + i * stride) * lb.elem_bytes, e, lb.elem_bytes);
    }
    break;
  }
  }
}

} // namespace gpurf
