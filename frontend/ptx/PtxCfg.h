#pragma once
// A function's control-flow graph: basic blocks, reverse post-order, dominators and natural loops
// (each with the registers its body writes). Irreducible control flow and indirect branches are
// reported in `problem`; the evaluator then leaves the function unanalysed.
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "frontend/ptx/PtxModule.h"

namespace lp::ptx {

struct Block {
  size_t begin = 0, end = 0;  ///< instructions [begin, end)
  std::vector<int> succ;
};

struct Loop {
  int header = 0;
  std::vector<char> contains;    ///< per block
  std::vector<int> blocks_rpo;   ///< the body in reverse post-order (header first)
  std::optional<int> parent;     ///< the innermost enclosing loop; none at the outermost level
  std::vector<int> carried;      ///< registers written in the body (register indices)
};

struct Cfg {
  std::vector<Block> blocks;
  std::vector<int> block_of;     ///< instruction -> block
  std::vector<int> rpo;          ///< reachable blocks in reverse post-order
  std::vector<std::optional<int>> innermost;  ///< block -> innermost loop; none outside loops
  std::vector<Loop> loops;
  std::unordered_map<std::string, int> reg_index;  ///< register name -> index into a state
  std::vector<int> reg_bits;                        ///< width of each register (1..64)
  std::optional<std::pair<size_t, std::string>> problem;  ///< (PTX offset, why) when unanalysable
};

/// Whether `ins` ends a basic block (a branch, ret, exit).
bool is_terminator(const Instruction& ins);
/// Whether operand 0 of `ins` is written by it.
bool writes_first_operand(const Instruction& ins);

Cfg build_cfg(const Function& f);

}  // namespace lp::ptx
