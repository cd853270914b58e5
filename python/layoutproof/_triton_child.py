"""Runs Triton's layout conversions in a process of their own (layoutproof.triton starts it).

Triton's C++ aborts the whole process (LLVM ERROR, a failed assertion) on some layouts instead of
raising; here that ends this child, and the parent reports it as an exception.

stdin:  {"reg": repr or null, "smem": repr or null, "shape": [...], "bank_bits": int or null,
         "arch": "sm90"}, the layouts as Gluon prints them (their repr is their constructor);
        or {"ttgir": path, "arch": "sm90"}.
stdout: one JSON object: the register layout's bases, the shared layout's offset bases and their
        inverse (Triton's LinearLayout.invert), and Triton's bank-conflict count when asked; for a
        TTGIR file, its shared-memory ops with their layouts (as Gluon's reprs), shape, tensor
        type and location.
"""
import json
import os
import sys


def main() -> None:
    request = json.load(sys.stdin)
    from triton._C.libtriton import gluon_ir, ir, linear_layout, nvidia
    from triton.experimental.gluon import language as gl

    # Only Gluon's layout classes may be named: the text is evaluated with nothing else in scope.
    names = {name: getattr(gl, name) for name in dir(gl) if name.endswith("Layout") and isinstance(getattr(gl, name), type)}

    def layout(text):
        return None if text is None else eval(text, {"__builtins__": {}}, names)  # noqa: S307 (names only)

    ctx = ir.context()
    ir.load_dialects(ctx)
    nvidia.load_dialects(ctx)
    builder = gluon_ir.GluonOpBuilder(ctx, request["arch"])
    if request.get("ttgir"):
        sys.stdout.write(json.dumps({"accesses": shared_memory_ops(ir, builder, ctx, request["ttgir"])}))
        sys.stdout.flush()
        os._exit(0)
    reg, smem, shape = layout(request["reg"]), layout(request["smem"]), list(request["shape"])
    out = {"triton": __import__("triton").__version__}
    num_warps = None
    if reg is not None:
        r = builder.to_linear_layout(reg._to_ir(builder), shape)
        out["reg"] = {"register": r.reg_bases, "lane": r.lane_bases, "warp": r.warp_bases, "block": r.block_bases}
        num_warps = 1 << len(r.warp_bases)
    if smem is not None:
        s = builder.to_linear_layout(smem._to_ir(builder), shape)
        out["smem"] = {"offset": s.offset_bases, "block": s.block_bases, "alignment": s.alignment}
        dims = [f"dim{d}" for d in range(len(shape))]
        forward = linear_layout.LinearLayout.from_bases([("offset", s.offset_bases)], dims, shape, False)
        out["invertible"] = forward.is_invertible()
        if out["invertible"]:
            inverse = forward.invert()
            out["inverse"] = {name: [b[0] for b in bases] for name, bases in inverse.bases}
    if request.get("bank_bits") is not None:
        # get_shared_bank_conflicts needs a module with the ttg attributes and an insertion point,
        # set before the layouts become attributes (else it crashes).
        b = gluon_ir.GluonOpBuilder(ctx, request["arch"])
        module = b.create_module()
        module.set_attr("ttg.target", b.get_string_attr("cuda:" + request["arch"][2:]))
        module.set_attr("ttg.num-warps", b.get_int32_attr(num_warps or 4))
        module.set_attr("ttg.num-ctas", b.get_int32_attr(1))
        module.set_attr("ttg.threads-per-warp", b.get_int32_attr(1 << len(out["reg"]["lane"])))
        fn = b.get_or_insert_function(module, "layoutproof_probe", b.get_function_ty([], []), "public", False)
        module.push_back(fn)
        b.set_insertion_point_to_start(fn.add_entry_block())
        out["bank_conflicts"] = b.get_shared_bank_conflicts(reg._to_ir(b), smem._to_ir(b), shape,
                                                            request["bank_bits"])
    sys.stdout.write(json.dumps(out))
    sys.stdout.flush()
    os._exit(0)  # skip nanobind's leak report at interpreter exit


# The shared-memory ops of a TTGIR module: (memdesc operand, register-side value) per op name.
SHARED_OPS = {"ttg.local_load": (0, "result"), "ttg.local_store": (1, 0), "ttg.async_copy_global_to_local": (1, 0)}


# Ops whose result is the same in every element when their operands are: a mask built from them
# is one predicate for the whole warp (the pipeliner's "this stage runs"), not a per-lane mask.
UNIFORM_SOURCES = {"tt.splat", "arith.constant"}
UNIFORM_WHEN_OPERANDS_ARE = {"arith.andi", "arith.ori", "arith.xori", "arith.cmpi", "arith.select", "tt.broadcast",
                             "ttg.convert_layout"}


def shared_memory_ops(ir, builder, ctx, path):
    module = ir.parse_mlir_module(path, ctx)
    found = []
    defined = {}  # value id -> (defining op's name, its operands' ids)

    def define(op):
        operands = [op.get_operand(k).id() for k in range(op.get_num_operands())]
        for k in range(op.get_num_results()):
            defined[op.get_result(k).id()] = (op.get_name(), operands)

    def uniform(value_id, depth=0):
        # A block argument (a loop-carried mask) has no defining op here: taken as per lane.
        if value_id not in defined or depth > 64:
            return False
        name, operands = defined[value_id]
        if name in UNIFORM_SOURCES:
            return True
        return name in UNIFORM_WHEN_OPERANDS_ARE and all(uniform(o, depth + 1) for o in operands)

    module.walk(define)

    def visit(op):
        name = op.get_name()
        if name == "ttg.convert_layout":  # through shared memory or not, the backend decides: listed
            tensor = op.get_result(0)
            found.append({"op": name, "reg": repr(builder.get_gluon_layout_from_tensor(op.get_operand(0))),
                          "smem": repr(builder.get_gluon_layout_from_tensor(tensor)),
                          "shape": list(tensor.get_shape()), "type": str(tensor.get_type()), "masked": False})
            return
        if name not in SHARED_OPS:
            return
        memdesc_at, tensor_at = SHARED_OPS[name]
        tensor = op.get_result(0) if tensor_at == "result" else op.get_operand(tensor_at)
        memdesc = op.get_operand(memdesc_at)
        found.append({"op": name, "reg": repr(builder.get_gluon_layout_from_tensor(tensor)),
                      "smem": repr(builder.get_gluon_layout_from_memdesc(memdesc)), "shape": list(tensor.get_shape()),
                      "type": str(tensor.get_type()),
                      # source, destination, then the optional mask and other value; a mask that is
                      # one predicate for the whole warp zero-fills all lanes or none
                      "masked": name == "ttg.async_copy_global_to_local" and op.get_num_operands() > 2
                      and not uniform(op.get_operand(2).id())})

    module.walk(visit)
    return found


if __name__ == "__main__":
    main()
