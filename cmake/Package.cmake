# `cpack -G DEB` in the build directory: layoutproof_VERSION_ARCH.deb with what cmake/Install.cmake
# installs, to /usr. The runtime dependencies are derived by dpkg-shlibdeps from the libraries
# the binary links (libz3, spdlog, fmt, ...; header-only ones such as toml++ need nothing), so
# they follow the distribution the package is built on: build it on the release it is for.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME layoutproof)
set(CPACK_PACKAGE_VENDOR LayoutProof)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "static analysis and verification of GPU tensor layouts")
set(LP_PACKAGE_MAINTAINER "LayoutProof maintainers" CACHE STRING "The Maintainer field of the Debian package")
set(CPACK_PACKAGE_CONTACT "${LP_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "static analysis and verification of GPU tensor layouts
 LayoutProof reads CuTe shape:stride layouts, TIRx layouts and XOR swizzles from annotations in
 C++/CUDA/Python sources and proves (or refutes with a re-checked counterexample) injectivity,
 shared-memory bank-conflict freedom, composition legality and replica coverage. `layoutproof
 check` is a CI gate with text, JSON, SARIF, JUnit and GitLab code quality reports.")
include(CPack)
