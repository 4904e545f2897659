import ELImage

/// `count` 2x2 pictures, picture n filled with the byte n and stamped n/25 s, for a
/// `SourceRunner`; damage or a failure at a chosen picture.
package struct SyntheticPictures: FrameProducer {
    package let count: Int
    package var damagedAt: Int?
    package var failingAt: Int?
    /// Called before each picture is made (and once more at the end) with its number.
    package var onNext: @Sendable (Int) -> Void = { _ in }
    private var index = 0

    package init(count: Int, damagedAt: Int? = nil, failingAt: Int? = nil, onNext: @escaping @Sendable (Int) -> Void = { _ in }) {
        (self.count, self.damagedAt, self.failingAt, self.onNext) = (count, damagedAt, failingAt, onNext)
    }

    package static func time(_ index: Int) -> MediaTime { MediaTime(value: Int64(index), timescale: 25) }

    package mutating func next(_ control: ProducerControl) throws -> ProducedFrame {
        onNext(index)
        guard index < count, !control.isCancelled else { return .endOfStream }
        if index == failingAt {
            throw ELImageError.malformedMedia(file: "synthetic", frame: index, reason: "the test fails here")
        }
        if index == damagedAt {
            control.reportDamage(ELImageError.malformedMedia(file: "synthetic", frame: index, reason: "damaged on purpose"))
        }
        let value = UInt8(truncatingIfNeeded: index)
        var buffer = try PixelBuffer(format: .rgba, width: 2, height: 2, data: [UInt8](repeating: value, count: 16))
        buffer.timestamp = Self.time(index)
        index += 1
        return .picture(buffer)
    }
}
