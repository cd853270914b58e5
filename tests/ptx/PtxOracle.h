#pragma once
// The oracle of tests/data/ptx/smem_kernels.cu and smem_sm90.cu: for every access marked
// `// ORACLE tag` in the CUDA source, its index formula written out again here (from the source,
// not from the PTX), the lanes that execute it, and the width. The recovered per-lane addresses
// must equal the formula, and the verdict must be what hw::smem_access_cost says of the formula's
// addresses.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "support/Files.h"

namespace lp::test {

/// The `// ORACLE tag` markers of a CUDA file: tag -> line.
inline std::map<std::string, int> oracle_lines(const std::string& cu) {
  std::map<std::string, int> out;
  std::istringstream in(read_file(cu));
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const size_t p = line.find("// ORACLE ");
    if (p == std::string::npos) continue;
    std::istringstream tags(line.substr(p + 10));
    for (std::string tag; tags >> tag;) out[tag] = n;
  }
  return out;
}

/// Values of one sample: the lane, the warp, and the uniform unknowns by the start of their name
/// ("n@" the loop's iteration, "stage@" the stage counter's index, a parameter's PTX name).
struct OracleEnv {
  int lane = 0, warp = 0;
  int64_t threads = 1024;  ///< the block's threads (ntid.x of a one-dimensional launch): thread tid() exists below it
  std::map<std::string, int64_t> uniforms;
  int64_t get(const std::string& prefix) const {
    for (const auto& [name, v] : uniforms)
      if (name.rfind(prefix, 0) == 0) return v;
    return 0;
  }
  int tid() const { return warp * 32 + lane; }
  /// The iteration of the i-th loop (in the order of the PTX) among those the access depends on.
  int64_t iteration(size_t i) const {
    std::map<int, int64_t> by_line;
    for (const auto& [name, v] : uniforms)
      if (name.rfind("n@line ", 0) == 0) by_line[std::stoi(name.substr(7))] = v;
    auto it = by_line.begin();
    for (size_t k = 0; k < i && it != by_line.end(); ++k) ++it;
    return it == by_line.end() ? 0 : it->second;
  }
};

/// The loops of smem_kernels.cu run from the source: the counter at iteration n, or nullopt when
/// the loop does not run an n-th iteration; and the iteration the loop leaves at (none when it
/// does not run at all).
struct SourceLoop {
  std::function<int64_t(const OracleEnv&)> first;
  std::function<int64_t(int64_t)> next;
  std::function<bool(const OracleEnv&, int64_t)> runs;
  std::optional<int64_t> at(const OracleEnv& e, int64_t n) const {
    int64_t v = first(e);
    for (int64_t k = 0;; ++k) {
      if (!runs(e, v)) return std::nullopt;
      if (k == n) return v;
      v = next(v);
    }
  }
  std::optional<int64_t> last(const OracleEnv& e) const {
    std::optional<int64_t> l;
    for (int64_t k = 0; at(e, k); ++k) l = k;
    return l;
  }
  /// Code after the loop, reached with the loop's iteration count at n.
  bool after(const OracleEnv& e, int64_t n) const {
    const auto l = last(e);
    return !l || *l == n;
  }
};

struct OracleAccess {
  std::string kernel;  ///< the kernel's name in the CUDA source
  std::string tag;
  std::string instr;  ///< the hw catalog name the access must map to
  std::function<int64_t(const OracleEnv&)> offset;  ///< bytes from the shared symbol's base
  std::function<bool(const OracleEnv&)> active = [](const OracleEnv&) { return true; };
  bool unknown = false;  ///< the bank model does not cover it: recovered, but reported unknown
};

// for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) (and the signed h /= 2 of `quartering`)
inline SourceLoop halving_loop() {
  return {[](const OracleEnv& e) { return e.threads / 2; }, [](int64_t h) { return h / 2; }, [](const OracleEnv&, int64_t h) { return h > 0; }};
}
// for (unsigned d = 1; d < blockDim.x; d *= 2)
inline SourceLoop doubling_loop() {
  return {[](const OracleEnv&) { return int64_t{1}; }, [](int64_t d) { return (2 * d) & 0xffffffff; },
          [](const OracleEnv& e, int64_t d) { return d < e.threads; }};
}
// for (int stride = n >> 2; stride > 0; stride >>= 2), n the kernel's parameter
inline SourceLoop radix4_loop() {
  return {[](const OracleEnv& e) { return e.get("_Z10quarteringPfi_param_1") >> 2; }, [](int64_t s) { return s >> 2; },
          [](const OracleEnv&, int64_t s) { return s > 0; }};
}
// for (size = 2; size < 256; size <<= 1) for (stride = size / 2; stride > 0; stride >>= 1)
inline std::optional<int64_t> bitonic_stride(const OracleEnv& e) {
  const SourceLoop sizes{[](const OracleEnv&) { return int64_t{2}; }, [](int64_t s) { return 2 * s; },
                         [](const OracleEnv&, int64_t s) { return s < 256; }};
  const auto size = sizes.at(e, e.iteration(0));
  if (!size) return std::nullopt;
  const SourceLoop strides{[&](const OracleEnv&) { return *size / 2; }, [](int64_t s) { return s / 2; },
                           [](const OracleEnv&, int64_t s) { return s > 0; }};
  return strides.at(e, e.iteration(1));
}
inline bool bitonic_runs(const OracleEnv& e) { return bitonic_stride(e).has_value(); }
inline int64_t bitonic_pos(const OracleEnv& e) {
  const int64_t stride = bitonic_stride(e).value_or(1);
  return 2 * e.tid() - (e.tid() & (stride - 1));
}

inline std::vector<OracleAccess> smem_kernel_oracle() {
  using E = const OracleEnv&;
  return {
      {"padded", "padded_store", "st.shared.b32", [](E e) { return 4 * (33 * e.warp + e.lane); }},
      {"padded", "padded_load", "ld.shared.b32", [](E e) { return 4 * (33 * e.lane + e.warp); }},
      {"naive", "naive_store", "st.shared.b32", [](E e) { return 4 * (32 * e.warp + e.lane); }},
      {"naive", "naive_load", "ld.shared.b32", [](E e) { return 4 * (32 * e.lane + e.warp); }},
      {"swizzled", "swizzled_store", "st.shared.b32", [](E e) { return 4 * (32 * e.warp + (e.lane ^ e.warp)); }},
      {"swizzled", "swizzled_load", "ld.shared.b32", [](E e) { return 4 * (32 * e.lane + (e.warp ^ e.lane)); }},
      {"predicated", "predicated_fill", "st.shared.b32", [](E e) { return 4 * e.tid(); }},
      {"predicated", "predicated_even", "ld.shared.b32", [](E e) { return 4 * 16 * e.lane; }, [](E e) { return e.lane % 2 == 0; }},
      {"predicated", "predicated_half", "ld.shared.b32", [](E e) { return 4 * 2 * e.lane; }, [](E e) { return e.lane < 16; }},
      {"divergent", "divergent_fill", "st.shared.b32", [](E e) { return 4 * e.tid(); }},
      // nvcc turns the if/else into one load of a selected address: both sides in one instruction
      // (and gives it the line of the next statement).
      {"divergent", "divergent_low", "ld.shared.b32", [](E e) { return e.lane < 16 ? 4 * (e.lane + 64) : 4 * (2 * e.lane + 1); }},
      {"divergent", "divergent_flag", "ld.shared.b32", [](E e) { return 4 * ((e.lane * 8) & 255); },
       [](E e) { return e.get("_Z9divergentPfPKfi_param_2") != 0; }},
      // Iteration n of the loop runs while n < k_tiles.
      {"stages", "stages_store", "st.shared.b32", [](E e) { return 4 * (128 * e.get("stage@") + e.tid()); },
       [](E e) { return e.get("n@") < e.get("_Z6stagesPfPKfi_param_2"); }},
      {"stages", "stages_load", "ld.shared.b32", [](E e) { return 4 * (128 * e.get("stage@") + ((e.tid() * 4) & 127)); },
       [](E e) { return e.get("n@") < e.get("_Z6stagesPfPKfi_param_2"); }},
      {"dynamic_offset", "dynamic_store", "st.shared.b32", [](E e) { return 16 * e.get("_Z14dynamic_offsetPfi_param_1") + 4 * e.tid(); }},
      {"dynamic_offset", "dynamic_load", "ld.shared.b32", [](E e) { return 16 * e.get("_Z14dynamic_offsetPfi_param_1") + 4 * (e.tid() ^ 1); }},
      {"noinline_call", "call_store", "st.shared.b32", [](E e) { return 4 * 2 * (e.tid() & 127); }},
      {"noinline_call", "call_load", "ld.shared.b32", [](E e) { return 4 * e.tid(); }},
      {"vectors", "vec_store4", "st.shared.v4.b32", [](E e) { return 16 * e.tid(); }},
      {"vectors", "vec_store2", "st.shared.v2.b32", [](E e) { return 8 * 2 * e.tid(); }},
      {"vectors", "vec_store16", "st.shared.u16", [](E e) { return 2 * 2 * e.tid(); }},
      {"vectors", "vec_store8", "st.shared.u8", [](E e) { return 4 * e.tid(); }},
      {"vectors", "vec_load4", "ld.shared.v4.b32", [](E e) { return 16 * ((e.tid() * 2) & 127); }},
      {"vectors", "vec_load2", "ld.shared.v2.b32", [](E e) { return 8 * e.tid(); }},
      {"vectors", "vec_load16", "ld.shared.u16", [](E e) { return 2 * e.tid(); }},
      {"vectors", "vec_load8", "ld.shared.u8", [](E e) { return e.tid(); }},
      {"matrices", "ldsm_plain", "ldmatrix.x4", [](E e) { return (e.lane % 16) * 128 + (e.lane / 16) * 16; }},
      {"matrices", "ldsm_swizzled", "ldmatrix.x4", [](E e) { return (e.lane % 16) * 128 + (((e.lane / 16) ^ ((e.lane % 16) % 8)) * 16); }},
      {"matrices", "ldsm_trans", "ldmatrix.x2.trans", [](E e) { return (e.lane % 16) * 128 + e.warp * 32; }},
      {"async_copy", "cp_dense", "cp.async.cg.16", [](E e) { return 16 * e.tid(); }},
      {"async_copy", "cp_strided", "cp.async.cg.16", [](E e) { return 32 * e.tid(); }, [](E) { return true; }, true},
      {"async_copy", "cp_read", "ld.shared.b32", [](E e) { return 16 * e.tid(); }},
      {"atomics", "atomic_clear", "st.shared.b32", [](E e) { return 4 * e.tid(); }, [](E e) { return e.tid() < 64; }},
      {"atomics", "atomic_add", "", [](E e) { return 4 * (e.tid() & 63); }},
      {"atomics", "atomic_read", "ld.shared.b32", [](E e) { return 4 * (e.tid() & 63); }},
      // The loops' counters, iteration by iteration (see SourceLoop).
      {"halving", "halving_fill", "st.shared.b32", [](E e) { return 4 * e.tid(); }},
      {"halving", "halving_near", "ld.shared.b32", [](E e) { return 4 * e.tid(); },
       [](E e) { auto h = halving_loop().at(e, e.iteration(0)); return h && e.tid() < *h; }},
      {"halving", "halving_far", "ld.shared.b32", [](E e) { return 4 * (e.tid() + halving_loop().at(e, e.iteration(0)).value_or(0)); },
       [](E e) { auto h = halving_loop().at(e, e.iteration(0)); return h && e.tid() < *h; }},
      {"halving", "halving_store", "st.shared.b32", [](E e) { return 4 * e.tid(); },
       [](E e) { auto h = halving_loop().at(e, e.iteration(0)); return h && e.tid() < *h; }},
      {"halving", "halving_result", "ld.shared.b32", [](E) { return 0; },
       [](E e) { return e.tid() == 0 && halving_loop().after(e, e.iteration(0)); }},
      {"doubling", "doubling_fill", "st.shared.b32", [](E e) { return 4 * e.tid(); }},
      {"doubling", "doubling_near", "ld.shared.b32", [](E e) { return 4 * 2 * doubling_loop().at(e, e.iteration(0)).value_or(0) * e.tid(); },
       [](E e) { auto d = doubling_loop().at(e, e.iteration(0)); return d && 2 * *d * e.tid() < e.threads; }},
      {"doubling", "doubling_far", "ld.shared.b32",
       [](E e) { const int64_t d = doubling_loop().at(e, e.iteration(0)).value_or(0); return 4 * (2 * d * e.tid() + d); },
       [](E e) { auto d = doubling_loop().at(e, e.iteration(0)); return d && 2 * *d * e.tid() < e.threads; }},
      {"doubling", "doubling_store", "st.shared.b32", [](E e) { return 4 * 2 * doubling_loop().at(e, e.iteration(0)).value_or(0) * e.tid(); },
       [](E e) { auto d = doubling_loop().at(e, e.iteration(0)); return d && 2 * *d * e.tid() < e.threads; }},
      {"doubling", "doubling_result", "ld.shared.b32", [](E) { return 0; },
       [](E e) { return e.tid() == 0 && doubling_loop().after(e, e.iteration(0)); }},
      {"quartering", "signed_halving", "st.shared.b32", [](E e) { return 4 * (e.tid() ^ halving_loop().at(e, e.iteration(0)).value_or(0)); },
       [](E e) { return halving_loop().at(e, e.iteration(0)).has_value(); }},
      {"quartering", "radix4", "ld.shared.b32",
       [](E e) {
         const int64_t stride = radix4_loop().at(e, e.iteration(1)).value_or(1), lo = e.tid() & (stride - 1);
         return 4 * ((((e.tid() - lo) << 2) + lo) & 511);
       },
       [](E e) { return halving_loop().after(e, e.iteration(0)) && radix4_loop().at(e, e.iteration(1)).has_value(); }},
      {"bitonic", "bitonic_fill", "st.shared.b32", [](E e) { return 4 * e.tid(); }},
      {"bitonic", "bitonic_near", "ld.shared.b32", [](E e) { return 4 * bitonic_pos(e); }, bitonic_runs},
      {"bitonic", "bitonic_far", "ld.shared.b32", [](E e) { return 4 * (bitonic_pos(e) + bitonic_stride(e).value_or(0)); }, bitonic_runs},
      {"bitonic", "bitonic_store", "st.shared.b32", [](E e) { return 4 * bitonic_pos(e); }, bitonic_runs},
      // Every lane, whichever iteration it left the block-stride loop at.
      {"after_divergent", "reconverged", "st.shared.b32", [](E e) { return 4 * ((e.lane & 1) * 32 + (e.lane >> 1) + 64 * e.warp); }},
      {"after_divergent", "reconverged_read", "ld.shared.b32", [](E e) { return 4 * e.tid(); }},
      // Iteration n runs for the lanes whose index tid + n * blockDim.x is still below n.
      {"block_stride", "block_stride_store", "st.shared.b32",
       [](E e) { return 4 * ((e.tid() + e.iteration(0) * e.threads) & 511); },
       [](E e) { return e.tid() + e.iteration(0) * e.threads < e.get("_Z12block_stridePfi_param_1"); }},
      {"block_stride", "block_stride_load", "ld.shared.b32",
       [](E e) { return 4 * (((e.tid() + e.iteration(0) * e.threads) ^ 1) & 511); },
       [](E e) { return e.tid() + e.iteration(0) * e.threads < e.get("_Z12block_stridePfi_param_1"); }},
      {"block_stride", "block_stride_read", "ld.shared.b32", [](E e) { return 4 * e.tid(); }},
      {"store_matrices", "stsm_plain", "stmatrix.x4", [](E e) { return (e.lane % 8) * 128 + (e.lane / 8) * 16; }},
      {"store_matrices", "stsm_swizzled", "stmatrix.x4", [](E e) { return (e.lane % 8) * 128 + (((e.lane / 8) ^ (e.lane % 8)) * 16); }},
      {"store_matrices", "stsm_read", "ld.shared.u16", [](E e) { return 2 * e.tid(); }},
  };
}

/// CuTe's Swizzle<2,3,3> on an element offset (cute/swizzle.hpp): bits [6,8) XORed into [3,5).
inline int64_t swizzle_233(int64_t x) { return x ^ ((x & 0xc0) >> 3); }

/// tests/data/ptx/cute_sm80_mainloop.cu: the 2-stage (64,32) half tile tile_to_shape'd from
/// Swizzle<2,3,3> o (8,32):(32,1) atoms (atoms down M, then stages), written out by hand.
inline int64_t cute_tile_byte(int64_t m, int64_t k, int64_t stage) {
  return 2 * (256 * (m / 8) + swizzle_233(32 * (m % 8) + k) + 2048 * stage);
}

inline std::vector<OracleAccess> cute_kernel_oracle() {
  using E = const OracleEnv&;
  std::vector<OracleAccess> out;
  auto running = [](E e) { return e.get("n@") < e.get("_Z13cute_mainloop"); };
  // cp.async: thread t of the (32,4):(4,1) copy layout writes row t/4 (+32 on the second pass),
  // 8 halves from column 8*(t%4).
  for (int pass = 0; pass < 2; ++pass)
    out.push_back({"cute_mainloop", "cute_cp_" + std::to_string(pass), "cp.async.cg.16",
                   [pass](E e) { return cute_tile_byte(e.tid() / 4 + 32 * pass, 8 * (e.tid() % 4), e.get("stage@")); }, running});
  // ldmatrix.x4 for the A operand of a 2x2-warp m16n8k16 MMA: warp w covers rows 16*(w%2) (+32 on
  // the second M repetition); lane l gives row l%16 of columns 8*(l/16) (+16 for the second k block).
  for (int mrep = 0; mrep < 2; ++mrep)
    for (int kk = 0; kk < 2; ++kk)
      out.push_back({"cute_mainloop", "cute_ldsm_" + std::to_string(mrep) + std::to_string(kk), "ldmatrix.x4",
                     [mrep, kk](E e) {
                       return cute_tile_byte(16 * (e.warp % 2) + 32 * mrep + e.lane % 16, 16 * kk + 8 * (e.lane / 16), e.get("stage@"));
                     },
                     running});
  return out;
}

}  // namespace lp::test
