import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

// JPEG EXIF Orientation: StillImageInput turns pictures upright as the tag says; damaged Exif data
// is ignored (orientation 1), never a crash.

@Suite("EXIF orientation", .closesContexts, .serialized)
struct EXIFOrientationTests {
    /// The picture `still` delivers into a graph, read back as RGBA.
    static func delivered(by still: StillImageInput) async throws -> RGBAImage {
        let context = try TestContexts.make()
        let (output, images) = imageCollector()
        still --> output
        try await still.run(on: context)
        return try #require(images.values.first)
    }

    /// A tagged copy of the pattern JPEG written to `folder`, and FFmpeg's decode of the untagged one.
    static func taggedJPEG(tag: Int, littleEndian: Bool, in folder: TemporaryFolder) throws -> (path: String, stored: RGBAImage) {
        let (jpeg, stored) = try OrientedMediaFixtures.untaggedPattern(in: folder)
        let path = folder.path("tagged-\(tag)-\(littleEndian ? "II" : "MM").jpg")
        let tagged = OrientedMediaFixtures.splicingExif(OrientedMediaFixtures.exifTIFF(orientation: tag, littleEndian: littleEndian),
                                                        into: jpeg)
        try Data(tagged).write(to: URL(fileURLWithPath: path))
        return (path, stored)
    }

    @Test("Orientations 1-8, little- and big-endian TIFF: the picture comes out as the EXIF definition turns FFmpeg's decode of the untagged JPEG",
          arguments: 1...8, [true, false])
    func orientationIsApplied(tag: Int, littleEndian: Bool) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (path, stored) = try Self.taggedJPEG(tag: tag, littleEndian: littleEndian, in: folder)
        #expect((stored.width, stored.height) == (48, 32) && stored.pixels.count == 48 * 32 * 4)
        let expected = OrientedMediaFixtures.applyingEXIF(tag, to: stored)
        let still = try StillImageInput(path: path)
        #expect(still.size == (48, 32))
        #expect(still.outputSize == (expected.width, expected.height))
        let image = try await Self.delivered(by: still)
        #expect((image.width, image.height) == (expected.width, expected.height))
        #expect((image.width, image.height) == (tag >= 5 ? (32, 48) : (48, 32)))
        let difference = MovieFixtures.compareRGB(image.pixels, expected.pixels)
        print("EXIF \(tag) \(littleEndian ? "II" : "MM"): max \(difference.max), mean \(difference.mean) against FFmpeg + EXIF definition")
        // libjpeg-turbo's and FFmpeg's IDCTs differ by a level or two in places (see JPEGFileTests).
        #expect(difference.max <= 3, "mean \(difference.mean), max \(difference.max)")
        #expect(difference.mean < 0.5)
    }

    @Test("autorotate off leaves an orientation-6 JPEG as stored; a further 90° after 6 gives 180°")
    func autorotateOffAndComposition() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (path, stored) = try Self.taggedJPEG(tag: 6, littleEndian: true, in: folder)
        let asStored = try StillImageInput(path: path, options: .init(autorotate: false))
        #expect(asStored.sourceOrientation == Orientation(rotation: .clockwise90))
        let plain = try await Self.delivered(by: asStored)
        #expect((plain.width, plain.height) == (48, 32))
        #expect(MovieFixtures.compareRGB(plain.pixels, stored.pixels).max <= 3)

        let turned = try StillImageInput(path: path, options: .init(orientation: Orientation(rotation: .clockwise90)))
        let image = try await Self.delivered(by: turned)
        let halfTurn = OrientedMediaFixtures.applyingEXIF(3, to: stored)
        #expect((image.width, image.height) == (48, 32))
        #expect(MovieFixtures.compareRGB(image.pixels, halfTurn.pixels).max <= 3)
    }

    /// Damaged Exif payloads (after "Exif\0\0"), each of which must read as no orientation.
    static let damagedTIFF: [(String, [UInt8])] = {
        let good = OrientedMediaFixtures.exifTIFF(orientation: 6, littleEndian: true)
        var list: [(String, [UInt8])] = []
        list.append(("IFD cut short in the orientation entry", Array(good.prefix(8 + 2 + 12 + 6))))
        list.append(("IFD cut short before its entries", Array(good.prefix(9))))
        list.append(("header only", Array(good.prefix(4))))
        var far = good; far.replaceSubrange(4..<8, with: [0xF0, 0xFF, 0xFF, 0xFF])
        list.append(("IFD offset far out of range", far))
        var justPast = good; justPast.replaceSubrange(4..<8, with: [UInt8(good.count - 1), 0, 0, 0])
        list.append(("IFD offset at the last byte", justPast))
        var manyEntries = good; manyEntries.replaceSubrange(8..<10, with: [0xFF, 0xFF])
        list.append(("65535 entries claimed, 2 present", manyEntries))
        var wrongMagic = good; wrongMagic[2] = 43
        list.append(("not 42", wrongMagic))
        var wrongOrder = good; wrongOrder[0] = 0x4D
        list.append(("mixed byte-order mark", wrongOrder))
        var zeroCount = good; zeroCount.replaceSubrange(26..<30, with: [0, 0, 0, 0])
        list.append(("orientation with count 0", zeroCount))
        var undefinedType = good; undefinedType.replaceSubrange(24..<26, with: [7, 0])
        list.append(("orientation of type UNDEFINED", undefinedType))
        list.append(("orientation 0", OrientedMediaFixtures.exifTIFF(orientation: 0, littleEndian: true)))
        list.append(("orientation 9", OrientedMediaFixtures.exifTIFF(orientation: 9, littleEndian: false)))
        list.append(("orientation 65535", OrientedMediaFixtures.exifTIFF(orientation: 0xFFFF, littleEndian: true)))
        list.append(("empty", []))
        return list
    }()

    @Test("Damaged Exif (truncated IFD, offsets out of range, bad header, invalid values) reads as orientation 1; the JPEG decodes as stored")
    func damagedExifIsIgnored() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (jpeg, stored) = try OrientedMediaFixtures.untaggedPattern(in: folder)
        // The layout the cases above cut into: Orientation is the second entry of IFD0 at 8.
        let good = OrientedMediaFixtures.exifTIFF(orientation: 6, littleEndian: true)
        #expect(JPEGFile.orientation(of: OrientedMediaFixtures.splicingExif(good, into: jpeg)) == Orientation(rotation: .clockwise90))
        #expect(good[22..<24] == [0x12, 0x01])
        for (name, tiff) in Self.damagedTIFF {
            let data = OrientedMediaFixtures.splicingExif(tiff, into: jpeg)
            #expect(JPEGFile.orientation(of: data) == .up, "\(name)")
            let path = folder.path("damaged.jpg")
            try Data(data).write(to: URL(fileURLWithPath: path))
            let still = try StillImageInput(path: path)
            #expect(still.sourceOrientation == .up, "\(name)")
            let image = try await Self.delivered(by: still)
            #expect((image.width, image.height) == (48, 32), "\(name)")
            #expect(MovieFixtures.compareRGB(image.pixels, stored.pixels).max <= 3, "\(name)")
        }
    }

    @Test("Cut anywhere, a tagged JPEG reads as its orientation once the Exif segment is whole, else as 1; garbage never traps")
    func truncationsAndGarbage() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let jpeg = try OrientedMediaFixtures.patternJPEG(in: folder)
        for littleEndian in [true, false] {
            let tiff = OrientedMediaFixtures.exifTIFF(orientation: 8, littleEndian: littleEndian)
            let data = OrientedMediaFixtures.splicingExif(tiff, into: jpeg)
            let segmentEnd = 2 + 4 + 6 + tiff.count
            for length in 0...data.count {
                let expected = length >= segmentEnd ? Orientation(rotation: .clockwise270) : .up
                #expect(JPEGFile.orientation(of: Array(data.prefix(length))) == expected, "cut at \(length)")
            }
            // Seeded byte changes inside the segment: any answer but a trap; the tag alone decides.
            var generator = SeededGenerator(seed: littleEndian ? 11 : 12)
            for _ in 0..<2000 {
                var mutated = data
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    mutated[Int.random(in: 2..<segmentEnd, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                }
                _ = JPEGFile.orientation(of: mutated)
            }
        }
        #expect(JPEGFile.orientation(of: jpeg) == .up)
        #expect(JPEGFile.orientation(of: [0xFF, 0xD8]) == .up)
        #expect(JPEGFile.orientation(of: [0xFF, 0xD8] + [UInt8](repeating: 0xFF, count: 64)) == .up)
    }

    @Test("An Exif segment after the start of scan, or an XMP APP1, is not read")
    func onlyExifBeforeScan() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let jpeg = try OrientedMediaFixtures.patternJPEG(in: folder)
        let tiff = OrientedMediaFixtures.exifTIFF(orientation: 3, littleEndian: false)
        // An APP1 that is not Exif (XMP) before a real Exif one: the Exif one still counts.
        let xmp: [UInt8] = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
        let withXMP = OrientedMediaFixtures.splicingExif(tiff, into: jpeg)
        let xmpSegment: [UInt8] = [0xFF, 0xE1, 0, UInt8(xmp.count + 2)] + xmp
        #expect(JPEGFile.orientation(of: Array(withXMP[0..<2]) + xmpSegment + Array(withXMP[2...])) == Orientation(rotation: .rotate180))
        // After SOS (FF DA) the bytes are image data, never read for tags.
        let scan = try #require((2..<(jpeg.count - 1)).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xDA })
        let exif: [UInt8] = Array("Exif".utf8) + [0, 0] + tiff
        let late = Array(jpeg[..<scan]) + Array(jpeg[scan...].prefix(2)) + [0xFF, 0xE1, 0, UInt8(exif.count + 2)] + exif
        #expect(JPEGFile.orientation(of: late) == .up)
    }
}
