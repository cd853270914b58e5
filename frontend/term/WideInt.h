#pragma once
// 128-bit integers (a GCC and Clang extension) for the high half of a product (mul.hi): the pool
// folds constant products with them (TermOperations.cpp) and the evaluator computes them (Term.cpp).

namespace lp::term::detail {

__extension__ using Int128 = __int128;
__extension__ using UInt128 = unsigned __int128;

}  // namespace lp::term::detail
