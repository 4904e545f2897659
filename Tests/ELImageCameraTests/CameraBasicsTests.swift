import CV4L2
import ELImage
@testable import ELImageCamera
import ELImageTestSupport
import Foundation
import Testing

@Suite("Camera basics: ioctl numbers, codes, colour fields, layouts", .closesContexts)
struct CameraBasicsTests {
    @Test("VIDIOC numbers built in Swift equal the C macros (x86-64 values from <linux/videodev2.h>)")
    func ioctlNumbers() {
        let expected: [(UInt, UInt)] = [
            (VIDIOC.querycap, 0x8068_5600), (VIDIOC.enumFormat, 0xC040_5602), (VIDIOC.getFormat, 0xC0D0_5604),
            (VIDIOC.setFormat, 0xC0D0_5605), (VIDIOC.requestBuffers, 0xC014_5608), (VIDIOC.queryBuffer, 0xC058_5609),
            (VIDIOC.queueBuffer, 0xC058_560F), (VIDIOC.dequeueBuffer, 0xC058_5611), (VIDIOC.streamOn, 0x4004_5612),
            (VIDIOC.streamOff, 0x4004_5613), (VIDIOC.getParameters, 0xC0CC_5615), (VIDIOC.setParameters, 0xC0CC_5616),
            (VIDIOC.getControl, 0xC008_561B), (VIDIOC.setControl, 0xC008_561C), (VIDIOC.queryControl, 0xC044_5624),
            (VIDIOC.queryMenu, 0xC02C_5625), (VIDIOC.tryFormat, 0xC0D0_5640), (VIDIOC.getExtendedControls, 0xC020_5647),
            (VIDIOC.setExtendedControls, 0xC020_5648), (VIDIOC.enumFrameSizes, 0xC02C_564A),
            (VIDIOC.enumFrameIntervals, 0xC034_564B), (VIDIOC.queryExtendedControl, 0xC0E8_5667),
        ]
        for (computed, reference) in expected {
            #expect(computed == reference, "\(VIDIOC.name(of: computed)): 0x\(String(computed, radix: 16))")
        }
        #expect(MemoryLayout<v4l2_buffer>.size == 88)
        #expect(MemoryLayout<v4l2_format>.size == 208)
    }

    @Test("FourCC codes, names and upload formats")
    func fourCC() {
        #expect(FourCC.yuyv.rawValue == 0x5659_5559)  // v4l2_fourcc('Y','U','Y','V')
        // v4l2_fourcc values from <linux/videodev2.h> (function-like macros, not imported by Swift).
        #expect(FourCC.mjpeg.rawValue == 0x4750_4A4D)
        #expect(FourCC.nv12.rawValue == 0x3231_564E)
        #expect(FourCC.yu12.rawValue == 0x3231_5559)
        #expect(FourCC(rawValue: 0x5659_5559).description == "YUYV")
        #expect(FourCC.yu12.pixelFormat == .i420)
        #expect(FourCC.mjpeg.pixelFormat == nil && FourCC.mjpeg.isCapturable)
        #expect(!FourCC("BA81").isCapturable)
    }

    @Test("Frame intervals from frame rates")
    func intervals() {
        #expect(FrameInterval(framesPerSecond: 30) == FrameInterval(numerator: 1, denominator: 30))
        #expect(FrameInterval(framesPerSecond: 29.97) == FrameInterval(numerator: 1001, denominator: 30000))
        #expect(FrameInterval(framesPerSecond: 12.5) == FrameInterval(numerator: 1000, denominator: 12500))
        #expect(FrameInterval(numerator: 1, denominator: 30).microseconds == 33333)
        #expect(FrameInterval(numerator: 1001, denominator: 60000).microseconds == 16683)
    }

    @Test("Colour fields follow the V4L2_MAP_*_DEFAULT rules")
    func colorMapping() {
        func space(_ colorspace: v4l2_colorspace, _ fourCC: FourCC, encoding: UInt32 = 0, quantization: UInt32 = 0,
                   transfer: UInt32 = 0) -> ColorSpace {
            V4L2ColorDescription(colorspace: colorspace.rawValue, ycbcrEncoding: encoding, quantization: quantization,
                                 transferFunction: transfer).colorSpace(for: fourCC)
        }
        // A webcam's YUYV: sRGB colorspace → BT.601 encoding, limited range, sRGB transfer.
        #expect(space(V4L2_COLORSPACE_SRGB, .yuyv) == ColorSpace(matrix: .bt601, range: .limited, primaries: .bt709, transfer: .srgb))
        // Unset colorspace is taken as sRGB (neither SDTV nor HDTV).
        #expect(space(V4L2_COLORSPACE_DEFAULT, .yuyv) == space(V4L2_COLORSPACE_SRGB, .yuyv))
        #expect(space(V4L2_COLORSPACE_JPEG, .yuyv) == ColorSpace(matrix: .bt601, range: .full, primaries: .bt709, transfer: .srgb))
        #expect(space(V4L2_COLORSPACE_SMPTE170M, .nv12) == ColorSpace(matrix: .bt601, range: .limited, primaries: .smpte170m, transfer: .smpte170m))
        #expect(space(V4L2_COLORSPACE_REC709, .nv12) == ColorSpace(matrix: .bt709, range: .limited, primaries: .bt709, transfer: .bt709))
        #expect(space(V4L2_COLORSPACE_BT2020, .nv12) == ColorSpace(matrix: .bt2020, range: .limited, primaries: .bt2020, transfer: .bt2020))
        #expect(space(V4L2_COLORSPACE_DCI_P3, .nv12).matrix == .bt709)
        #expect(space(V4L2_COLORSPACE_470_SYSTEM_BG, .yuyv).primaries == .bt470bg)
        // Explicit fields win over the defaults.
        #expect(space(V4L2_COLORSPACE_SRGB, .yuyv, quantization: V4L2_QUANTIZATION_FULL_RANGE.rawValue).range == .full)
        #expect(space(V4L2_COLORSPACE_SRGB, .yuyv, encoding: V4L2_YCBCR_ENC_709.rawValue).matrix == .bt709)
        #expect(space(V4L2_COLORSPACE_REC709, .yuyv, encoding: V4L2_YCBCR_ENC_XV709.rawValue,
                      quantization: V4L2_QUANTIZATION_FULL_RANGE.rawValue).range == .limited)
        #expect(space(V4L2_COLORSPACE_REC709, .yuyv, transfer: V4L2_XFER_FUNC_SMPTE2084.rawValue).transfer == .pq)
        // JPEG frames are JFIF (full range BT.601) even when the driver says sRGB, unless it says limited.
        #expect(space(V4L2_COLORSPACE_SRGB, .mjpeg) == ColorSpace(matrix: .bt601, range: .full, primaries: .bt709, transfer: .srgb))
        #expect(space(V4L2_COLORSPACE_DEFAULT, .mjpeg) == .jpeg)
        #expect(space(V4L2_COLORSPACE_SRGB, .mjpeg, quantization: V4L2_QUANTIZATION_LIM_RANGE.rawValue).range == .limited)
        // RGB is full range.
        #expect(space(V4L2_COLORSPACE_SRGB, .rgb24).range == .full)
    }

    @Test("Plane layouts of single-planar V4L2 formats, with padded strides")
    func layouts() throws {
        let nv12 = try #require(FrameLayout(fourCC: .nv12, width: 64, height: 48, bytesPerLine: 80))
        #expect(nv12.planes == [.init(offset: 0, bytesPerRow: 80), .init(offset: 80 * 48, bytesPerRow: 80)])
        #expect(nv12.byteCount == 80 * 48 + 80 * 23 + 64)
        let i420 = try #require(FrameLayout(fourCC: .yu12, width: 64, height: 48, bytesPerLine: 64))
        #expect(i420.planes == [.init(offset: 0, bytesPerRow: 64), .init(offset: 3072, bytesPerRow: 32),
                                .init(offset: 3072 + 768, bytesPerRow: 32)])
        #expect(i420.byteCount == 64 * 48 * 3 / 2)
        let yuyv = try #require(FrameLayout(fourCC: .yuyv, width: 63, height: 2, bytesPerLine: 0))
        #expect(yuyv.planes == [.init(offset: 0, bytesPerRow: 128)])
        #expect(FrameLayout(fourCC: .mjpeg, width: 64, height: 48, bytesPerLine: 0) == nil)
    }

    @Test("Error messages name the device, the errno and what to do")
    func messages() {
        let denied = DeviceErrors.failure(DeviceErrno(EACCES), "open", path: "/dev/video3")
        #expect("\(denied)".contains("/dev/video3"))
        #expect("\(denied)".contains("EACCES"))
        #expect("\(denied)".contains("add your user to the 'video' group"))
        let gone = DeviceErrors.failure(DeviceErrno(ENODEV), "dequeue frame 7 (VIDIOC_DQBUF) from", path: "/dev/video0")
        #expect("\(gone)" == "cannot dequeue frame 7 (VIDIOC_DQBUF) from /dev/video0: No such device. errno ENODEV: the device is gone: it was unplugged or its driver was unloaded; plug it back in and start again")
        #expect("\(DeviceErrors.stalled(path: "/dev/video1", timeout: .milliseconds(1500), frame: 3))".contains("1.5 s"))
    }
}
