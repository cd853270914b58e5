#pragma once
// The PTX reader's parser (read_ptx in PtxModule.h): its tokens and state, shared by PtxReader.cpp
// (tokens, module directives, declarations) and PtxReaderBody.cpp (function bodies, instructions,
// operands, and the check that every name used is declared).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "frontend/ptx/PtxModule.h"

namespace lp::ptx::detail {

struct Token {
  enum class Kind { Ident, Number, String, Punct, End };
  Kind kind = Kind::End;
  std::string text;
  size_t pos = 0;
  size_t line = 0;
};

class Reader {
 public:
  Reader(std::shared_ptr<const SourceText> src, const ReadLimits& limits);

  Module read();

 private:
  // ---- tokens (PtxReader.cpp) ----
  [[noreturn]] void fail(size_t pos, const std::string& message);
  [[noreturn]] void expected(const std::string& what);
  void skip_space();
  void advance();
  bool is(const char* text) const;
  bool accept(const char* text);
  void expect(const char* text);
  std::string ident(const std::string& what);
  uint64_t parse_number_text(const std::string& s, size_t pos);
  uint64_t number(const std::string& what);
  int64_t small_int(const std::string& what, int64_t lo, int64_t hi);
  void rest_of_line(size_t line);
  void skip_to_semicolon();

  // ---- module level (PtxReader.cpp) ----
  void top_level();
  void file_directive();
  void loc_directive();
  void section();
  void variable(bool is_extern, Function* fn);
  std::vector<Param> param_list();
  void function(bool is_extern);
  void reg_decl(Function& f);

  // ---- function bodies (PtxReaderBody.cpp) ----
  void body(Function& f, size_t open);
  Operand operand();
  void instruction(Function& f, std::optional<Operand> guard, std::string opcode, size_t pos);

  // ---- after parsing: every register, label and symbol used is declared (PtxReaderBody.cpp) ----
  void check_register(const Function& f, const std::string& name, size_t pos);
  void check_operand(const Function& f, Operand& o, bool label_ok);
  void validate();

  std::shared_ptr<const SourceText> src_;
  const std::string& t_;
  ReadLimits limits_;
  size_t p_ = 0, line_ = 1, token_count_ = 0;
  Token tok_;
  Module* mod_ = nullptr;
  std::optional<size_t> current_loc_;
  std::set<std::string> declared_;
};

}  // namespace lp::ptx::detail
