#pragma once
// Legality by exhaustive evaluation: each check enumerates the domain and compares the result with
// the function the operation claims, using lp::Layout's evaluator; compositions are stated as
// claims for the solver (CompositionClaim). A domain above kMaxCheckedPoints gives "unknown",
// never "legal"; so does the run's budget running out
// (the checks call checkpoint(), analyzer/support/Governor.h, and throw BudgetExhausted, which
// the operations in Operations.h turn into "unknown").
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analyzer/algebra/CuteLayout.h"
#include "analyzer/algebra/Evaluate.h"
#include "analyzer/ir/Swizzle.h"
#include "analyzer/support/Vocabulary.h"

namespace lp::algebra {

enum class Verdict { Legal, Illegal, Unknown };
/// The verdicts' names (`algebra`'s output, the Python module's `verdict`).
inline constexpr Vocabulary<Verdict, 3> kVerdictNames{
    {{Verdict::Legal, "legal"}, {Verdict::Illegal, "illegal"}, {Verdict::Unknown, "unknown"}}};

/// Where a result stops being what it claims: the point (1-D index and coordinate of the domain
/// named in `domain`) and the two values that differ.
struct Witness {
  std::string domain;            ///< whose coordinate this is, e.g. "B" or "R"
  std::optional<int64_t> index;  ///< the 1-D index; none when the witness is a value no index reaches
  std::string coordinate;        ///< the index's coordinate; empty without an index
  std::string expected_label, expected;  ///< e.g. "A(B(c))", "12"
  std::string actual_label, actual;      ///< e.g. "R(c)", "14"
};

/// What CuTe's contract for an operation allows but its user may not expect: a complement that
/// leaves offsets of [0, M) uncovered; a left inverse
/// that is only a pseudo-inverse on L's image; an inverse that reaches past a domain, where CuTe
/// extends a layout by its strides. Such a result is legal (it is CuTe's, and meets CuTe's
/// contract); the note is kept apart from illegal so the gate can be configured on it (rule LP013).
struct ContractNote {
  enum class Kind { ComplementHole, PseudoInverse, PastDomain };
  Kind kind = Kind::ComplementHole;
  std::string message;
  std::optional<Witness> witness;
};

/// The notes' kinds as outputs name them.
inline constexpr Vocabulary<ContractNote::Kind, 3> kNoteKindNames{{{ContractNote::Kind::ComplementHole, "complement-hole"},
                                                                   {ContractNote::Kind::PseudoInverse, "pseudo-inverse"},
                                                                   {ContractNote::Kind::PastDomain, "past-domain"}}};
const char* note_kind_name(ContractNote::Kind kind);

/// A composition an operation's result stands on: for every c in B's domain, B(c) lies in A's
/// domain and R(c) == A(B(c)), R evaluated past its domain as CuTe does. The algebra states it
/// and does not decide it: the solver's composition portfolio does (solver/AlgebraClaims.h), the
/// one decision `prove compose` also gets.
struct CompositionClaim {
  Layout a;             ///< may carry post stages (a swizzled layout)
  Layout b;             ///< values are A's 1-D indices, or scaled-basis coordinates of A's modes
  Layout r;             ///< the result the operation computed
  std::string context;  ///< what an illegal verdict's reason starts with, e.g. "the tile _4:_1 does not fit _6:_1: "
  std::string role;     ///< what a note on the claim starts with, e.g. "the tile _4:_1 over _6:_1: "
};

/// A legality verdict. Invariant: an Illegal check does not depend on `claims`; a Legal or
/// Unknown one holds only once its claims are decided, which lp::decide_claims does.
struct Check {
  Verdict verdict = Verdict::Legal;
  std::string reason;
  std::optional<Witness> witness;
  std::vector<CompositionClaim> claims;  ///< compositions still to decide
  /// The engines the verdict rests on: "enum" for the algebra's own evaluation, the solver's
  /// engine for each decided claim.
  std::set<std::string> engines;
  /// What the contract allows but a user may not expect; only on a check that is not illegal.
  std::vector<ContractNote> notes;

  static Check legal(std::string why = {}) { return Check{Verdict::Legal, std::move(why), std::nullopt, {}, {"enum"}, {}}; }
  static Check unknown(std::string why) { return Check{Verdict::Unknown, std::move(why), std::nullopt, {}, {}, {}}; }
  static Check illegal(std::string why, std::optional<Witness> w = std::nullopt) {
    return Check{Verdict::Illegal, std::move(why), std::move(w), {}, {"enum"}, {}};
  }
};

/// The first illegal check, else the first unknown, else legal (reasons of legal checks joined);
/// unless illegal, it stands on the claims of all of them and carries the notes of all of them.
Check combine(const std::vector<Check>& checks);

/// A legal verdict that stands on R(c) == A(B(c)) with B(c) in A's domain for every c in B's
/// domain (A may carry post stages; B's scaled-basis values address A's modes).
Check claim_composition(Layout a, const CuteLayout& b, Layout r, std::string context = {}, std::string role = {});
/// The same for a B that is itself composed (`Sw o B`, integer-valued).
Check claim_composition(Layout a, Layout b, Layout r, std::string context = {}, std::string role = {});
/// CuTe's complement contract (cute/layout.hpp, test/unit/cute/core/complement.cpp), for a
/// cotarget of size M: cosize((L, R)) >= M; R ordered, R(i-1) < R(i); R disjoint from L,
/// R(i) != L(j) for i >= 1; size(R) >= M / size(filter(L)). Note: (filter(L), R) leaves an offset
/// of [0, M) uncovered (complement-hole).
Check check_complement(const CuteLayout& l, int64_t cotarget, const CuteLayout& r);
/// R(i) == L(i) on L's domain and size(R) == size(L).
Check check_same_function(const CuteLayout& l, const CuteLayout& r, const char* what);
/// R is L with the static stride-0 modes cut to extent 1: R(i) == L(i split over the cut extents).
Check check_zeros_removed(const CuteLayout& l, const CuteLayout& r, const char* what);
/// CuTe's right inverse contract (test/unit/cute/core/inverse_right.cpp): L(R(i)) == i for every
/// i < size(R), L evaluated as CuTe evaluates it, also past its domain (note past-domain). L and R
/// may be composed (swizzled) layouts.
Check check_right_inverse(const Layout& l, const Layout& r);
/// CuTe's left inverse contract (test/unit/cute/core/inverse_left.cpp): L(R(L(i))) == L(i) for
/// every i < size(L), both evaluated as CuTe evaluates them. Notes: L is not injective, so R is a
/// pseudo-inverse on L's image (pseudo-inverse); L(i) outside R's domain (past-domain).
Check check_left_inverse(const Layout& l, const Layout& r);
/// For n < N: the c with B(c) == n exists, is unique, and A(c) == n. Also reports the largest N
/// for which that holds. A and B may be composed (swizzled) layouts.
Check check_common_vector(const Layout& a, const Layout& b, int64_t n);
/// L injective (witness: two coordinates with one value).
Check check_injective(const CuteLayout& l, const char* name);
/// The leaves of R are the leaves of D in some order (a regrouping of modes only).
Check check_regrouping(const CuteLayout& d, const CuteLayout& r, const char* what);
/// R(x) == outer(inner(x)) for every int64 x, decided on the single bits (swizzles are linear over
/// GF(2)): 63 evaluations whatever the swizzles' bit positions.
Check check_swizzle_pair(const Swizzle& outer, const Swizzle& inner, const Swizzle& r);
/// R(i) == A(sw(i)) with sw(i) in A's domain, for i in A's domain.
Check check_layout_after_swizzle(const CuteLayout& a, const Swizzle& sw, const Layout& r);
/// R(i) == sw(L(i)) on L's domain.
Check check_swizzle_after_layout(const Swizzle& sw, const Layout& l, const Layout& r);

}  // namespace lp::algebra
