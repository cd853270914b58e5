#pragma once
// What kernel definitions (CudaSource.cpp) and host launches (HostLaunches.cpp) both read of a
// token stream: matched brackets, the words of fundamental types, integer literals.
#include <cstdint>
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

// An integer literal (decimal, hex, octal, binary, with digit separators and integer suffixes).
std::optional<int64_t> integer_literal(std::string s);

}  // namespace lp::cuda::detail
