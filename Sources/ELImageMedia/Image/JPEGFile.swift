import CTurboJPEG
import ELImage
import Foundation

/// Reads and writes JPEG files through libjpeg-turbo's TurboJPEG API.
///
/// Reading gives RGBA (`read`) or the JPEG's own Y'CbCr planes (`readYUV`: 4:2:0, 4:2:2, 4:4:4
/// or gray, full-range BT.601 as JFIF defines, chroma centred). Writing takes RGBA and a quality.
/// Decoding uses the accurate integer IDCT and libjpeg's smooth ("fancy") chroma upsampling.
///
/// Damage: libjpeg's warnings (a file cut short, corrupt entropy data) are errors here, so a
/// damaged picture never passes for a good one.
///
/// Pixels come as stored: the EXIF orientation a camera writes (a phone's upright photo is stored
/// sideways, tagged 6) is read by `orientation(of:)` and applied by `StillImageInput`.
public enum JPEGFile {
    /// How the chroma of a written JPEG is subsampled.
    public enum Subsampling: Sendable, CaseIterable {
        /// Full chroma resolution: the best colour edges, the largest files.
        case yuv444
        /// Chroma halved horizontally.
        case yuv422
        /// Chroma halved in both directions: what cameras and most encoders write.
        case yuv420
        /// Luma only: a grayscale JPEG.
        case gray

        var turboJPEG: Int32 {
            switch self {
            case .yuv444: Int32(TJSAMP_444.rawValue)
            case .yuv422: Int32(TJSAMP_422.rawValue)
            case .yuv420: Int32(TJSAMP_420.rawValue)
            case .gray: Int32(TJSAMP_GRAY.rawValue)
            }
        }
    }

    // MARK: Reading

    /// Decodes the JPEG file at `path` into RGBA (alpha 255).
    /// - Throws: `ELImageError.io` when the file cannot be read; `ELImageError.malformedMedia`
    ///   when it is not a JPEG, is damaged or cut short, is larger than
    ///   `ImageSizeLimit.maximumDimension` a side. CMYK and YCCK files are converted to RGB (see
    ///   `decodeInk`).
    public static func read(_ path: String) throws -> RGBAImage {
        try decode(try ImageFileData.read(path, kind: "JPEG", statedSize: JPEGFrameHeader.statedSize(in:)), name: path)
    }

    /// Decodes the JPEG file at `path` into its own Y'CbCr planes: `i420`, `i422`, `i444` or
    /// `gray8` after the JPEG's subsampling, colour space `ColorSpace.jpeg` (BT.601, full range),
    /// chroma centred.
    /// - Throws: as `read`, and `ELImageError.malformedMedia` for subsamplings ELImage has no
    ///   layout for (4:4:0, 4:1:1): read those with `read` instead.
    public static func readYUV(_ path: String) throws -> PixelBuffer {
        try decodeYUV(try ImageFileData.read(path, kind: "JPEG", statedSize: JPEGFrameHeader.statedSize(in:)), name: path)
    }

    /// How the EXIF Orientation tag of JPEG `data` says the picture is to be turned to be seen
    /// upright: tag values 1...8 as `Orientation`s (2 mirrored, 3 180°, 4 flipped top to bottom,
    /// 5 transposed, 6 90° clockwise, 7 transversed, 8 270° clockwise). `.up` when there is no
    /// tag, or when the Exif data is damaged, cut short or holds another value: never throws.
    public static func orientation(of data: [UInt8]) -> Orientation {
        EXIFOrientation.value(inJPEG: data).flatMap(EXIFOrientation.orientation(forTagValue:)) ?? .up
    }

    /// Decodes JPEG `data` into RGBA; `name` stands for the data in errors.
    public static func decode(_ data: [UInt8], name: String = "JPEG data") throws -> RGBAImage {
        let decoder = try Decoder(data: data, name: name)
        if isInk(colorspace: decoder.colorspace) {
            return try decodeInk(data, handle: decoder.handle, width: decoder.width, height: decoder.height) { status in
                try decoder.check(status, doing: "decode")
            }
        }
        // Not zero-filled first: the decoder writes every byte, or fails and the array is dropped.
        var status: Int32 = -1
        let count = decoder.width * decoder.height * 4
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { output, initialized in
            status = data.withUnsafeBufferPointer { jpeg in
                tjDecompress2(decoder.handle, jpeg.baseAddress, UInt(jpeg.count), output.baseAddress,
                              Int32(decoder.width), Int32(decoder.width * 4), Int32(decoder.height),
                              Int32(TJPF_RGBA.rawValue), decodeFlags)
            }
            initialized = status == 0 ? count : 0
        }
        try decoder.check(status, doing: "decode")
        return RGBAImage(width: decoder.width, height: decoder.height, pixels: pixels)
    }

    /// Decodes JPEG `data` into its own Y'CbCr planes (see `readYUV`).
    public static func decodeYUV(_ data: [UInt8], name: String = "JPEG data") throws -> PixelBuffer {
        let decoder = try Decoder(data: data, name: name)
        guard !isInk(colorspace: decoder.colorspace) else {
            throw ELImageError.malformedMedia(
                file: name, frame: nil,
                reason: "it is a CMYK JPEG, whose inks have no Y'CbCr planes; read it as RGBA with JPEGFile.read")
        }
        let format: PixelFormat
        switch decoder.subsampling {
        case Int32(TJSAMP_420.rawValue): format = .i420
        case Int32(TJSAMP_422.rawValue): format = .i422
        case Int32(TJSAMP_444.rawValue): format = .i444
        case Int32(TJSAMP_GRAY.rawValue): format = .gray8
        default:
            throw ELImageError.malformedMedia(
                file: name, frame: nil,
                reason: "its chroma subsampling (TurboJPEG code \(decoder.subsampling): 4:4:0 or 4:1:1) has no ELImage pixel format; read it as RGBA with JPEGFile.read")
        }
        let (width, height) = (decoder.width, decoder.height)
        let planes = PixelBuffer.packedPlanes(format: format, width: width, height: height)
        // Not zero-filled first: the decoder writes every byte, or fails and the array is dropped.
        var status: Int32 = -1
        let count = format.byteCount(width: width, height: height)
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { output, initialized in
            status = data.withUnsafeBufferPointer { jpeg -> Int32 in
                guard let base = output.baseAddress else { return -1 }
                var pointers: [UnsafeMutablePointer<UInt8>?] = planes.map { base + $0.offset }
                var strides = planes.map { Int32($0.bytesPerRow) }
                return tjDecompressToYUVPlanes(decoder.handle, jpeg.baseAddress, UInt(jpeg.count), &pointers,
                                               Int32(width), &strides, Int32(height), decodeFlags)
            }
            initialized = status == 0 ? count : 0
        }
        try decoder.check(status, doing: "decode")
        return try PixelBuffer(format: format, width: width, height: height, data: pixels, planes: planes,
                               colorSpace: .jpeg, chromaLocation: .center)
    }

    // MARK: Writing

    /// Encodes `image` (RGBA; alpha is dropped) as a JPEG file at `path`. The file appears
    /// complete or not at all: it is written beside `path` and renamed into place.
    ///
    /// - Parameters:
    ///   - image: the picture to encode.
    ///   - path: the file to write.
    ///   - quality: 1 (smallest) to 100 (best); 90 keeps photographs visually intact.
    ///   - subsampling: chroma resolution; 4:2:0 by default.
    /// - Throws: `ELImageError.invalidInput` for an empty image, too few bytes or a quality
    ///   outside 1...100; `ELImageError.io` when the file cannot be written.
    public static func write(_ image: RGBAImage, to path: String, quality: Int = 90,
                             subsampling: Subsampling = .yuv420) throws {
        let bytes = try encode(image, quality: quality, subsampling: subsampling)
        let file = try POSIXFileWriter(path: path)
        do {
            try bytes.withUnsafeBytes { try file.write($0) }
            try file.close()
        } catch {
            try? file.close()
            file.remove()
            throw error
        }
        try file.publish()
    }

    /// Encodes `image` (RGBA; alpha is dropped) as JPEG bytes (see `write`).
    public static func encode(_ image: RGBAImage, quality: Int = 90, subsampling: Subsampling = .yuv420) throws -> [UInt8] {
        guard image.width > 0, image.height > 0, image.pixels.count >= image.width * image.height * 4 else {
            throw ELImageError.invalidInput(
                what: "cannot encode a \(image.width)x\(image.height) JPEG from \(image.pixels.count) bytes",
                hint: "the image needs width * height * 4 bytes of RGBA")
        }
        guard (1...100).contains(quality) else {
            throw ELImageError.invalidInput(what: "JPEG quality \(quality) is out of range",
                                            hint: "give a quality from 1 to 100 (90 is a good default)")
        }
        guard let handle = tjInitCompress() else {
            throw ELImageError.invalidInput(what: "TurboJPEG cannot start a compressor (out of memory?)",
                                            hint: "free some memory and try again")
        }
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        defer { tjFree(output) }
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            tjCompress2(handle, pixels.baseAddress, Int32(image.width), Int32(image.bytesPerRow), Int32(image.height),
                        Int32(TJPF_RGBA.rawValue), &output, &size, subsampling.turboJPEG, Int32(quality),
                        TJFLAG_ACCURATEDCT)
        }
        guard status == 0, let output else {
            throw ELImageError.invalidInput(
                what: "TurboJPEG cannot encode the \(image.width)x\(image.height) image: \(String(cString: tjGetErrorStr2(handle)))",
                hint: "check the image size (at most 65535 pixels a side)")
        }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }

    // MARK: Helpers

    /// Accurate IDCT; stop at the first warning (a warning fails the decode anyway, and going on
    /// would decode the rest of a damaged picture for nothing); at most 500 progressive scans (a
    /// small file with thousands of scans would take minutes to decode).
    static let decodeFlags = TJFLAG_ACCURATEDCT | TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS

    /// A TurboJPEG decompressor with the header of one JPEG read.
    final class Decoder {
        let handle: tjhandle
        let name: String
        let width: Int
        let height: Int
        let subsampling: Int32
        /// TurboJPEG's colour space code (`TJCS_*`).
        let colorspace: Int32

        init(data: [UInt8], name: String) throws {
            guard data.count >= 2, data[0] == 0xFF, data[1] == 0xD8 else {
                throw ELImageError.malformedMedia(file: name, frame: nil,
                                                  reason: "not a JPEG: it does not start with the JPEG marker FF D8")
            }
            guard let handle = tjInitDecompress() else {
                throw ELImageError.malformedMedia(file: name, frame: nil,
                                                  reason: "TurboJPEG cannot start a decompressor (out of memory?)")
            }
            self.handle = handle
            self.name = name
            var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
            let status = data.withUnsafeBufferPointer { jpeg in
                tjDecompressHeader3(handle, jpeg.baseAddress, UInt(jpeg.count), &width, &height, &subsampling, &colorspace)
            }
            self.width = Int(width)
            self.height = Int(height)
            self.subsampling = subsampling
            self.colorspace = colorspace
            try check(status, doing: "read the header of")
            try ImageSizeLimit.check(width: Int(width), height: Int(height), file: name, kind: "JPEG")
        }

        deinit { tjDestroy(handle) }

        /// Throws for a failed call; warnings (damaged or cut-short data) count as failures.
        func check(_ status: Int32, doing operation: String) throws {
            guard status != 0 else { return }
            let message = String(cString: tjGetErrorStr2(handle))
            let warning = tjGetErrorCode(handle) == Int32(TJERR_WARNING.rawValue)
            throw ELImageError.malformedMedia(
                file: name, frame: nil,
                reason: "TurboJPEG cannot \(operation) it: \(message)" + (warning ? "; the JPEG data is damaged or cut short" : ""))
        }
    }
}
