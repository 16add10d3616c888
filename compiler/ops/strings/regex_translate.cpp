// RegexFullMatch's pattern (RE2 syntax) translated to a POSIX extended regular expression for
// libc's regcomp, anchored at both ends. Accepted: literals, `.`, bracket expressions (ranges,
// [:class:], \d \w \s inside), groups `(...)` and `(?:...)`, alternation, `* + ? {n,m}` (lazy
// forms too: a full match does not depend on laziness), `^ $`, the escapes \d \D \w \W \s \S,
// \t \n \r \f \v, escaped punctuation and the word boundaries \b \B (a GNU extension of
// glibc's regcomp, which every model library links). Refused, naming the node: other `(?`
// groups (flags, named groups, lookaround), \A \z \p \P \Q \x and other letter escapes,
// back-references, negated classes (\D \W \S) inside brackets. Matching is byte-wise (one `.`
// is one byte of UTF-8).
#include "compiler/ops/op_util.h"
#include "compiler/ops/strings/string_util.h"

#include <regex.h>

namespace onnxc {
namespace {

class Translator {
public:
  Translator(const Node &n, const std::string &p) : n_(n), p_(p) {}

  std::string run() {
    std::string out = "^(";
    while (i_ < p_.size())
      out += atom();
    return out + ")$";
  }

private:
  [[noreturn]] void refuse(const std::string &what) {
    node_fail(n_,
              "pattern \"{}\": {} cannot be expressed as a POSIX extended regular expression "
              "(onnxc matches with libc's regex.h)",
              p_, what);
  }

  std::string atom() {
    char c = p_[i_++];
    switch (c) {
    case '\\':
      return escape();
    case '[':
      return bracket();
    case '.':
      return "[^\n]"; // RE2's `.` does not match a newline
    case '(':
      if (i_ < p_.size() && p_[i_] == '?') {
        if (i_ + 1 < p_.size() && p_[i_ + 1] == ':') {
          i_ += 2;
          return "(";
        }
        refuse("the group \"(?" + p_.substr(i_ + 1, 1) + "\"");
      }
      return "(";
    case '*':
    case '+':
    case '?':
    case '}':
      if (i_ < p_.size() && p_[i_] == '?')
        ++i_; // lazy: the same full matches
      return std::string(1, c);
    default:
      return std::string(1, c);
    }
  }

  /// A backslash escape outside brackets (the backslash already read).
  std::string escape() {
    if (i_ >= p_.size())
      refuse("a trailing backslash");
    char c = p_[i_++];
    switch (c) {
    case 'd':
      return "[0-9]";
    case 'D':
      return "[^0-9]";
    case 'w':
      return "[[:alnum:]_]";
    case 'W':
      return "[^[:alnum:]_]";
    case 's':
      return "[[:space:]]";
    case 'S':
      return "[^[:space:]]";
    case 't':
      return "\t";
    case 'n':
      return "\n";
    case 'r':
      return "\r";
    case 'f':
      return "\f";
    case 'v':
      return "\v";
    case 'b':
      return "\\b";
    case 'B':
      return "\\B";
    default:
      break;
    }
    if (std::string_view(".[]{}()\\*+?^$|").find(c) != std::string_view::npos)
      return std::string{'\\', c};
    if (std::ispunct(static_cast<unsigned char>(c)))
      return std::string(1, c);
    refuse(fmt::format("the escape \"\\{}\"", c));
  }

  /// One item of a bracket expression, added to `items` (or to the special characters).
  void bracket_item(std::string &items, bool &rbracket, bool &dash, bool &caret) {
    char c = p_[i_++];
    if (c == '[' && i_ < p_.size() && p_[i_] == ':') { // [:class:]
      size_t end = p_.find(":]", i_);
      if (end == std::string::npos)
        refuse("an unterminated [:class:]");
      items += p_.substr(i_ - 1, end + 2 - (i_ - 1));
      i_ = end + 2;
      return;
    }
    if (c == '\\') {
      if (i_ >= p_.size())
        refuse("a trailing backslash");
      c = p_[i_++];
      switch (c) {
      case 'd':
        items += "0-9";
        return;
      case 'w':
        items += "[:alnum:]_";
        return;
      case 's':
        items += "[:space:]";
        return;
      case 't':
        c = '\t';
        break;
      case 'n':
        c = '\n';
        break;
      case 'r':
        c = '\r';
        break;
      default:
        if (!std::ispunct(static_cast<unsigned char>(c)))
          refuse(fmt::format("the escape \"\\{}\" inside brackets", c));
      }
    }
    if (c == ']')
      rbracket = true;
    else if (c == '^')
      caret = true;
    else if (c == '-')
      dash = true;
    else if (i_ + 1 < p_.size() && p_[i_] == '-' && p_[i_ + 1] != ']') { // a range
      char hi = p_[i_ + 1];
      if (hi == '\\' || hi == '[')
        refuse("a range with an escaped or class end");
      items += {c, '-', hi};
      i_ += 2;
    } else
      items += c;
  }

  /// A bracket expression (the '[' already read), rebuilt in POSIX order: ']' first, '^' not
  /// first, '-' last.
  std::string bracket() {
    bool negate = i_ < p_.size() && p_[i_] == '^';
    i_ += negate;
    std::string items;
    bool rbracket = false, dash = false, caret = false, first = true;
    while (true) {
      if (i_ >= p_.size())
        refuse("an unterminated bracket expression");
      if (p_[i_] == ']' && !first)
        break;
      first = false;
      bracket_item(items, rbracket, dash, caret);
    }
    ++i_;
    if (!negate && !rbracket && !dash && items.empty())
      return "\\^"; // only '^'
    return "[" + std::string(negate ? "^" : "") + (rbracket ? "]" : "") + items +
           (caret ? "^" : "") + (dash ? "-" : "") + "]";
  }

  const Node &n_;
  const std::string &p_;
  size_t i_ = 0;
};

} // namespace

std::string regex_to_posix(const Node &n, const std::string &pattern) {
  std::string ere = Translator(n, pattern).run();
  regex_t re;
  int err = regcomp(&re, ere.c_str(), REG_EXTENDED | REG_NOSUB);
  if (err != 0) {
    char msg[256];
    regerror(err, &re, msg, sizeof msg);
    node_fail(n,
              "pattern \"{}\" is not a valid POSIX extended regular expression once "
              "translated (\"{}\"): {}",
              pattern, ere, msg);
  }
  regfree(&re);
  return ere;
}

} // namespace onnxc
