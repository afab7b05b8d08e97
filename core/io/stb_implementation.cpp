// stb's image decoder and PNG writer compiled into Halfscope, for platforms whose stb package
// ships headers only (vcpkg on Windows). Debian's libstb.so holds them already, so this file is
// built only with HALFSCOPE_STB_IMPLEMENTATION (core/CMakeLists.txt; ON on Windows).
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_WRITE_IMPLEMENTATION
#if __has_include(<stb/stb_image.h>)
#include <stb/stb_image.h>
#include <stb/stb_image_write.h>
#else  // vcpkg installs them at the include folder's top
#include <stb_image.h>
#include <stb_image_write.h>
#endif
