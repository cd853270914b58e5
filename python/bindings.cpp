// layoutproof._core: the C++ libraries as a Python extension (pybind11). This file only converts:
// Python values in, the libraries' results out as Python objects, and the libraries' errors as
// Python exceptions carrying their diagnostics. Every decision is the libraries' own; the Python
// package (python/layoutproof/) adds the friendly names and the pytest helpers.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <new>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/ir/Checked.h"
#include "analyzer/parse/OperationParser.h"
#include "analyzer/parse/Parsers.h"
#include "analyzer/support/Governor.h"
#include "analyzer/support/Version.h"
#include "api/AlgebraRecords.h"
#include "hw/Arch.h"
#include "hw/BankModel.h"
#include "hw/ElementType.h"
#include "hw/SmemInstr.h"
#include "report/Report.h"
#include "report/TextReport.h"
#include "rules/Checker.h"
#include "solver/AlgebraClaims.h"
#include "solver/BankConflicts.h"
#include "solver/Coverage.h"
#include "solver/Injectivity.h"
#include "solver/SmemAccess.h"

namespace py = pybind11;

namespace lp::python {

namespace {

// The exception classes, created once at import (layoutproof.Error and its two kinds).
PyObject* g_error = nullptr;
PyObject* g_layout_error = nullptr;
PyObject* g_input_error = nullptr;

PyObject* new_exception(py::module_& m, const char* name, PyObject* bases, const char* doc) {
  PyObject* type = PyErr_NewExceptionWithDoc(fmt::format("layoutproof.{}", name).c_str(), doc, bases, nullptr);
  if (!type) throw py::error_already_set();
  m.add_object(name, py::handle(type));
  return type;
}

// A located diagnostic: the exception's text is the clang-style rendering; its parts are attributes.
void raise_diagnostic(const Diagnostic& d) {
  py::object type = py::reinterpret_borrow<py::object>(g_layout_error);
  const std::string rendered = d.render();
  py::object exc = type(rendered);
  exc.attr("diagnostic") = rendered;
  exc.attr("message") = d.message;
  if (d.loc.source) {
    const auto [line, col] = d.line_col();
    exc.attr("file") = d.loc.source->name;
    exc.attr("line") = line;
    exc.attr("column") = col;
  } else {
    exc.attr("file") = py::none();
    exc.attr("line") = py::none();
    exc.attr("column") = py::none();
  }
  PyErr_SetObject(g_layout_error, exc.ptr());
}

void translate(std::exception_ptr p) {
  try {
    if (p) std::rethrow_exception(p);
  } catch (const DiagnosticError& e) {
    raise_diagnostic(e.diagnostic());
  } catch (const std::bad_alloc&) {
    PyErr_SetString(PyExc_MemoryError, "the system refused the memory this call needs");
  } catch (const Error& e) {  // input the libraries cannot accept (analyzer/support/Error.h)
    PyErr_SetString(g_input_error, e.what());
  } catch (const ConversionError& e) {  // a layout the asked notation cannot spell
    PyErr_SetString(g_input_error, e.what());
  } catch (const std::invalid_argument& e) {  // operands the solver cannot compare
    PyErr_SetString(g_input_error, e.what());
  }
}

Engine engine_arg(const std::string& name) {
  try {
    return engine_from_name(name);
  } catch (const std::invalid_argument&) {
    throw Error(fmt::format("engine '{}': expected {}", name, engine_choices()));
  }
}

std::optional<Notation> notation_arg(const std::optional<std::string>& name) {
  if (!name || name->empty() || *name == "auto") return std::nullopt;
  if (auto n = notation_from_name(*name)) return n;
  throw Error(fmt::format("notation '{}': expected {} or auto", *name, fmt::join(notation_names(), ", ")));
}

SolverLimits limits_arg(unsigned timeout_ms) {
  SolverLimits limits;
  limits.timeout_ms = timeout_ms;
  return limits;
}

// Every proof runs under the memory budget the CLI's commands run under (the process's resident
// memory, the interpreter's included): what would pass it is unknown, never a crash.
class ProofBudget {
 public:
  ProofBudget() : scope_(budget()) {}

 private:
  static Budget budget() {
    Budget b;
    b.memory_bytes = uint64_t{SolverLimits{}.memory_mb} << 20;
    b.memory_name = "the memory budget of a proof";
    return b;
  }
  BudgetScope scope_;
};

// A parsed layout and the notation it was read in.
struct PyLayout {
  Layout layout;
  Notation notation;

  std::string text() const { return print_cute_or_tirx(layout); }

  void check_index(int64_t i) const {
    if (i < 0 || i >= layout.size())
      throw py::index_error(fmt::format("index {} is outside the domain [0, {})", i, layout.size()));
  }

  // A 1-D index, or a coordinate with one entry per top-level mode.
  int64_t index_of(const py::handle& at) const {
    if (py::isinstance<py::int_>(at)) {
      const int64_t i = at.cast<int64_t>();
      check_index(i);
      return i;
    }
    if (!py::isinstance<py::sequence>(at) || py::isinstance<py::str>(at))
      throw py::type_error(fmt::format("expected a 1-D index or a coordinate tuple, got {}", py::type::of(at).attr("__name__").cast<std::string>()));
    std::vector<int64_t> coord;
    try {
      coord = at.cast<std::vector<int64_t>>();
    } catch (const py::cast_error&) {
      throw py::type_error("a coordinate's entries are integers");
    }
    const auto& modes = layout.modes();
    if (coord.size() != modes.size())
      throw Error(fmt::format("a coordinate of {} entries, but the layout has {} modes", coord.size(), modes.size()));
    for (size_t k = 0; k < coord.size(); ++k) {
      if (!modes[k].extent.known()) throw Error(fmt::format("mode {} has no extent", k));
      if (coord[k] < 0 || coord[k] >= modes[k].extent)
        throw py::index_error(fmt::format("entry {} of mode {} is outside [0, {})", coord[k], k, modes[k].extent.count()));
    }
    return layout.index_of(coord);
  }

  // The image: an integer for a layout onto one axis, else a dict axis -> value; the first
  // replica's (images() has them all).
  py::object image(const Point& p) const {
    if (layout.is_scalar()) return py::int_(p[0]);
    py::dict d;
    for (size_t a = 0; a < p.size(); ++a) d[py::str(layout.axes()[a].spelling())] = p[a];
    return d;
  }
};

PyLayout parse_text(const std::string& text, const std::optional<std::string>& notation, const std::string& name) {
  ParsedLayout p = parse_layout_text(text, name, notation_arg(notation));
  return PyLayout{std::move(p.layout), p.notation};
}

// What a proof came back with; the counterexample as the CLI's JSON names its parts.
struct Proof {
  std::string property, verdict, engine;
  double time_ms = 0;
  std::string reason;
  py::object counterexample = py::none();
  // Shared-memory accesses only.
  std::optional<int64_t> wavefronts, ideal, base_alignment, base_residues;

  bool proven() const { return verdict == "proven"; }
};

Proof proof_of(std::string property, const Outcome& o) {
  Proof p;
  p.property = std::move(property);
  p.verdict = verdict_name(o.verdict);
  p.engine = engine_name(o.engine);
  p.time_ms = o.time_ms;
  p.reason = o.reason;
  return p;
}

py::list coordinate_list(const Layout& l, int64_t index) { return py::cast(l.split(index)); }

Proof injective(const PyLayout& l, const std::string& engine, unsigned timeout_ms) {
  const ProofBudget budget;
  const InjectivityResult r = prove_injective(l.layout, engine_arg(engine), limits_arg(timeout_ms));
  Proof p = proof_of("injective", r);
  if (r.witness) {
    const auto& w = *r.witness;
    py::dict cx;
    cx["indices"] = py::make_tuple(w.index_a, w.index_b);
    cx["coordinates"] = py::make_tuple(coordinate_list(l.layout, w.index_a), coordinate_list(l.layout, w.index_b));
    if (!l.layout.replicas().empty()) cx["replicas"] = py::make_tuple(w.replica_a, w.replica_b);
    cx["image"] = l.image(w.image);
    p.counterexample = cx;
  }
  return p;
}

Proof covers(const PyLayout& l, const std::vector<std::pair<std::string, std::pair<int64_t, int64_t>>>& target,
             const std::string& engine, unsigned timeout_ms) {
  std::vector<AxisRange> ranges;
  for (const auto& [name, range] : target) {
    const auto& axes = l.layout.axes();
    auto it = std::find_if(axes.begin(), axes.end(), [&](const Axis& a) { return a.spelling() == name; });
    if (it == axes.end()) throw Error(fmt::format("target axis '{}' is not an axis of the layout", name));
    if (range.second < range.first) throw Error(fmt::format("target axis '{}': LO {} > HI {}", name, range.first, range.second));
    ranges.push_back(AxisRange{*it, range.first, range.second});
  }
  const ProofBudget budget;
  const CoverageResult r = prove_covers(l.layout, ranges, engine_arg(engine), limits_arg(timeout_ms));
  Proof p = proof_of("covers", r);
  if (r.witness) {
    py::dict uncovered;
    for (size_t k = 0; k < ranges.size(); ++k) uncovered[py::str(ranges[k].axis.spelling())] = r.witness->uncovered[k];
    py::dict cx;
    cx["uncovered"] = uncovered;
    p.counterexample = cx;
  }
  return p;
}

hw::LaneMask active_mask(const std::optional<std::vector<int>>& lanes) {
  if (!lanes) return hw::kAllLanes;
  hw::LaneMask mask = 0;
  for (int lane : *lanes) {
    if (lane < 0 || lane >= hw::kWarpLanes)
      throw Error(fmt::format("active lane {} is outside 0..{}", lane, hw::kWarpLanes - 1));
    mask |= hw::LaneMask{1} << lane;
  }
  return mask;
}

Proof conflict_free(const PyLayout& smem, const std::string& dtype, const PyLayout& lanes, const std::string& instr,
                    const std::string& arch, std::optional<int64_t> base_align, const std::optional<std::vector<int>>& active,
                    const std::string& engine, unsigned timeout_ms) {
  const SmemAccess access(smem.layout, dtype_bits(dtype), lanes.layout, hw::smem_instr(instr), hw::arch_by_name(arch),
                          base_align.value_or(hw::kDefaultBaseAlignment), active_mask(active));
  const ProofBudget budget;
  const ConflictResult r = prove_conflict_free(access, engine_arg(engine), limits_arg(timeout_ms));
  Proof p = proof_of("conflict-free", r);
  p.wavefronts = r.wavefronts;
  p.ideal = r.ideal;
  p.base_alignment = access.base_align();
  p.base_residues = access.base_residue_count();
  if (r.conflict) {
    const auto& w = *r.conflict;
    py::dict cx;
    cx["lanes"] = py::make_tuple(w.lane_a, w.lane_b);
    cx["issue"] = w.issue;
    cx["coordinates"] = py::make_tuple(py::cast(w.coord_a), py::cast(w.coord_b));
    cx["addresses"] = py::make_tuple(w.address_a, w.address_b);
    cx["bank"] = w.bank;
    cx["words"] = py::cast(w.words);
    cx["base"] = w.base;
    cx["wavefronts"] = w.wavefronts;
    cx["ideal"] = w.ideal;
    p.counterexample = cx;
  } else if (r.access) {
    py::dict cx;
    cx["issue"] = r.access->issue;
    cx["base"] = r.access->base;
    cx["reason"] = r.access->what;
    if (r.access->lane) cx["lane"] = *r.access->lane;
    if (!r.access->coord.empty()) cx["coordinate"] = py::cast(r.access->coord);
    p.counterexample = cx;
  }
  return p;
}

// An algebra operation's result, its legality decided: the record `layoutproof algebra --json` prints
// (api/AlgebraRecords.h), as Python values.
struct AlgebraResult {
  std::string op;
  std::optional<std::string> text;
  std::string verdict, reason;
  py::object witness = py::none();
  py::list notes;
  std::vector<std::string> engines;
};

py::object python_value(const nlohmann::ordered_json& j) {
  switch (j.type()) {
    case nlohmann::ordered_json::value_t::null: return py::none();
    case nlohmann::ordered_json::value_t::boolean: return py::bool_(j.get<bool>());
    case nlohmann::ordered_json::value_t::number_integer: return py::int_(j.get<int64_t>());
    case nlohmann::ordered_json::value_t::number_unsigned: return py::int_(j.get<uint64_t>());
    case nlohmann::ordered_json::value_t::number_float: return py::float_(j.get<double>());
    case nlohmann::ordered_json::value_t::string: return py::str(j.get<std::string>());
    case nlohmann::ordered_json::value_t::array: {
      py::list l;
      for (const auto& e : j) l.append(python_value(e));
      return l;
    }
    case nlohmann::ordered_json::value_t::object: {
      py::dict d;
      for (auto it = j.begin(); it != j.end(); ++it) d[py::str(it.key())] = python_value(it.value());
      return d;
    }
    default: throw Error("internal: a record holds a value Python has no type for");
  }
}

AlgebraResult algebra_op(const std::string& op, const std::vector<std::string>& operands, const std::string& engine,
                         unsigned timeout_ms) {
  const ProofBudget budget;
  const nlohmann::ordered_json record =
      api::algebra_record(op, decide_algebra_operation(op, operands, engine_arg(engine), limits_arg(timeout_ms)));
  AlgebraResult r;
  r.op = op;
  if (!record["result"].is_null()) r.text = record["result"].get<std::string>();
  r.verdict = record["verdict"].get<std::string>();
  r.reason = record["reason"].get<std::string>();
  r.witness = python_value(record["witness"]);
  r.notes = py::list(python_value(record["notes"]));
  r.engines = record["engines"].get<std::vector<std::string>>();
  return r;
}

// One finding, as every report format receives it.
struct PyFinding {
  std::string rule_id, severity, kind, message, diagnostic;
  std::optional<std::string> file;
  std::optional<size_t> line, column;
  std::vector<std::string> notes;
};

struct PyObligation {
  std::string rule_id, description;
  bool passed = false;
  std::optional<std::string> file;
  std::optional<size_t> line;
};

struct PyCheckRun {
  rules::CheckRun run;

  std::vector<PyFinding> findings() const {
    std::vector<PyFinding> out;
    for (const rules::Finding& f : run.findings) {
      PyFinding p;
      p.rule_id = f.rule_id;
      p.severity = severity_name(f.severity);
      p.kind = rules::kind_name(f.kind);
      p.message = f.message;
      p.diagnostic = report::render_finding(f);
      if (f.loc.source) {
        const auto [line, col] = line_col_of(*f.loc.source, f.loc.offset);
        p.file = f.loc.source->name;
        p.line = line;
        p.column = col;
      }
      for (const Note& n : f.notes) p.notes.push_back(n.message);
      out.push_back(std::move(p));
    }
    return out;
  }

  std::vector<PyObligation> obligations() const {
    std::vector<PyObligation> out;
    for (const rules::Obligation& o : run.obligations) {
      PyObligation p{o.rule_id, o.description, o.passed, std::nullopt, std::nullopt};
      if (o.loc.source) {
        p.file = o.loc.source->name;
        p.line = line_col_of(*o.loc.source, o.loc.offset).first;
      }
      out.push_back(std::move(p));
    }
    return out;
  }

  // The gate: no finding at or above `fail_on` ("error", "warning" or "note").
  bool passes(const std::string& fail_on) const {
    const std::optional<Severity> threshold = severity_from_name(fail_on);
    if (!threshold) throw Error(fmt::format("fail_on '{}': expected {}", fail_on, severity_choices()));
    return run.passes_gate(*threshold);
  }

  std::string report(const std::string& format) const {
    const auto f = report::parse_format(format);
    if (!f) throw Error(fmt::format("format '{}': expected text, json, sarif, junit or codequality", format));
    return report::render_report(*f, run);
  }
};

rules::CheckOptions check_options(const std::optional<std::string>& engine, const std::optional<std::string>& config,
                                  std::optional<double> time_budget_s, unsigned jobs) {
  rules::CheckOptions opt;
  if (config) opt.config = rules::load_config(*config);
  if (engine) opt.config.engine = engine_arg(*engine);
  if (time_budget_s) {
    if (!(*time_budget_s > 0)) throw Error("time_budget must be a positive number of seconds");
    opt.config.time_budget_s = *time_budget_s;
  }
  opt.jobs = jobs;  // 0: one per core (the interpreter's lock is released while checking)
  return opt;
}

// The timeout_ms every proof and algebra call defaults to: the solver's own.
const unsigned default_timeout = SolverLimits{}.timeout_ms;

// The exception classes (layoutproof.Error, LayoutError, InputError) and their translator.
void bind_errors(py::module_& m) {
  g_error = new_exception(m, "Error", PyExc_Exception, "Base of every error LayoutProof raises on purpose.");
  py::tuple layout_bases = py::make_tuple(py::handle(g_error), py::handle(PyExc_ValueError));
  g_layout_error = new_exception(m, "LayoutError", layout_bases.ptr(),
                                 "Malformed input with a located, clang-style diagnostic (attributes diagnostic, "
                                 "message, file, line, column).");
  py::tuple input_bases = py::make_tuple(py::handle(g_error), py::handle(PyExc_ValueError));
  g_input_error = new_exception(m, "InputError", input_bases.ptr(),
                                "Input LayoutProof cannot accept: an unknown instruction, type or architecture, "
                                "operands that do not fit, a layout a notation cannot spell.");
  py::register_exception_translator(&translate);
}

// Layout, and parse.
void bind_layout(py::module_& m) {
  py::class_<PyLayout>(m, "Layout", "A layout read exactly as written: CuTe, TIRx or descriptor notation.")
      .def(py::init(&parse_text), py::arg("text"), py::arg("notation") = py::none(), py::arg("name") = "<layout>",
           "Reads a layout; raises LayoutError with a located diagnostic on malformed text")
      .def_property_readonly("notation", [](const PyLayout& l) { return std::string(notation_name(l.notation)); },
                             "The notation it was read in: cute, tirx or descriptor")
      .def_property_readonly("size", [](const PyLayout& l) { return l.layout.size(); }, "Elements in its domain")
      .def_property_readonly("shape", [](const PyLayout& l) {
            std::vector<int64_t> s;
            for (const Mode& m : l.layout.modes()) {
              if (!m.extent.known()) throw Error("a mode has no extent");
              s.push_back(m.extent.count());
            }
            return s;
          }, "Extents of the top-level modes (flattened)")
      .def_property_readonly("axes", [](const PyLayout& l) {
            std::vector<std::string> names;
            for (const Axis& a : l.layout.axes()) names.push_back(a.spelling());
            return names;
          }, "The axes of its image: ['m'] for an offset layout, hardware axes or basis modes otherwise")
      .def_property_readonly("replica_count", [](const PyLayout& l) { return l.layout.replica_count(); })
      .def("cute", [](const PyLayout& l) { return print_cute(l.layout).text; }, "CuTe's print format")
      .def("tirx", [](const PyLayout& l) { return print_tirx(l.layout).text; }, "TIRx's TileLayout notation")
      .def("descriptor", [](const PyLayout& l) { return print_descriptor(l.layout).text; }, "The descriptor notation")
      .def("coordinate", [](const PyLayout& l, int64_t i) {
            l.check_index(i);
            return l.layout.split(i);
          }, py::arg("index"), "The coordinate of a 1-D index, one entry per mode")
      .def("index", [](const PyLayout& l, const py::handle& coord) { return l.index_of(coord); }, py::arg("coordinate"),
           "The 1-D index of a coordinate")
      .def("__call__", [](const PyLayout& l, const py::handle& at) {
            return l.image(l.layout.images(l.index_of(at)).front());
          }, py::arg("at"), "The image of a 1-D index or a coordinate (its first replica)")
      .def("images", [](const PyLayout& l, const py::handle& at) {
            py::list out;
            for (const Point& p : l.layout.images(l.index_of(at))) out.append(l.image(p));
            return out;
          }, py::arg("at"), "Every replica's image of a 1-D index or a coordinate")
      .def("__len__", [](const PyLayout& l) { return l.layout.size(); })
      .def("__eq__", [](const PyLayout& a, const PyLayout& b) { return a.layout.parts() == b.layout.parts(); })
      .def("__str__", &PyLayout::text)
      .def("__repr__", [](const PyLayout& l) { return fmt::format("Layout('{}')", l.text()); });

  m.def("parse", &parse_text, py::arg("text"), py::arg("notation") = py::none(), py::arg("name") = "<layout>",
        "Reads a layout; raises LayoutError with a located diagnostic on malformed text");
}

// Proof and the prove_* obligations.
void bind_proofs(py::module_& m) {
  py::class_<Proof>(m, "Proof", "What a proof obligation came back with")
      .def_readonly("property", &Proof::property)
      .def_readonly("verdict", &Proof::verdict, "proven, refuted or unknown")
      .def_readonly("engine", &Proof::engine, "The engine that decided: f2, enum or z3")
      .def_readonly("time_ms", &Proof::time_ms)
      .def_readonly("reason", &Proof::reason, "Why unknown, or a one-line summary of the counterexample")
      .def_readonly("counterexample", &Proof::counterexample, "Re-checked by evaluation; None unless refuted")
      .def_readonly("wavefronts", &Proof::wavefronts, "Accesses: the worst instruction's wavefronts")
      .def_readonly("ideal", &Proof::ideal)
      .def_readonly("base_alignment", &Proof::base_alignment)
      .def_readonly("base_residues", &Proof::base_residues)
      .def_property_readonly("proven", &Proof::proven)
      .def("__bool__", &Proof::proven)
      .def("__repr__", [](const Proof& p) {
        return fmt::format("Proof({}: {}, engine={}{})", p.property, p.verdict, p.engine,
                           p.reason.empty() ? "" : ", reason='" + p.reason + "'");
      });

  m.def("prove_injective", &injective, py::arg("layout"), py::arg("engine") = "auto",
        py::arg("timeout_ms") = default_timeout, "No two elements (or replicas) share an image");
  m.def("prove_covers", &covers, py::arg("layout"), py::arg("target"), py::arg("engine") = "auto",
        py::arg("timeout_ms") = default_timeout, "Every point of the target box holds a copy");
  m.def("prove_conflict_free", &conflict_free, py::arg("smem"), py::arg("dtype"), py::arg("lanes"), py::arg("instr"),
        py::arg("arch") = std::string(hw::kDefaultArchName), py::arg("base_align") = py::none(),
        py::arg("active") = py::none(), py::arg("engine") = "auto", py::arg("timeout_ms") = default_timeout,
        "No phase of the shared-memory access needs more wavefronts than ideal, at every base the alignment allows");
}

// AlgebraResult, algebra and the names of its operations.
void bind_algebra(py::module_& m) {
  py::class_<AlgebraResult>(m, "AlgebraResult", "CuTe's result of an operation, with its legality decided")
      .def_readonly("op", &AlgebraResult::op)
      .def_readonly("text", &AlgebraResult::text, "CuTe's printed result; None where CuTe rejects the operands")
      .def_readonly("verdict", &AlgebraResult::verdict, "legal, illegal or unknown")
      .def_readonly("reason", &AlgebraResult::reason)
      .def_readonly("witness", &AlgebraResult::witness)
      .def_readonly("notes", &AlgebraResult::notes)
      .def_readonly("engines", &AlgebraResult::engines)
      .def_property_readonly("legal", [](const AlgebraResult& r) -> py::object {
        if (r.verdict == "unknown") return py::none();
        return py::bool_(r.verdict == "legal");
      })
      .def("__repr__", [](const AlgebraResult& r) {
        return fmt::format("AlgebraResult({}: {}, {})", r.op, r.text.value_or("(no result)"), r.verdict);
      });
  m.def("algebra", &algebra_op, py::arg("op"), py::arg("operands"), py::arg("engine") = "auto",
        py::arg("timeout_ms") = default_timeout, "An operation of CuTe's algebra on operands given as text");
  m.attr("ALGEBRA_OPERATIONS") = algebra_operation_names();
}

// The hardware tables: the warp width, element types and shared-memory instructions.
void bind_hardware(py::module_& m) {
  m.attr("WARP_LANES") = hw::kWarpLanes;
  m.def(
      "element_bits",
      [](const std::string& name) -> int {
        if (auto bits = hw::element_bits(name)) return *bits;
        throw py::value_error(fmt::format("unknown element type '{}'; known: {}", name,
                                          fmt::join(hw::element_type_names(), ", ")));
      },
      py::arg("dtype"), "Bits of a LayoutProof element type (f16 -> 16)");
  m.def(
      "smem_instructions",
      [] {
        py::list out;
        for (const hw::SmemInstr& i : hw::smem_instr_catalog()) {
          py::dict d;
          d["name"] = std::string(i.name);
          d["direction"] = i.direction == hw::SmemDirection::Load ? "load" : "store";
          d["matrix"] = i.kind == hw::AccessKind::MatrixRows;
          d["bytes"] = i.bytes;
          d["matrices"] = i.matrices;
          d["trans"] = i.trans;
          d["async"] = i.async != hw::AsyncCopy::None;
          d["min_sm"] = i.min_sm;
          d["address_lanes"] = hw::address_lane_count(i);
          out.append(std::move(d));
        }
        return out;
      },
      "The shared-memory instructions the bank model knows: name, direction, bytes per address, matrix "
      "rows or per-lane, .xN, .trans, cp.async, the first sm, the lanes that give addresses");
}

// The annotation checker: Finding, Obligation, CheckRun, check and check_source.
void bind_checker(py::module_& m) {
  py::class_<PyFinding>(m, "Finding")
      .def_readonly("rule_id", &PyFinding::rule_id)
      .def_readonly("severity", &PyFinding::severity)
      .def_readonly("kind", &PyFinding::kind, "violation, unknown or invalid")
      .def_readonly("message", &PyFinding::message)
      .def_readonly("file", &PyFinding::file)
      .def_readonly("line", &PyFinding::line)
      .def_readonly("column", &PyFinding::column)
      .def_readonly("notes", &PyFinding::notes)
      .def_readonly("diagnostic", &PyFinding::diagnostic, "As `layoutproof check` prints it")
      .def("__str__", [](const PyFinding& f) { return f.diagnostic; })
      .def("__repr__", [](const PyFinding& f) {
        return fmt::format("Finding({} {}:{}: {})", f.rule_id, f.file.value_or("?"), f.line.value_or(0), f.message);
      });
  py::class_<PyObligation>(m, "Obligation")
      .def_readonly("rule_id", &PyObligation::rule_id)
      .def_readonly("description", &PyObligation::description)
      .def_readonly("passed", &PyObligation::passed)
      .def_readonly("file", &PyObligation::file)
      .def_readonly("line", &PyObligation::line);
  py::class_<PyCheckRun>(m, "CheckRun", "The findings and obligations of a check")
      .def_property_readonly("findings", &PyCheckRun::findings)
      .def_property_readonly("obligations", &PyCheckRun::obligations)
      .def_property_readonly("files", [](const PyCheckRun& r) { return r.run.files; })
      .def("passes", &PyCheckRun::passes, py::arg("fail_on") = "warning",
           "The gate: no finding at or above fail_on (error, warning or note)")
      .def("report", &PyCheckRun::report, py::arg("format") = "text",
           "The report `layoutproof check --format FORMAT` writes")
      .def("__repr__", [](const PyCheckRun& r) { return fmt::format("CheckRun({})", report::summary_line(r.run)); });

  m.def("check", [](const std::vector<std::string>& paths, const std::optional<std::string>& engine,
                    const std::optional<std::string>& config, std::optional<double> time_budget, unsigned jobs) {
          return PyCheckRun{rules::check_paths(paths, check_options(engine, config, time_budget, jobs))};
        },
        py::arg("paths"), py::arg("engine") = py::none(), py::arg("config") = py::none(),
        py::arg("time_budget") = py::none(), py::arg("jobs") = 0, py::call_guard<py::gil_scoped_release>(),
        "Every annotation in the files and directories, checked by every rule (the CI gate)");
  m.def("check_source", [](const std::string& text, const std::string& name, const std::optional<std::string>& engine,
                           const std::optional<std::string>& config, std::optional<double> time_budget) {
          return PyCheckRun{rules::check_source(name, text, check_options(engine, config, time_budget, 1))};
        },
        py::arg("text"), py::arg("name") = "<source>.lp", py::arg("engine") = py::none(), py::arg("config") = py::none(),
        py::arg("time_budget") = py::none(), py::call_guard<py::gil_scoped_release>(),
        "One document held in memory, checked as a file named `name` (its extension says the annotation syntax)");
}

}  // namespace

}  // namespace lp::python

PYBIND11_MODULE(_core, m) {
  using namespace lp::python;
  m.doc() = "LayoutProof's C++ libraries: layouts, CuTe's algebra with legality, proofs and the annotation checker";
  m.attr("__version__") = lp::kToolVersion;

  bind_errors(m);
  bind_layout(m);
  bind_proofs(m);
  bind_algebra(m);
  bind_hardware(m);
  bind_checker(m);
}
