#ifndef ELIMAGE_CEGL_SHIM_H
#define ELIMAGE_CEGL_SHIM_H
#define EGL_EGLEXT_PROTOTYPES 1
#include <EGL/egl.h>
#include <EGL/eglext.h>
#endif
