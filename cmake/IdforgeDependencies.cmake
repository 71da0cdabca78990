# How idforge finds the libraries its parts link, shared by the build and by the installed
# idforgeConfig.cmake, so a consumer gets the very targets the exported ones name.
#
# Parts link outside libraries only through imported targets (PkgConfig::IDFORGE_*, fmt::fmt,
# CURL::libcurl, Threads::Threads, ...), never by absolute path: the install can then be moved
# and each consumer resolves the libraries on its own machine. IdforgeInstall.cmake reads the
# exported targets' link interfaces and writes, per part, the calls below that recreate them.

include_guard(GLOBAL)

# idforge_pkg_check(<PREFIX> <module>...): PkgConfig::<PREFIX> for the pkg-config modules,
# made once (GLOBAL, so every part and a consumer share it). The modules are remembered for
# the installed config. Fails the configure step when a module is missing.
macro(idforge_pkg_check prefix)
  set_property(GLOBAL PROPERTY IDFORGE_PKG_MODULES_${prefix} "${ARGN}")
  if(NOT TARGET PkgConfig::${prefix})
    find_package(PkgConfig REQUIRED)
    pkg_check_modules(${prefix} REQUIRED IMPORTED_TARGET GLOBAL ${ARGN})
  endif()
endmacro()
