#pragma once
// Where ptxas puts a kernel's shared-memory variables. PTX promises only a variable's `.align`;
// the cubin fixes its offset in the shared window (on sm_80 and later after the 1 KB the system
// reserves), and that offset is what the hardware's alignment and bank rules see. The cubin does
// not list static shared variables (only each kernel's `.nv.shared.KERNEL` section and its size),
// so the offsets are read from a probe: the module's own PTX with, at the entry of each kernel,
// one constant store per shared variable the kernel names (`mov.u32 %r, VAR;
// st.volatile.global.u32 [ADDR], %r`), assembled by ptxas and disassembled by nvdisasm; each store
// is found by its constant address in the SASS and its value is the variable's offset. The probe
// names no variable its kernel does not already use and adds no shared-memory access, so ptxas
// lays out the same variables with the same alignment demands; every offset read is checked
// against the declaration's `.align`, the section's size and the other variables, and a kernel
// whose offsets fail a check keeps the PTX's promise alone.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frontend/ptx/PtxModule.h"
#include "frontend/sass/SassListing.h"

namespace lp::ptx {

struct PlacementProbe {
  struct Marker {
    std::string kernel;  ///< PTX name
    std::string symbol;
    uint64_t address = 0;  ///< the global address its store writes
  };
  std::string ptx;  ///< the module's text with the marker stores inserted
  std::vector<Marker> markers;
  std::map<std::string, std::string> skipped;  ///< kernels given no markers, and why
  /// Where the markers went: `lines` line breaks inserted in the original's line `line` (1-based),
  /// before its first instruction, in order.
  struct Insertion {
    int line = 0;
    int lines = 0;
  };
  std::vector<Insertion> insertions;

  /// The original module's line of a line of the probe's text (1-based), or none for a line the
  /// probe added: how the probe's SASS, annotated with probe lines (`nvdisasm -gp`), is read
  /// against the module.
  std::optional<int> original_line(int probe_line) const;
};

/// The kernels' shared variables as the cubin places them.
struct SharedPlacement {
  /// kernel (PTX name) -> variable -> bytes from the start of the shared window.
  std::map<std::string, std::map<std::string, uint64_t>> offsets;
  /// kernel -> why its variables are not placed (they keep their PTX `.align` alone).
  std::map<std::string, std::string> unplaced;
};

/// The probe of every kernel of `module` (whose text is module.source) that names a shared variable.
PlacementProbe placement_probe(const Module& module);

/// The offsets the probe's disassembly shows, checked (see above).
SharedPlacement read_placement(const Module& module, const PlacementProbe& probe, const sass::Listing& listing);

}  // namespace lp::ptx
