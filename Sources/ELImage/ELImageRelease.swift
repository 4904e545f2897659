/// This release of ELImage: the framework, the `elimage` command and the example programs.
///
/// One source for the version: `elimage --version` prints it, the Makefile reads it (its
/// `RELEASE_VERSION`, the name of the Debian package) and `CHANGELOG.md`'s newest release names it.
public enum ELImageRelease {
    /// This release's semantic version, `major.minor.patch` (e.g. `1.0.0`).
    public static let version = "1.0.0"
}
