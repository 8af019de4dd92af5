// PTX tokens, shared by the parser and the linker (link.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpurf::ptx {

enum class TK : uint8_t { End, Ident, Number, String, Punct };

struct Tok {
  TK k = TK::End;
  std::string s;     // a string's contents without quotes and escapes
  unsigned line = 0; // 1-based
  size_t pos = 0;    // the token's bytes in the text: [pos, end)
  size_t end = 0;
};

// "file:line: msg", the form every PTX error takes.
std::string fmt_err(const std::string& file, unsigned line, const std::string& msg);

// The tokens of `text`, comments dropped, ending with a TK::End token; throws ParseError naming
// `file` on an unterminated comment or string.
std::vector<Tok> lex(const std::string& text, const std::string& file);

} // namespace gpurf::ptx
