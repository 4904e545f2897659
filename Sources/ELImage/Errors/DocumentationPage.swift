/// Where ELImage's documentation explains a failure further: an error whose message says what to
/// do names the page, and the section, that says more. The pages are the repository's `docs/`
/// (`make install` and the Debian package put those named here in `share/doc/elimage`) and the
/// DocC articles (`make docs`); a test checks that every page and section named here exists.
package enum DocumentationPage: CaseIterable, Sendable {
    case inputLimits
    case models
    case choosingTheGPU
    case previewWindows
    case virtualCamera
    case liveStreaming
    case sound

    /// The page's file in the repository and the heading of its section.
    package var location: (file: String, heading: String) {
        switch self {
        case .inputLimits: ("docs/SECURITY.md", "Limits")
        case .models: ("docs/install.md", "Where the networks are looked for")
        case .choosingTheGPU: ("Sources/ELImage/ELImage.docc/ChoosingTheGPU.md", "Choosing the GPU")
        case .previewWindows: ("Sources/ELImagePreview/ELImagePreview.docc/PreviewWindows.md", "Preview windows")
        case .virtualCamera: ("Sources/ELImageCamera/ELImageCamera.docc/VirtualCameraOutput.md", "A virtual camera")
        case .liveStreaming: ("Sources/ELImageMedia/ELImageMedia.docc/LiveStreaming.md", "Live streaming and latency")
        case .sound: ("Sources/ELImageMedia/ELImageMedia.docc/SoundAndDrift.md", "Sound and drift")
        }
    }

    /// "more: docs/SECURITY.md, “Limits” (share/doc/elimage/SECURITY.md once installed)", or for
    /// an article "more: “Choosing the GPU” in the ELImage documentation": the words a hint ends with.
    package var pointer: String {
        let (file, heading) = location
        if file.hasPrefix("docs/") {
            return "more: \(file), “\(heading)” (share/doc/elimage/\(file.dropFirst(5)) once installed)"
        }
        return "more: “\(heading)” in the ELImage documentation"
    }
}
