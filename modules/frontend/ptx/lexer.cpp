#include "gpurf/modules/frontend/ptx/lexer.h"

#include <cctype>
#include <cstring>

#include "gpurf/modules/frontend/ptx/parser.h"

namespace gpurf::ptx {

namespace {

bool ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%' ||
         c == '.';
}
bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.';
}

} // namespace

std::string fmt_err(const std::string& file, unsigned line, const std::string& msg) {
  return file + ":" + std::to_string(line) + ": " + msg;
}

std::vector<Tok> lex(const std::string& t, const std::string& file) {
  std::vector<Tok> out;
  unsigned line = 1;
  size_t i = 0, n = t.size();
  while (i < n) {
    char c = t[i];
    if (c == '\n') {
      ++line;
      ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && t[i + 1] == '/') {
      while (i < n && t[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && t[i + 1] == '*') {
      unsigned start = line;
      i += 2;
      while (i + 1 < n && !(t[i] == '*' && t[i + 1] == '/')) {
        if (t[i] == '\n') ++line;
        ++i;
      }
      if (i + 1 >= n) throw ParseError(fmt_err(file, start, "unterminated /* comment"));
      i += 2;
      continue;
    }
    Tok tok;
    tok.line = line;
    tok.pos = i;
    if (c == '"') {
      ++i;
      std::string s;
      while (i < n && t[i] != '"') {
        if (t[i] == '\n') throw ParseError(fmt_err(file, line, "unterminated string literal"));
        if (t[i] == '\\' && i + 1 < n) ++i;
        s += t[i++];
      }
      if (i >= n) throw ParseError(fmt_err(file, line, "unterminated string literal"));
      ++i;
      tok.k = TK::String;
      tok.s = s;
    } else if (ident_start(c)) {
      // A directive ends at the next dot: `.reg.b32` (inline asm in CUDA's headers writes
      // directives and their types without a space) is `.reg` then `.b32`.
      const bool directive = c == '.';
      size_t b = i++;
      while (i < n) {
        if (ident_char(t[i]) && !(directive && t[i] == '.')) {
          ++i;
        } else if (t[i] == ':' && i + 1 < n && t[i + 1] == ':') {
          i += 2;
        } else {
          break;
        }
      }
      tok.k = TK::Ident;
      tok.s = t.substr(b, i - b);
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t b = i++;
      bool hexish = (c == '0' && i < n && std::strchr("xXfFdD", t[i]) != nullptr);
      while (i < n) {
        char d = t[i];
        if (std::isalnum(static_cast<unsigned char>(d)) || d == '.' || d == '_') {
          ++i;
        } else if ((d == '+' || d == '-') && !hexish && (t[i - 1] == 'e' || t[i - 1] == 'E')) {
          ++i;
        } else {
          break;
        }
      }
      tok.k = TK::Number;
      tok.s = t.substr(b, i - b);
    } else {
      tok.k = TK::Punct;
      tok.s = std::string(1, c);
      ++i;
    }
    tok.end = i;
    out.push_back(std::move(tok));
  }
  Tok end;
  end.k = TK::End;
  end.line = line;
  end.pos = end.end = n;
  out.push_back(end);
  return out;
}

} // namespace gpurf::ptx
