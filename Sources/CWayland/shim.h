#ifndef ELIMAGE_CWAYLAND_SHIM_H
#define ELIMAGE_CWAYLAND_SHIM_H
#include <wayland-client.h>
#include <wayland-egl.h>

// The interfaces' addresses for wl_registry_bind (Swift imports the constants by value).
static inline const struct wl_interface *elimage_wl_compositor_interface(void) { return &wl_compositor_interface; }
static inline const struct wl_interface *elimage_wl_seat_interface(void) { return &wl_seat_interface; }
static inline const struct wl_interface *elimage_wl_output_interface(void) { return &wl_output_interface; }
#endif
