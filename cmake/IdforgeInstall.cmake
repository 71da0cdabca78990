include(CMakePackageConfigHelpers)

get_property(_targets GLOBAL PROPERTY IDFORGE_EXPORTED_TARGETS)
install(TARGETS ${_targets} EXPORT idforgeTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/idforge DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET idforge)
  install(TARGETS idforge RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

set(_cmakedir ${CMAKE_INSTALL_LIBDIR}/cmake/idforge)
install(EXPORT idforgeTargets NAMESPACE idforge:: DESTINATION ${_cmakedir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/idforgeConfig.cmake.in
  ${PROJECT_BINARY_DIR}/idforgeConfig.cmake INSTALL_DESTINATION ${_cmakedir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/idforgeConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/idforgeConfig.cmake ${PROJECT_BINARY_DIR}/idforgeConfigVersion.cmake
  DESTINATION ${_cmakedir})

# libsodium: Requires.private when idforge_core is a shared library (the .so carries it);
# a static archive needs it on every link line, and plain `pkg-config --libs` (without
# --static) reads only Requires, so a static build lists it there.
get_target_property(_core_type idforge_core TYPE)
if(_core_type STREQUAL "STATIC_LIBRARY")
  set(IDFORGE_PC_SODIUM_FIELD "Requires")
else()
  set(IDFORGE_PC_SODIUM_FIELD "Requires.private")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/idforge.pc.in ${PROJECT_BINARY_DIR}/idforge.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/idforge.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
