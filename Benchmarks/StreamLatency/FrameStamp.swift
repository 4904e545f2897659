/// A frame number drawn into the picture as 16 black or white blocks along its top edge, big
/// enough to survive H.264 at a low bit rate, and read back from the decoded picture's luma.
struct FrameStamp {
    static let bits = 16
    let width: Int
    let height: Int
    /// The side of one block (the picture's width over 16).
    var block: Int { width / Self.bits }

    /// An RGBA picture carrying `number`: the code on top, a moving gradient below (so the
    /// encoder has real work).
    func picture(_ number: Int) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let value: UInt8
                if y < block {
                    let bit = (number >> (Self.bits - 1 - min(Self.bits - 1, x / block))) & 1
                    value = bit == 1 ? 235 : 16
                } else {
                    value = UInt8(truncatingIfNeeded: (x + y + number * 4) / 3)
                }
                let offset = (y * width + x) * 4
                pixels[offset] = value
                pixels[offset + 1] = value
                pixels[offset + 2] = value
                pixels[offset + 3] = 255
            }
        }
        return pixels
    }

    /// The number in a decoded 8-bit luma picture of this size: each block's centre, bright or dark.
    func read(luma: [UInt8]) -> Int {
        var number = 0
        for bit in 0..<Self.bits {
            let x = bit * block + block / 2, y = block / 2
            number = number << 1 | (luma[y * width + x] > 128 ? 1 : 0)
        }
        return number
    }
}
