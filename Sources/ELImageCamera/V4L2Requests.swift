import CV4L2

/// The `VIDIOC_*` ioctl numbers, which Swift cannot import (they are function-like macros), built
/// the way `<asm-generic/ioctl.h>` does: `direction << 30 | size << 16 | 'V' << 8 | number`.
package enum VIDIOC {
    private static let write: UInt = 1
    private static let read: UInt = 2

    private static func request<Argument>(_ direction: UInt, _ number: UInt, _ argument: Argument.Type) -> UInt {
        (direction << 30) | (UInt(MemoryLayout<Argument>.size) << 16) | (UInt(UInt8(ascii: "V")) << 8) | number
    }

    package static let querycap = request(read, 0, v4l2_capability.self)
    package static let enumFormat = request(read | write, 2, v4l2_fmtdesc.self)
    package static let getFormat = request(read | write, 4, v4l2_format.self)
    package static let setFormat = request(read | write, 5, v4l2_format.self)
    package static let requestBuffers = request(read | write, 8, v4l2_requestbuffers.self)
    package static let queryBuffer = request(read | write, 9, v4l2_buffer.self)
    package static let queueBuffer = request(read | write, 15, v4l2_buffer.self)
    package static let dequeueBuffer = request(read | write, 17, v4l2_buffer.self)
    package static let streamOn = request(write, 18, Int32.self)
    package static let streamOff = request(write, 19, Int32.self)
    package static let getParameters = request(read | write, 21, v4l2_streamparm.self)
    package static let setParameters = request(read | write, 22, v4l2_streamparm.self)
    package static let getControl = request(read | write, 27, v4l2_control.self)
    package static let setControl = request(read | write, 28, v4l2_control.self)
    package static let queryControl = request(read | write, 36, v4l2_queryctrl.self)
    package static let queryMenu = request(read | write, 37, v4l2_querymenu.self)
    package static let tryFormat = request(read | write, 64, v4l2_format.self)
    package static let getExtendedControls = request(read | write, 71, v4l2_ext_controls.self)
    package static let setExtendedControls = request(read | write, 72, v4l2_ext_controls.self)
    package static let enumFrameSizes = request(read | write, 74, v4l2_frmsizeenum.self)
    package static let enumFrameIntervals = request(read | write, 75, v4l2_frmivalenum.self)
    package static let queryExtendedControl = request(read | write, 103, v4l2_query_ext_ctrl.self)

    /// The name of a request, for error messages.
    package static func name(of request: UInt) -> String {
        names[request] ?? "ioctl 0x\(String(request, radix: 16))"
    }

    private static let names: [UInt: String] = [
        querycap: "VIDIOC_QUERYCAP", enumFormat: "VIDIOC_ENUM_FMT", getFormat: "VIDIOC_G_FMT",
        setFormat: "VIDIOC_S_FMT", requestBuffers: "VIDIOC_REQBUFS", queryBuffer: "VIDIOC_QUERYBUF",
        queueBuffer: "VIDIOC_QBUF", dequeueBuffer: "VIDIOC_DQBUF", streamOn: "VIDIOC_STREAMON",
        streamOff: "VIDIOC_STREAMOFF", getParameters: "VIDIOC_G_PARM", setParameters: "VIDIOC_S_PARM",
        getControl: "VIDIOC_G_CTRL", setControl: "VIDIOC_S_CTRL", queryControl: "VIDIOC_QUERYCTRL",
        queryMenu: "VIDIOC_QUERYMENU", tryFormat: "VIDIOC_TRY_FMT",
        getExtendedControls: "VIDIOC_G_EXT_CTRLS", setExtendedControls: "VIDIOC_S_EXT_CTRLS",
        enumFrameSizes: "VIDIOC_ENUM_FRAMESIZES", enumFrameIntervals: "VIDIOC_ENUM_FRAMEINTERVALS",
        queryExtendedControl: "VIDIOC_QUERY_EXT_CTRL",
    ]
}

/// Reading and writing the fixed-size, NUL-terminated strings of V4L2 structs (imported as tuples).
package enum CString {
    /// The string in a `char[N]` field.
    package static func read<Field>(_ field: Field) -> String {
        withUnsafeBytes(of: field) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    /// Writes `string` into a `char[N]` field, truncated to leave room for the terminating NUL.
    package static func write<Field>(_ string: String, into field: inout Field) {
        withUnsafeMutableBytes(of: &field) { bytes in
            bytes.initializeMemory(as: UInt8.self, repeating: 0)
            for (index, byte) in string.utf8.prefix(max(0, bytes.count - 1)).enumerated() {
                bytes[index] = byte
            }
        }
    }
}
