#ifndef ELIMAGE_CV4L2_SHIM_H
#define ELIMAGE_CV4L2_SHIM_H
#include <linux/videodev2.h>
#include <libv4l2.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <poll.h>
#endif
