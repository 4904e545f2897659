import CPNG
import ELImage
import Foundation

/// Reads and writes PNG files through libpng's simplified API (8-bit RGBA in memory).
public enum PNGFile {
    /// Decodes `path` into RGBA (gray, palette and 16-bit files are converted).
    /// - Throws: `ELImageError.io` when the file cannot be read; `ELImageError.malformedMedia` when
    ///   it is not a PNG, is damaged or cut short, or is larger than
    ///   `ImageSizeLimit.maximumDimension` a side.
    public static func read(_ path: String) throws -> RGBAImage {
        try decode(try ImageFileData.read(path, kind: "PNG"), name: path)
    }

    /// Decodes PNG `data` into RGBA; `name` stands for the data in errors.
    /// - Throws: `ELImageError.malformedMedia` as `read`.
    public static func decode(_ data: [UInt8], name: String = "PNG data") throws -> RGBAImage {
        try PNGChunkLayout.check(data, file: name)
        return try data.withUnsafeBytes { memory in
            var image = png_image()
            image.version = png_uint_32(PNG_IMAGE_VERSION)
            guard png_image_begin_read_from_memory(&image, memory.baseAddress, memory.count) != 0 else {
                throw ELImageError.malformedMedia(file: name, frame: nil, reason: "not a readable PNG: \(message(of: image))")
            }
            defer { png_image_free(&image) }
            image.format = rgbaFormat
            let width = Int(image.width), height = Int(image.height)
            try ImageSizeLimit.check(width: width, height: height, file: name, kind: "PNG")
            // Not zero-filled first: libpng writes every byte, or fails and the array is dropped.
            var ok: Int32 = 0
            let count = width * height * 4
            let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                ok = png_image_finish_read(&image, nil, buffer.baseAddress, png_int_32(width * 4), nil)
                initialized = ok != 0 ? count : 0
            }
            guard ok != 0 else {
                throw ELImageError.malformedMedia(file: name, frame: nil, reason: "PNG data is damaged: \(message(of: image))")
            }
            return RGBAImage(width: width, height: height, pixels: pixels)
        }
    }

    /// Encodes `image` as an RGBA PNG at `path`. The file appears complete or not at all: it is
    /// written beside `path` and renamed into place.
    public static func write(_ image: RGBAImage, to path: String) throws {
        guard image.width > 0, image.height > 0, image.pixels.count >= image.width * image.height * 4 else {
            throw ELImageError.invalidInput(
                what: "cannot write a \(image.width)x\(image.height) PNG from \(image.pixels.count) bytes",
                hint: "the image needs width * height * 4 bytes of RGBA")
        }
        var png = png_image()
        png.version = png_uint_32(PNG_IMAGE_VERSION)
        png.width = png_uint_32(image.width)
        png.height = png_uint_32(image.height)
        png.format = rgbaFormat
        let staging = StagedOutputFile(destination: path)
        let ok = image.pixels.withUnsafeBytes { buffer in
            png_image_write_to_file(&png, staging.temporary, 0, buffer.baseAddress, png_int_32(image.bytesPerRow), nil)
        }
        guard ok != 0 else {
            let code = errno
            staging.discard()
            throw ELImageError.io(file: path, operation: "write PNG (\(message(of: png)))", errno: code,
                                  hint: "check that the folder exists, is writable and has space")
        }
        try staging.publish()
    }

    private static let rgbaFormat = png_uint_32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)

    private static func message(of image: png_image) -> String {
        withUnsafeBytes(of: image.message) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
