import ELImage
import ELImageMedia
import Foundation

/// The frames and filters the fusion tests (core's fused conversion, media's fused sinks) share.
package enum FusionFixtures {
    /// Two frames of Big Buck Bunny (Examples/Media) at 192x108, I420, tagged `colorSpace`.
    package static func frames(_ colorSpace: ColorSpace) throws -> [PixelBuffer] {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clip = folder.path("bunny.y4m")
        try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y", "-ss", "2", "-i", Repository.path("Examples/Media/bigbuckbunny.mp4"),
                               "-frames:v", "2", "-an", "-vf", "scale=192:108", "-pix_fmt", "yuv420p", clip])
        return try Y4MReader.readAll(path: clip).map { frame in
            var frame = frame
            frame.colorSpace = colorSpace
            return frame
        }
    }

    /// Fresh filter nodes by name.
    package static func filters(_ names: [String]) -> [any ImageOutput & ImageInput] {
        names.map { name -> any ImageOutput & ImageInput in
            switch name {
            case "grayscale": Grayscale()
            case "brightness": Brightness(0.08)
            case "contrast": Contrast(1.3)
            case "saturation": Saturation(1.4)
            case "whole crop": Crop(Crop.Region(x: 0, y: 0, width: 16384, height: 16384))  // as `elimage`'s default
            case "cutting crop": Crop(Crop.Region(x: 8, y: 4, width: 64, height: 32))
            case "same-size scale": Passthrough()
            default: GaussianBlur(sigma: 1.5)
            }
        }
    }
}
