import ELImage
import Foundation

/// Writes a YUV4MPEG2 (`.y4m`) file frame by frame.
///
///     let header = try Y4MHeader(width: 640, height: 480, format: .i420, frameRate: 25)
///     let writer = try Y4MWriter(path: "out.y4m", header: header)
///     for frame in frames { try writer.write(frame) }
///     try writer.close()
///
/// The file is written as `PATH.partial` beside `path` and renamed onto `path` by `close()` (see
/// `StagedOutputFile`): until then a file already at `path` is untouched, and `discard()` removes
/// the partial file instead. Each frame is flushed as it is written, so a failure (a full disk,
/// say) is reported by the `write` of the frame it hit. Call `close()` and check it; a writer
/// freed without `close()` or `discard()` leaves `PATH.partial` behind.
public final class Y4MWriter {
    /// The file being written.
    public let path: String
    /// The stream header, written first.
    public let header: Y4MHeader
    /// Frames written so far (the number of the next frame).
    public private(set) var framesWritten = 0
    /// The temporary name written to, and the rename that finishes it.
    public let staging: StagedOutputFile

    private var handle: UnsafeMutablePointer<FILE>?

    /// Creates the temporary file for `path` and writes `header`.
    /// - Throws: `ELImageError.invalidInput` for a header that cannot be written (size outside
    ///   1...`Y4MHeader.maximumDimension`, a non-positive frame rate, an option with a space);
    ///   `ELImageError.io` when the file cannot be created.
    public init(path: String, header: Y4MHeader) throws {
        if let problem = header.problem {
            throw ELImageError.invalidInput(what: "cannot write \(path): \(problem)",
                                            hint: "fix the Y4MHeader, e.g. with Y4MHeader(width:height:format:frameRate:)")
        }
        let staging = StagedOutputFile(destination: path)
        let handle = try staging.createStream()
        self.path = path
        self.staging = staging
        self.header = header
        self.handle = handle
        // Buffered; flushed with the first frame or by close().
        guard Self.put(Array((header.line + "\n").utf8), to: handle) else {
            let code = errno
            fclose(handle)
            self.handle = nil
            staging.discard()
            throw ELImageError.io(file: path, operation: "write the header to", errno: code,
                                  hint: "check the free space and permissions")
        }
    }

    deinit {
        if let handle { fclose(handle) }
    }

    /// Appends `buffer` as the next frame. Its format and size must be the header's; its planes
    /// may have any stride (rows are written without padding). Its timestamp and colour space are
    /// not stored: a Y4M frame's time comes from its position and the header's frame rate.
    /// - Throws: `ELImageError.invalidInput` when the format or size differ from the header or
    ///   the buffer's data is shorter than its planes; `ELImageError.invalidState` after
    ///   `close()`; `ELImageError.io` naming the frame when writing fails.
    public func write(_ buffer: PixelBuffer) throws {
        guard let handle else {
            throw ELImageError.invalidState(node: "Y4MWriter(\(path))",
                                            reason: "frame \(framesWritten) was written after close(); write every frame before closing")
        }
        let index = framesWritten
        guard buffer.format == header.pixelFormat, buffer.width == header.width, buffer.height == header.height else {
            throw ELImageError.invalidInput(
                what: "frame \(index) for \(path) is \(buffer.width)x\(buffer.height) \(buffer.format), the file's header says \(header.width)x\(header.height) \(header.pixelFormat)",
                hint: "convert or scale frames to the header's format and size, or write them to another file")
        }
        for (plane, layout) in buffer.planes.enumerated() {
            let shape = buffer.shape(ofPlane: plane)
            let end = layout.offset + layout.bytesPerRow * (shape.height - 1) + shape.rowBytes
            guard layout.offset >= 0, layout.bytesPerRow >= shape.rowBytes, end <= buffer.data.count else {
                throw ELImageError.invalidInput(
                    what: "frame \(index) for \(path): plane \(plane) needs bytes up to \(end) at stride \(layout.bytesPerRow), the buffer holds \(buffer.data.count)",
                    hint: "keep the buffer's data as long as its planes describe")
            }
        }
        let written = Self.put(Array("FRAME\n".utf8), to: handle) && buffer.data.withUnsafeBytes { data in
            guard let base = data.baseAddress else { return false }
            for (plane, layout) in buffer.planes.enumerated() {
                let shape = buffer.shape(ofPlane: plane)
                if layout.bytesPerRow == shape.rowBytes {
                    let count = shape.rowBytes * shape.height
                    guard fwrite(base + layout.offset, 1, count, handle) == count else { return false }
                } else {
                    for row in 0..<shape.height {
                        let start = layout.offset + row * layout.bytesPerRow
                        guard fwrite(base + start, 1, shape.rowBytes, handle) == shape.rowBytes else { return false }
                    }
                }
            }
            return true
        }
        guard written, fflush(handle) == 0 else {
            let code = errno
            throw ELImageError.io(file: path, operation: "write frame \(index) to", errno: code,
                                  hint: "check the free space on its disk and that it is still writable")
        }
        framesWritten += 1
    }

    /// Flushes and closes the file and renames it onto `path`. Calling it again does nothing.
    /// - Throws: `ELImageError.io` when the last bytes cannot be written (the incomplete file
    ///   stays under its temporary name) or the rename fails.
    public func close() throws {
        guard let handle else { return }
        self.handle = nil
        let flushed = fflush(handle) == 0
        let flushError = errno
        let closed = fclose(handle) == 0
        let closeError = errno
        guard flushed, closed else {
            throw ELImageError.io(file: path, operation: "finish writing (after \(framesWritten) frames)",
                                  errno: flushed ? closeError : flushError,
                                  hint: "check the free space on its disk; what was written is in \(staging.temporary)")
        }
        try staging.publish()
    }

    /// Closes the file without putting it in place and removes it: a file already at `path`
    /// stays as it was. Calling it again, or after `close()`, does nothing.
    public func discard() {
        guard let handle else { return }
        self.handle = nil
        fclose(handle)
        staging.discard()
    }

    private static func put(_ bytes: [UInt8], to handle: UnsafeMutablePointer<FILE>) -> Bool {
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return true }
            return fwrite(base, 1, raw.count, handle) == raw.count
        }
    }
}
