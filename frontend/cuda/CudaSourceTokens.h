#pragma once
// What kernel definitions (CudaSource.cpp) and host launches (HostLaunches.cpp) both read of a
// token stream: matched brackets, the words of fundamental types, integer literals.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "frontend/cuda/CppTokens.h"

namespace lp::cuda::detail {

// Matching brackets of a token vector: for each (, [, { and ) ], }, the index of its partner
// (npos where unbalanced).
std::vector<size_t> match_brackets(const std::vector<Token>& t);

// The words a fundamental type is spelled with (qualifiers and `struct`, `class`, `typename` too).
const std::set<std::string>& fundamental_words();

// The size of a fundamental type named by `words` (sizeof), nullopt for others.
std::optional<int64_t> fundamental_size(const std::vector<std::string>& words);

// Whether `word` may be part of the declared type of an arithmetic variable, or of an arithmetic
// expression besides its variables (casts, std::min).
bool arithmetic_word(const std::string& word);

// The function-pointer variables of host code that may launch kernels: each declared `(*NAME)(...)`
// with where it is visible and the kernels assigned to it (`NAME = &k;`, `NAME = ns::k<4>;`, its
// initializer), read in its scope; an assignment of another form or its address taken leaves its
// kernels unknown (KernelPointers.cpp).
class KernelPointers {
 public:
  KernelPointers(const std::vector<Token>& t, const std::vector<size_t>& match, const std::vector<size_t>& block_of);
  /// The kernels a launch naming `name` at token `use` starts: `name` itself unless it is a pointer
  /// visible there; else the kernels assigned to it, none when what it holds is not read.
  std::vector<std::string> launched(const std::string& name, size_t use) const;

 private:
  struct Pointer {
    size_t at = 0, scope_end = 0;
    std::optional<std::vector<std::string>> targets;
  };
  std::map<std::string, std::vector<Pointer>> pointers_;
};

// An integer literal (decimal, hex, octal, binary, with digit separators and integer suffixes).
std::optional<int64_t> integer_literal(std::string s);

}  // namespace lp::cuda::detail
