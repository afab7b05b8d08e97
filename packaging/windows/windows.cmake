# The Windows installer: CPack's NSIS generator (cpack -G NSIS in the build folder), included from
# packaging/CMakeLists.txt before include(CPack). The CPACK_NSIS_* settings below are read only by
# the NSIS generator, so they are set on every host: tests/packaging/check_nsis.sh generates and
# compiles the installer script on Linux with Debian's makensis against the Linux staged tree.
# What only a Windows tree holds (DLLs, windeployqt's Qt files, the .ico, the report opener) is
# installed under if(WIN32). Build recipe: docs/windows.md.
#
# Layout of an installed tree (<prefix> = C:\Program Files\Halfscope by default):
#   bin\halfscope.exe, bin\halfscope-cli.exe   the programs themselves (no launcher: see below)
#   bin\*.dll                                  LibTorch (CPU or CUDA), Qt (windeployqt), MSVC runtime
#   bin\platforms\, bin\sqldrivers\, ...       Qt plugins (windeployqt)
#   bin\halfscope-open-report.cmd              what a saved report's "Open with" entry runs
#   share\halfscope\demo-model, tokenizers, fonts, halfscope.ico
# The programs find share\halfscope from their own path (core/runtime/demo_location.cpp). Windows
# looks for a program's DLLs in the program's own folder first, so everything sits in bin\.
#
# Why no launcher on Windows: on Linux bin/halfscope is a launcher that sets OMP_WAIT_POLICY before
# the real program loads libgomp (which reads it when it loads). Windows has no exec() that
# replaces a process, and the official LibTorch for Windows uses Intel's OpenMP (libiomp5md.dll),
# which reads its environment when the first OpenMP call initialises it rather than when the DLL
# loads; the program sets the variable at the top of main() (core/runtime/runtime.cpp) before any
# LibTorch call. Not yet measured on Windows: HALFSCOPE_KEEP_OMP_WAIT / OMP_WAIT_POLICY still win.

set(HALFSCOPE_ICO ${CMAKE_CURRENT_LIST_DIR}/halfscope.ico)

if(WIN32)
  install(FILES ${HALFSCOPE_ICO} DESTINATION share/halfscope)
  install(PROGRAMS ${CMAKE_CURRENT_LIST_DIR}/halfscope-open-report.cmd DESTINATION bin)

  # LibTorch: every DLL of the official build (CPU: c10, torch_cpu, fbgemm, asmjit, libiomp5md,
  # uv ...; CUDA adds c10_cuda, torch_cuda, cudart, cublas, cudnn, nvrtc ...). TorchConfig.cmake
  # sets TORCH_INSTALL_PREFIX to the unpacked libtorch folder.
  file(GLOB HALFSCOPE_TORCH_DLLS "${TORCH_INSTALL_PREFIX}/lib/*.dll")
  if(NOT HALFSCOPE_TORCH_DLLS)
    message(FATAL_ERROR "No DLL in ${TORCH_INSTALL_PREFIX}/lib: the installer needs the "
                        "official LibTorch for Windows (CMAKE_PREFIX_PATH=C:/path/to/libtorch)")
  endif()
  install(FILES ${HALFSCOPE_TORCH_DLLS} DESTINATION bin)

  # libpng (with zlib) and libyaml are DLLs in vcpkg's x64-windows triplet: beside the programs.
  file(GLOB HALFSCOPE_VCPKG_DLLS "${PNG_PREFIX}/bin/libpng16*.dll" "${PNG_PREFIX}/bin/zlib1.dll"
       "${YAML_PREFIX}/bin/yaml*.dll")
  if(NOT HALFSCOPE_VCPKG_DLLS MATCHES "libpng16")
    message(FATAL_ERROR "No libpng16.dll in ${PNG_PREFIX}/bin: the installer needs libpng's DLL")
  endif()
  install(FILES ${HALFSCOPE_VCPKG_DLLS} DESTINATION bin)

  # The MSVC runtime (msvcp140.dll, vcruntime140*.dll ...), beside the programs.
  set(CMAKE_INSTALL_SYSTEM_RUNTIME_DESTINATION bin)
  include(InstallRequiredSystemLibraries)

  # Qt: windeployqt copies the Qt DLLs the studio links, the plugins it needs (platforms,
  # styles, imageformats, sqldrivers for the run history) and Qt's own translations (the studio
  # loads qtbase_<locale>.qm). It runs on the installed studio, so CPack's staged tree gets them
  # too and the uninstaller removes them.
  if(HALFSCOPE_GUI)
    get_target_property(_hs_qmake Qt6::qmake IMPORTED_LOCATION)
    get_filename_component(_hs_qt_bin "${_hs_qmake}" DIRECTORY)
    find_program(HALFSCOPE_WINDEPLOYQT windeployqt HINTS "${_hs_qt_bin}" REQUIRED)
    install(CODE "
      set(_studio \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/bin/halfscope.exe\")
      execute_process(COMMAND \"${HALFSCOPE_WINDEPLOYQT}\" --release --no-compiler-runtime
                              --dir \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/bin\" \"\${_studio}\"
                      RESULT_VARIABLE _rc)
      if(NOT _rc EQUAL 0)
        message(FATAL_ERROR \"windeployqt failed on \${_studio} (exit \${_rc})\")
      endif()")
  endif()
endif()

# The installer. Start menu: Halfscope (the studio) and the uninstaller; the options page offers
# bin\ on PATH (for halfscope-cli) and a desktop shortcut.
set(CPACK_NSIS_PACKAGE_NAME "Halfscope")
# 64-bit programs: C:\Program Files, not "Program Files (x86)". The installer itself stays CPack's
# 32-bit one, which installs 64-bit programs as well; its Software\Classes keys are shared by both
# registry views.
set(CPACK_NSIS_INSTALL_ROOT "$PROGRAMFILES64")
set(CPACK_NSIS_DISPLAY_NAME "Halfscope ${PROJECT_VERSION}")
set(CPACK_PACKAGE_EXECUTABLES "halfscope" "Halfscope")
set(CPACK_CREATE_DESKTOP_LINKS "halfscope")
set(CPACK_NSIS_MODIFY_PATH ON)
set(CPACK_NSIS_ENABLE_UNINSTALL_BEFORE_INSTALL ON)
set(CPACK_NSIS_MUI_ICON "${HALFSCOPE_ICO}")
set(CPACK_NSIS_MUI_UNIICON "${HALFSCOPE_ICO}")
set(CPACK_NSIS_INSTALLED_ICON_NAME "bin\\\\halfscope.exe")  # Add/remove programs
set(CPACK_NSIS_COMPRESSOR "/SOLID lzma")
# The bundled CJK font is an install component of its own (resources/CMakeLists.txt): the
# installer's components page shows it, ticked; the programs are one hidden, required component.
set(CPACK_COMPONENT_CJK_FONT_DISPLAY_NAME "Chinese font (WenQuanYi Micro Hei)")
set(CPACK_COMPONENT_CJK_FONT_DESCRIPTION
    "Draws the Chinese interface on a Windows without a CJK font. About 5 MB.")
# The project has no licence file yet: no licence page rather than CPack's placeholder text.
if(EXISTS "${PROJECT_SOURCE_DIR}/LICENSE")
  set(CPACK_RESOURCE_FILE_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
else()
  set(CPACK_NSIS_IGNORE_LICENSE_PAGE ON)
endif()
# Saved reports: an "Open with" entry for .json files (report_association.nsh); the default
# program of .json stays what it was.
set(CPACK_NSIS_EXTRA_INSTALL_COMMANDS
    "!include '${CMAKE_CURRENT_LIST_DIR}/report_association.nsh'\n!insertmacro HalfscopeAssociateReports")
set(CPACK_NSIS_EXTRA_UNINSTALL_COMMANDS
    "!include '${CMAKE_CURRENT_LIST_DIR}/report_association.nsh'\n!insertmacro HalfscopeForgetReports")
