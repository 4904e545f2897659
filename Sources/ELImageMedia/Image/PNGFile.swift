import CPNG
import ELImage
import Foundation

/// Reads and writes PNG files through libpng's simplified API (8-bit RGBA in memory), and 16-bit
/// files as 16-bit samples (`readPicture`, `write(_:to:)` of an `.rgba64` buffer).
///
/// Colour encoding: a file's `gAMA`, `sRGB` or `iCCP` chunk is honoured as libpng does (samples are
/// converted to sRGB). A file without one is sRGB, 16-bit files included (libpng alone would take
/// those for linear light and brighten them); `read` rounds their samples to 8 bits, `readPicture`
/// keeps them.
public enum PNGFile {
    /// Decodes `path` into RGBA (gray, palette and 16-bit files are converted; alpha is kept,
    /// 255 for files without).
    /// - Throws: `ELImageError.io` when the file cannot be read; `ELImageError.malformedMedia` when
    ///   it is not a PNG, is damaged or cut short, or is larger than
    ///   `ImageSizeLimit.maximumDimension` a side.
    public static func read(_ path: String) throws -> RGBAImage {
        try decode(try ImageFileData.read(path, kind: "PNG", statedSize: PNGChunkLayout.statedSize(in:)), name: path)
    }

    /// Decodes `path` into a picture: 16-bit RGBA (`.rgba64`) for a 16-bit file without a colour
    /// chunk, whose samples are kept as they are; else 8-bit RGBA as `read` gives it. Colour
    /// space: sRGB, or PQ/HLG with the primaries a 16-bit file's `cICP` chunk states.
    /// - Throws: as `read`.
    public static func readPicture(_ path: String) throws -> PixelBuffer {
        let data = try ImageFileData.read(path, kind: "PNG", statedSize: PNGChunkLayout.statedSize(in:))
        return try reading(data, name: path) { image in
            let width = Int(image.width), height = Int(image.height)
            guard hasOwnSixteenBitSamples(image, data) else {
                let pixels = try finishEightBitRead(&image, name: path)
                return try PixelBuffer(format: .rgba, width: width, height: height, data: pixels, colorSpace: .srgb)
            }
            let samples = try readSixteenBitSamples(&image, name: path)
            var bytes = [UInt8](repeating: 0, count: samples.count * 2)
            for (index, sample) in samples.enumerated() {
                bytes[2 * index] = UInt8(truncatingIfNeeded: sample)
                bytes[2 * index + 1] = UInt8(truncatingIfNeeded: sample >> 8)
            }
            return try PixelBuffer(format: .rgba64, width: width, height: height, data: bytes,
                                   colorSpace: PNGColorEncoding.statedHDR(in: data) ?? .srgb)
        }
    }

    /// Decodes PNG `data` into RGBA; `name` stands for the data in errors.
    /// - Throws: `ELImageError.malformedMedia` as `read`.
    public static func decode(_ data: [UInt8], name: String = "PNG data") throws -> RGBAImage {
        try reading(data, name: name) { image in
            if hasOwnSixteenBitSamples(image, data) { return try finishSixteenBitRead(&image, name: name) }
            return RGBAImage(width: Int(image.width), height: Int(image.height), pixels: try finishEightBitRead(&image, name: name))
        }
    }

    /// Checks PNG `data` and begins reading it (its size within `ImageSizeLimit`), then lets `body`
    /// finish the read from libpng's image; the image is freed afterwards.
    private static func reading<Result>(_ data: [UInt8], name: String,
                                        _ body: (inout png_image) throws -> Result) throws -> Result {
        try PNGChunkLayout.check(data, file: name)
        return try data.withUnsafeBytes { memory in
            var image = png_image()
            image.version = png_uint_32(PNG_IMAGE_VERSION)
            guard png_image_begin_read_from_memory(&image, memory.baseAddress, memory.count) != 0 else {
                throw ELImageError.malformedMedia(file: name, frame: nil, reason: "not a readable PNG: \(message(of: image))")
            }
            defer { png_image_free(&image) }
            try ImageSizeLimit.check(width: Int(image.width), height: Int(image.height), file: name, kind: "PNG")
            return try body(&image)
        }
    }

    /// Whether a file begun in `image` has 16-bit samples and states no colour encoding: its
    /// samples are then its own sRGB values, which libpng hands over as "linear".
    private static func hasOwnSixteenBitSamples(_ image: png_image, _ data: [UInt8]) -> Bool {
        image.format & png_uint_32(PNG_FORMAT_FLAG_LINEAR) != 0 && !PNGColorEncoding.isStated(in: data)
    }

    /// Finishes a read begun in `image` as 8-bit RGBA, libpng converting what the file states.
    private static func finishEightBitRead(_ image: inout png_image, name: String) throws -> [UInt8] {
        let width = Int(image.width), height = Int(image.height)
        image.format = rgbaFormat
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
        return pixels
    }

    /// Encodes a 16-bit picture (`.rgba64`) as a 16-bit PNG at `path`: RGBA when any pixel is not
    /// opaque, else RGB, the samples stored as they are. An SDR picture gets no colour chunk
    /// (sRGB-encoded, as `readPicture` takes it back); an HDR one (PQ, HLG) a `cICP` chunk with its
    /// primaries and transfer. Written beside `path` and renamed into place.
    /// - Throws: `ELImageError.invalidInput` for another format; `ELImageError.io` when the file
    ///   cannot be written.
    public static func write(_ picture: PixelBuffer, to path: String) throws {
        guard picture.format == .rgba64 else {
            throw ELImageError.invalidInput(what: "PNGFile.write takes a 16-bit RGBA (rgba64) picture, got \(picture.format)",
                                            hint: "write 8-bit pictures as an RGBAImage")
        }
        let (width, height) = (picture.width, picture.height)
        let row = picture.planes[0]
        var samples = [UInt16](repeating: 0, count: width * height * 4)
        picture.data.withUnsafeBytes { bytes in
            for y in 0..<height {
                for x in 0..<(width * 4) {
                    let at = row.offset + y * row.bytesPerRow + 2 * x
                    samples[y * width * 4 + x] = UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
                }
            }
        }
        let opaque = !stride(from: 3, to: samples.count, by: 4).contains { samples[$0] != 65535 }
        if opaque {  // RGB: the alpha of a picture without transparency is not stored
            samples = samples.enumerated().filter { $0.offset % 4 != 3 }.map(\.element)
        }
        let channels = opaque ? 3 : 4
        let hdr = picture.colorSpace.isHDR  // stated in a cICP chunk
        let staging = StagedOutputFile(destination: path)
        let stream = try staging.createStream()
        var message = [CChar](repeating: 0, count: 256)
        let status = samples.withUnsafeBufferPointer { buffer in
            elimage_png_write16(stream, buffer.baseAddress, png_uint_32(width), png_uint_32(height),
                                Int32(channels), width * channels, Int32(hdr ? picture.colorSpace.primaries.rawValue : 0),
                                Int32(hdr ? picture.colorSpace.transfer.rawValue : 0), &message)
        }
        guard status == 0 else {
            let code = errno
            staging.discard()
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw ELImageError.io(file: path, operation: "write 16-bit PNG (\(text))", errno: code,
                                  hint: "check that the folder exists, is writable and has space")
        }
        try staging.publish()
    }

    /// Encodes `image` as a PNG at `path`: RGBA when any pixel is not opaque, else RGB (the alpha
    /// of a picture without transparency is not stored). The file appears complete or not at
    /// all: it is written beside `path` and renamed into place.
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
        let count = image.width * image.height * 4
        let opaque = !stride(from: 3, to: count, by: 4).contains { image.pixels[$0] != 255 }
        let pixels: [UInt8]
        if opaque {
            png.format = png_uint_32(PNG_FORMAT_FLAG_COLOR)
            pixels = Self.rgb(of: image)
        } else {
            png.format = rgbaFormat
            pixels = image.pixels
        }
        let rowSamples = opaque ? image.width * 3 : image.bytesPerRow
        let staging = StagedOutputFile(destination: path)
        let stream = try staging.createStream()
        let ok = pixels.withUnsafeBytes { buffer in
            png_image_write_to_stdio(&png, stream, 0, buffer.baseAddress, png_int_32(rowSamples), nil)
        }
        let closed = fclose(stream) == 0
        guard ok != 0, closed else {
            let code = errno
            staging.discard()
            throw ELImageError.io(file: path, operation: "write PNG (\(message(of: png)))", errno: code,
                                  hint: "check that the folder exists, is writable and has space")
        }
        try staging.publish()
    }

    /// The RGB bytes of `image`, alpha left out, rows packed.
    private static func rgb(of image: RGBAImage) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: image.width * image.height * 3)
        var target = 0
        for y in 0..<image.height {
            var source = y * image.bytesPerRow
            for _ in 0..<image.width {
                result[target] = image.pixels[source]
                result[target + 1] = image.pixels[source + 1]
                result[target + 2] = image.pixels[source + 2]
                target += 3
                source += 4
            }
        }
        return result
    }

    /// Reads the samples of a 16-bit PNG without a stated colour encoding (begun in `image`) as
    /// they are, and rounds them to 8 bits.
    private static func finishSixteenBitRead(_ image: inout png_image, name: String) throws -> RGBAImage {
        let width = Int(image.width), height = Int(image.height)
        let samples = try readSixteenBitSamples(&image, name: name)
        return RGBAImage(width: width, height: height, pixels: samples.map { eightBits(UInt32($0)) })
    }

    /// The RGBA samples of a 16-bit PNG without a stated colour encoding (begun in `image`), as
    /// they are in the file. libpng hands them over as "linear" 16-bit values, which for such a
    /// file are the file's own; colour is premultiplied by alpha there and is divided back here.
    private static func readSixteenBitSamples(_ image: inout png_image, name: String) throws -> [UInt16] {
        image.format = png_uint_32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA | PNG_FORMAT_FLAG_LINEAR)
        let width = Int(image.width), height = Int(image.height)
        let count = width * height * 4
        var ok: Int32 = 0
        // Not zero-filled first: libpng writes every sample, or fails and the array is dropped.
        var samples = [UInt16](unsafeUninitializedCapacity: count) { buffer, initialized in
            // The row stride counts samples, not bytes.
            ok = png_image_finish_read(&image, nil, buffer.baseAddress, png_int_32(width * 4), nil)
            initialized = ok != 0 ? count : 0
        }
        guard ok != 0 else {
            throw ELImageError.malformedMedia(file: name, frame: nil, reason: "PNG data is damaged: \(message(of: image))")
        }
        for pixel in stride(from: 0, to: count, by: 4) {
            let alpha = UInt32(samples[pixel + 3])
            guard alpha != 65535 else { continue }
            for channel in 0..<3 {
                let premultiplied = UInt32(samples[pixel + channel])
                samples[pixel + channel] = alpha == 0 ? 0 : UInt16(min(65535, (premultiplied * 65535 + alpha / 2) / alpha))
            }
        }
        return samples
    }

    /// A 16-bit sample rounded to the nearest 8-bit value (v * 255 / 65535).
    private static func eightBits(_ value: UInt32) -> UInt8 {
        UInt8((value * 255 + 32767) / 65535)
    }

    private static let rgbaFormat = png_uint_32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)

    private static func message(of image: png_image) -> String {
        withUnsafeBytes(of: image.message) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
