#ifndef ELIMAGE_CTURBOJPEG_SHIM_H
#define ELIMAGE_CTURBOJPEG_SHIM_H
#include <turbojpeg.h>
#endif
