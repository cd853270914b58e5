#pragma once
// CuTe's algebra by operation name, its operands given as text: the one reading of `layoutproof
// algebra OP ARG...` and of the Python module's `layoutproof.algebra`. Layouts are read in any
// notation; tilers as `[T0, T1, ...]` (N means N:_1, `_` keeps a mode); swizzles as Sw<B,M,S>;
// complement's cotarget and tile_to_shape's target as flat shapes.
#include <string>
#include <vector>

#include "analyzer/algebra/Operations.h"
#include "analyzer/support/Error.h"

namespace lp {

/// An operation name it does not know, or the wrong number of operands for one; the message says
/// what was expected.
class OperationError : public Error {
 public:
  using Error::Error;
};

/// Every operation's name: "compose", "complement", "logical_divide", ...
const std::vector<std::string>& algebra_operation_names();

/// CuTe's result of `op` on `operands` (operand K is named `<operand K>` in diagnostics), with
/// its check still undecided while it carries claims (decide them with lp::decide_claims).
/// Throws DiagnosticError for a malformed operand and OperationError for an unknown operation, a
/// wrong count or a tiler extent below 1.
algebra::Outcome evaluate_algebra_operation(const std::string& op, const std::vector<std::string>& operands);

}  // namespace lp
