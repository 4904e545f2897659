#ifndef ELIMAGE_CV4L2_SHIM_H
#define ELIMAGE_CV4L2_SHIM_H
#include <linux/videodev2.h>
#include <libv4l2.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <poll.h>
/* Added for ELImageCamera: Swift cannot call C variadic functions, so these fixed-argument
   wrappers forward to libv4l2's v4l2_open and v4l2_ioctl. */
static inline int elimage_v4l2_open(const char *path, int flags) {
    return v4l2_open(path, flags);
}
static inline int elimage_v4l2_ioctl(int fd, unsigned long request, void *argument) {
    return v4l2_ioctl(fd, request, argument);
}
#endif
