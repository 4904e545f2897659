extension String {
    /// The text in a NUL-terminated buffer that a C function wrote a message into.
    init(messageBuffer buffer: [CChar]) {
        self.init(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
