#pragma once
// The shared-memory access an `access` statement declares, modelled once for every user: LP002
// proves it, `layoutproof explain` shows it lane by lane.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "rules/BufferGraph.h"
#include "solver/SmemAccess.h"

namespace lp::rules {

/// The access of `acc`: its buffer's layout and element type, its lane map, its instruction, its
/// architecture (the file's `arch`, else the default) and the buffer's alignment (else
/// hw::kDefaultBaseAlignment). With `offsets`, the lane map's values are element offsets and the
/// buffer is one mode over the offsets its layout reaches. Nullopt when the buffer, its layout or its type is missing (the
/// parser reported it). Throws AccessError for an access that cannot be modelled.
std::optional<SmemAccess> declared_access(const BufferGraph& graph, const annotate::AccessDecl& acc);
/// An access whose buffer layout or lane map uses parameters: the parameters either uses (in
/// declaration order) and how to build the access at values of them.
struct ParametricAccess {
  std::vector<ParamSpec> specs;
  std::string names;  ///< "M", "M and N"
  /// The access at one value per spec; throws AccessError for an instance that cannot be modelled.
  std::function<SmemAccess(const std::vector<int64_t>&)> make;
  /// Per spec: it stands only in the buffer's strides, once per term (solver/ParametricConflicts.h).
  std::vector<bool> affine_in_strides;
  std::string label(const std::vector<int64_t>& values) const;  ///< "M=72, N=8"
  int64_t value_count() const;                                   ///< admissible value vectors
};

/// Nullopt when neither the buffer's layout nor the lane map uses a parameter. The buffer has a
/// layout and a type.
std::optional<ParametricAccess> parametric_access(const BufferGraph& graph, const annotate::BufferDecl& buf,
                                                  const annotate::AccessDecl& acc);

/// The same access over given instances of the buffer's layout and the lane map (the layouts
/// with their parameters set). The buffer has a layout and a type.
SmemAccess declared_access(const annotate::BufferDecl& buf, const annotate::AccessDecl& acc, const Layout& smem,
                           const Layout& lanes);

}  // namespace lp::rules
