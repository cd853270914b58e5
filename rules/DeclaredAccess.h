#pragma once
// The shared-memory access an `access` statement declares, modelled once for every user: LP002
// proves it, `layoutproof explain` shows it lane by lane.
#include <optional>

#include "rules/BufferGraph.h"
#include "solver/SmemAccess.h"

namespace lp::rules {

/// The access of `acc`: its buffer's layout and element type, its lane map, its instruction, its
/// architecture (the file's `arch`, else the default) and the buffer's alignment (else
/// hw::kDefaultBaseAlignment). Nullopt when the buffer, its layout or its type is missing (the
/// parser reported it). Throws AccessError for an access that cannot be modelled.
std::optional<SmemAccess> declared_access(const BufferGraph& graph, const annotate::AccessDecl& acc);

}  // namespace lp::rules
