#pragma once
// A vocabulary: the names a user types for the values of one enum, as one constexpr table
// (solver/Result.h's kEngineNames, analyzer/ir/Print.h's kNotationNames). Names, parsing and the
// lists of choices that help texts and diagnostics print all come from the table.
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lp {

template <class E, size_t N>
using Vocabulary = std::array<std::pair<E, std::string_view>, N>;

/// The name of `value` (the table's literals end with NUL); `fallback` for a value not listed.
template <class E, size_t N>
const char* vocabulary_name(const Vocabulary<E, N>& table, E value, const char* fallback) {
  for (const auto& [v, name] : table)
    if (v == value) return name.data();
  return fallback;
}

/// The value named `name`; nullopt for any other text.
template <class E, size_t N>
std::optional<E> vocabulary_value(const Vocabulary<E, N>& table, std::string_view name) {
  for (const auto& [v, known] : table)
    if (known == name) return v;
  return std::nullopt;
}

/// The names in table order, for a command line's choices.
template <class E, size_t N>
std::vector<std::string> vocabulary_names(const Vocabulary<E, N>& table) {
  std::vector<std::string> names;
  for (const auto& entry : table) names.emplace_back(entry.second);
  return names;
}

/// "a, b or c": the choices as a help text or a diagnostic says them.
template <class E, size_t N>
std::string vocabulary_choices(const Vocabulary<E, N>& table) {
  std::string s;
  for (size_t i = 0; i < N; ++i) s += (i == 0 ? "" : i + 1 == N ? " or " : ", ") + std::string(table[i].second);
  return s;
}

}  // namespace lp
