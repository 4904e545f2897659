/// An opaque handle that any thread may use: an EGL display, context or surface (EGL's calls are
/// thread-safe), a GL sync object (it belongs to its share group, not to a thread), a GBM device,
/// a window system's connection (X11 is initialized with `XInitThreads`; Wayland's objects are
/// used through event queues).
///
/// The one place where such a handle is declared `Sendable` by hand: the classes that keep
/// handles store them in this and are checked by the compiler like any other.
package struct ThreadSafeHandle<Raw>: @unchecked Sendable {
    // @unchecked Sendable: the handle is immutable here, and the APIs that take it are
    // thread-safe (see above); what it points to is owned and released by its holder.
    package let raw: Raw

    package init(_ raw: Raw) {
        self.raw = raw
    }
}
