#ifndef ELIMAGE_CPNG_SHIM_H
#define ELIMAGE_CPNG_SHIM_H
#include <png.h>
#endif
