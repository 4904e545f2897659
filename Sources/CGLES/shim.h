#ifndef ELIMAGE_CGLES_SHIM_H
#define ELIMAGE_CGLES_SHIM_H
#include <GLES3/gl3.h>
#include <GLES2/gl2ext.h>
#endif
