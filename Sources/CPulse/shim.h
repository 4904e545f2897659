#ifndef ELIMAGE_CPULSE_SHIM_H
#define ELIMAGE_CPULSE_SHIM_H
#include <pulse/pulseaudio.h>
#include <pulse/simple.h>
#include <pulse/error.h>
#endif
