import Foundation

extension Metadata {
    /// One JSON object per detection (JSON Lines, no newline at the end of each), coordinates in
    /// the frame's pixels, e.g.
    /// `{"frame":12,"time":0.48,"type":"face","id":3,"bounds":[x,y,w,h],"confidence":0.93,"roll":-2.1,"yaw":5.0}`
    /// (with `"landmarks":[[x,y],...]`, eyes, nose and mouth corners, from the landmark detector),
    /// `{"frame":0,"time":0,"type":"qr","text":"...","points":[[x,y],...]}`,
    /// `{"frame":50,"time":2,"type":"motion","event":"start","area":0.0342,"bounds":[x,y,w,h]}` and
    /// `{"frame":3,"time":0.12,"type":"people","coverage":0.41,"bounds":[x,y,w,h]}` (the share of
    /// the frame that is person and the box around it; no box when nobody is there).
    public var jsonLines: [String] {
        let head = "{\"frame\":\(frame),\"time\":\(Self.number(time.seconds, digits: 6))"
        return detections.map { detection in
            switch detection {
            case let .face(face):
                let box = face.pixelBounds
                var line = head + ",\"type\":\"face\",\"id\":\(face.trackingID),\"bounds\":["
                    + [box.minX, box.minY, box.width, box.height].map { Self.number(Double($0), digits: 1) }.joined(separator: ",")
                    + "],\"confidence\":\(Self.number(face.confidence, digits: 3))"
                if let roll = face.rollDegrees { line += ",\"roll\":\(Self.number(roll, digits: 1))" }
                if let yaw = face.yawDegrees { line += ",\"yaw\":\(Self.number(yaw, digits: 1))" }
                if let landmarks = face.landmarks { line += ",\"landmarks\":" + Self.points(landmarks.points) }
                return line + "}"
            case let .code(code):
                return head + ",\"type\":\(Self.string(code.typeName)),\"format\":\(Self.string(code.format)),\"text\":"
                    + Self.string(code.text) + ",\"points\":" + Self.points(code.pixelPoints) + "}"
            case let .motion(motion):
                let box = motion.pixelBounds
                return head + ",\"type\":\"motion\",\"event\":\"\(motion.event.rawValue)\",\"area\":"
                    + Self.number(motion.area, digits: 4) + ",\"bounds\":["
                    + [box.minX, box.minY, box.width, box.height].map { Self.number(Double($0), digits: 1) }.joined(separator: ",") + "]}"
            case let .person(mask):
                var line = head + ",\"type\":\"people\",\"coverage\":" + Self.number(mask.coverage, digits: 4)
                if let box = mask.bounds?.scaled(Double(frameWidth), Double(frameHeight)) {
                    line += ",\"bounds\":[" + [box.minX, box.minY, box.width, box.height].map { Self.number(Double($0), digits: 1) }
                        .joined(separator: ",") + "]"
                }
                return line + "}"
            }
        }
    }

    /// `[[x,y],...]`, to a tenth of a pixel.
    static func points(_ points: [CGPoint]) -> String {
        "[" + points.map { "[\(number(Double($0.x), digits: 1)),\(number(Double($0.y), digits: 1))]" }.joined(separator: ",") + "]"
    }

    /// `value` rounded to `digits` decimals, without trailing zeros ("0.48", "12", "-3.5").
    static func number(_ value: Double, digits: Int) -> String {
        guard value.isFinite else { return "null" }
        let scale = pow(10, Double(digits))
        let rounded = (value * scale).rounded() / scale
        if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int64(rounded)) }
        return String(format: "%.\(digits)f", rounded).replacingOccurrences(of: "0+$", with: "", options: .regularExpression)
    }

    /// `text` as a JSON string literal.
    static func string(_ text: String) -> String {
        var quoted = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\r": quoted += "\\r"
            case "\t": quoted += "\\t"
            case _ where scalar.value < 0x20: quoted += String(format: "\\u%04x", scalar.value)
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }
}
