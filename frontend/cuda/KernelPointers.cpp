// Kernels launched through function-pointer variables of host code (KernelPointers,
// CudaSourceTokens.h): `void (*kernel)(float*, int); ... kernel = &transposeNaive; ...
// kernel<<<grid, threads>>>(...)`, as cuda-samples' transpose chooses its kernel.
#include <map>

#include "frontend/cuda/CudaSourceTokens.h"

namespace lp::cuda::detail {

namespace {

// The kernel an assignment's right side [b, e) names: `&k`, `k`, `ns::k`, `&k<16>` (template
// arguments as written, spaces removed); nullopt for anything else.
std::optional<std::string> assigned_kernel(const std::vector<Token>& t, size_t b, size_t e) {
  if (b < e && t[b].is("&")) ++b;
  std::string name;
  size_t k = b;
  while (k < e && t[k].kind == Token::Kind::Identifier) {
    name += t[k++].text;
    if (k < e && t[k].is("::")) name += t[k++].text;
    else break;
  }
  if (name.empty() || name.back() == ':') return std::nullopt;
  if (k < e && t[k].is("<")) {
    for (; k < e; ++k) {
      if (t[k].kind == Token::Kind::Punct && !t[k].is("<") && !t[k].is(">") && !t[k].is(",")) return std::nullopt;
      name += t[k].text;
      if (t[k].is(">")) {
        ++k;
        break;
      }
    }
  }
  return k == e ? std::optional<std::string>(name) : std::nullopt;
}

}  // namespace

KernelPointers::KernelPointers(const std::vector<Token>& t, const std::vector<size_t>& match,
                               const std::vector<size_t>& block_of) {
  for (size_t k = 2; k + 2 < t.size(); ++k) {
    // A declarator `(*NAME)(...)`.
    if (t[k].kind != Token::Kind::Identifier || !t[k - 1].is("*") || !t[k - 2].is("(") || !t[k + 1].is(")") ||
        !t[k + 2].is("(") || match[k + 2] == std::string::npos)
      continue;
    Pointer p;
    p.at = k;
    p.scope_end = block_of[k] == std::string::npos ? t.size() : match[block_of[k]];
    p.targets.emplace();
    // Every use in its scope: an assignment of a kernel (or the declaration's initializer), a
    // comparison, a launch or a cast's operand read it; its address taken or another assignment
    // makes what it holds unknown.
    auto assignment = [&](size_t eq) {
      size_t end = eq + 1;
      while (end < t.size() && !t[end].is(";") && !t[end].is(",")) ++end;
      auto kernel = assigned_kernel(t, eq + 1, end);
      if (kernel) p.targets->push_back(*kernel);
      else p.targets.reset();
    };
    if (match[k + 2] + 1 < t.size() && t[match[k + 2] + 1].is("=")) assignment(match[k + 2] + 1);
    for (size_t j = match[k + 2] + 1; j < p.scope_end && j < t.size() && p.targets; ++j) {
      if (!t[j].is(t[k].text) || t[j - 1].is(".") || t[j - 1].is("->") || t[j - 1].is("::")) continue;
      if (t[j - 1].is("&")) p.targets.reset();
      else if (j + 1 < t.size() && t[j + 1].is("=")) assignment(j + 1);
    }
    pointers_[t[k].text].push_back(std::move(p));
  }
}

std::vector<std::string> KernelPointers::launched(const std::string& name, size_t use) const {
  auto it = pointers_.find(name);
  if (it == pointers_.end()) return {name};
  const Pointer* found = nullptr;
  for (const Pointer& p : it->second)
    if (p.at < use && use < p.scope_end && (!found || p.at > found->at)) found = &p;  // the innermost
  if (!found) return {name};
  return found->targets.value_or(std::vector<std::string>{});
}

}  // namespace lp::cuda::detail
