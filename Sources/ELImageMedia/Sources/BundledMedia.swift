import Foundation

/// The real media bundled in the source tree (`Examples/Media/`, licences in its LICENSES.md): the
/// default inputs of the examples and the `elimage` tool when run from a checkout.
public enum BundledMedia {
    /// The path of `name` (e.g. "bigbuckbunny.mp4") in the checkout this library was built from.
    public static func path(_ name: String) -> String {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()  // Sources/ELImageMedia
            .deletingLastPathComponent().deletingLastPathComponent()  // the package
            .appendingPathComponent("Examples/Media/\(name)").path
    }
}
