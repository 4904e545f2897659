import ELImage
@testable import ELImageCamera
import ELImageDetection
@testable import ELImageMedia
@testable import ELImagePreview
import ELImageTestSupport
import Foundation
import Testing

/// What users print reads as a sentence, not as a reflection of stored properties.
@Suite("Printed descriptions")
struct DescriptionTests {
    @Test("MediaTime prints seconds to the millisecond; debugDescription keeps the exact rational")
    func mediaTime() {
        let time = MediaTime(value: 512, timescale: 12800)
        #expect("\(time)" == "0.040 s")
        #expect(String(reflecting: time) == "512/12800 s")
        #expect("\(MediaTime(value: 1001, timescale: 30000))" == "0.033 s")
        #expect("\(MediaTime(value: 5, timescale: 1))" == "5.000 s")
        #expect("\(MediaTime(value: -3, timescale: 2))" == "-1.500 s")
        #expect("\(MediaTime.zero)" == "0.000 s")
    }

    @Test("A recording's summary: path, frames, duration, size, drops, why it ended")
    func recordingSummary() {
        var statistics = RecordingStatistics()
        statistics.framesIn = 132
        statistics.encoded = 130
        statistics.dropped = 2
        statistics.droppedQueueFull = 2
        statistics.bytesWritten = 1_234_567
        statistics.fragmentsWritten = 3
        statistics.recordedDuration = .milliseconds(5280)
        statistics.achievedFramesPerSecond = 240.46
        let summary = RecordingSummary(path: "out.mp4", reason: .endOfStream, statistics: statistics, width: 1280, height: 720,
                                       colorSpace: .bt709, timescale: 12800, startDate: Date(timeIntervalSince1970: 0), files: ["out.mp4"])
        #expect("\(summary)" == "out.mp4: 130 frames, 5.280 s, 1280x720, 1.2 MB, 2 dropped (2 on a full queue) (end of stream)")
        #expect("\(statistics)" == "132 frames in, 130 encoded, 2 dropped (2 on a full queue), 5.280 s, 1.2 MB in 3 fragments, 240.5 fps")
        var audio = AudioStatistics()
        audio.packetsWritten = 250
        audio.samplesWritten = 256_000
        var capture = AudioCaptureStatistics()
        capture.samplesCaptured = 96000
        capture.driftPPM = 12.4
        capture.latency = 0.0204
        audio.capture = capture
        statistics.audio = audio
        #expect("\(statistics)".hasSuffix("; audio: 250 packets (256000 samples) written, 0 dropped; "
                                          + "96000 samples captured, 0 inserted, 0 dropped, drift 12 ppm, latency 20 ms"))
        #expect("\(summary)".count < 120)
    }

    @Test("A face: its box in pixels, its track and confidence")
    func face() {
        let face = Face(trackingID: 3, bounds: CGRect(x: 0.1, y: 0.2, width: 0.3, height: 0.4),
                        pixelBounds: CGRect(x: 120.2, y: 48, width: 64, height: 71.6), confidence: 0.8,
                        rollDegrees: nil, yawDegrees: nil)
        #expect("\(face)" == "face 3 at (120, 48) 64×72 px, confidence 0.80")
        let turned = Face(trackingID: 1, bounds: .zero, pixelBounds: CGRect(x: 0, y: 0, width: 10, height: 10), confidence: 0.5,
                          rollDegrees: -2.1, yawDegrees: 4)
        #expect("\(turned)" == "face 1 at (0, 0) 10×10 px, confidence 0.50, roll -2°, yaw 4°")
    }

    @Test("Detector and preview counters")
    func counters() {
        #expect("\(DetectorOutput.Statistics(framesIn: 25, sampled: 5, analysed: 5, dropped: 0))"
                == "25 frames in, 5 sampled, 5 analysed, 0 dropped")
        var preview = PreviewWindow.Statistics()
        preview.received = 120
        preview.presented = 118
        preview.dropped = 2
        #expect("\(preview)" == "120 received, 118 presented, 2 dropped")
        var source = SourceStatistics()
        source.produced = 10
        source.delivered = 9
        source.dropped = 1
        #expect("\(source)" == "produced 10, delivered 9, dropped 1")
        var paced = SourceStatistics()
        paced.produced = 132
        paced.delivered = 24
        for _ in 0..<106 { paced.countDrop(.late) }
        for _ in 0..<2 { paced.countDrop(.stopped) }
        #expect(paced.dropped == 108 && paced.droppedBy == [.late: 106, .stopped: 2])
        #expect("\(paced)" == "produced 132, delivered 24, dropped 108 (106 too late for real-time pacing, 2 discarded at the stop)")
    }

    @Test("A camera in the device list: path, name, driver, bus, formats")
    func cameraDevice() {
        let info = CameraDeviceInfo(path: "/dev/video0", driver: "uvcvideo", card: "HD Pro Webcam C920", bus: "usb-0000:00:14.0-1",
                                    driverVersion: "6.1.0", capabilities: [.videoCapture, .streaming],
                                    formats: [CameraFormatDescription(fourCC: "MJPG", name: "Motion-JPEG", isCompressed: true, sizes: .unknown),
                                              CameraFormatDescription(fourCC: "YUYV", name: "YUYV 4:2:2", sizes: .unknown)])
        #expect("\(info)" == "/dev/video0: HD Pro Webcam C920 (uvcvideo, usb-0000:00:14.0-1), formats MJPG, YUYV")
    }
}
