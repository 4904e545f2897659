// Uses every library product of ELImage as a program of a user's package would, and checks what
// comes out. Run by `make release-check` as `ReleaseCheck MEDIA_FOLDER OUTPUT_FOLDER`, where
// MEDIA_FOLDER is ELImage's Examples/Media. Prints one line per product and exits 1 on the first
// check that fails.
import ELImage
import ELImageCamera
import ELImageDetection
import ELImageKit
import ELImageMedia
import ELImagePreview
import ELImageTesting
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: ReleaseCheck MEDIA_FOLDER OUTPUT_FOLDER\n".utf8))
    exit(2)
}
let media = arguments[1], output = arguments[2]

do {
    try await withRenderContext { context in
        try await checkFileThroughFilterAndDetectors(media: media, output: output, context: context)
        try await checkEmulatedCamera(context: context)
    }
    try await checkUserNodes(media: media)
    try await checkUserFilterFuses(media: media)
    try await checkEmbeddedPipeline()
    try checkPreviewWithoutDisplay()
    print("release check: every library product used from ELImage 1.0.0")
} catch {
    FileHandle.standardError.write(Data("release check failed: \(error)\n".utf8))
    exit(1)
}
