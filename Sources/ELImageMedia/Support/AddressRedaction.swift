/// Hides what may be secret in a stream's address before it is printed, logged or put in an
/// error or event: user info (`alice:password@`), an RTMP stream key (the path after the
/// application, or the only path component), and the values of query fields that name a key, a
/// passphrase, a stream id, a token, a password, a signature or authentication. What stays says
/// where the stream goes: `rtmp://…@live.example.com/app/…?key=…`.
public enum AddressRedaction {
    /// What a secret is shown as.
    public static let mark = "…"

    /// `address` with its secrets shown as `mark`.
    public static func redact(_ address: String) -> String {
        guard let schemeEnd = address.range(of: "://") else { return address }
        let scheme = address[..<schemeEnd.lowerBound].lowercased()
        let rest = address[schemeEnd.upperBound...]
        let queryStart = rest.firstIndex(of: "?")
        let beforeQuery = rest[..<(queryStart ?? rest.endIndex)]
        let pathStart = beforeQuery.firstIndex(of: "/") ?? beforeQuery.endIndex
        var authority = String(beforeQuery[..<pathStart])
        if let at = authority.lastIndex(of: "@") { authority = mark + authority[at...] }
        var path = String(beforeQuery[pathStart...])
        if scheme.hasPrefix("rtmp") {
            // rtmp://host/app/key: the key is everything after the application.
            let components = path.split(separator: "/", omittingEmptySubsequences: true)
            if components.count == 1 { path = "/" + mark }
            if components.count > 1 { path = "/" + components[0] + "/" + mark }
        }
        var redacted = address[..<schemeEnd.upperBound] + authority + path
        if let queryStart {
            let fields = rest[rest.index(after: queryStart)...].split(separator: "&", omittingEmptySubsequences: false).map { field in
                let name = field.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
                return isSecret(name) ? name + "=" + mark : String(field)
            }
            redacted += "?" + fields.joined(separator: "&")
        }
        return String(redacted)
    }

    /// `text` with every RTMP and SRT address in it (`rtmp://`, `rtmps://`, ... `srt://`, up to
    /// the first space or quote) redacted: FFmpeg's log lines, a library's messages.
    public static func redactAddresses(in text: String) -> String {
        var result = "", rest = Substring(text)
        while let separator = rest.range(of: "://") {
            // The scheme: the letters just before "://".
            let schemeStart = rest[..<separator.lowerBound].lastIndex { !$0.isLetter }.map { rest.index(after: $0) }
                ?? rest.startIndex
            let scheme = rest[schemeStart..<separator.lowerBound].lowercased()
            let end = rest[separator.upperBound...].firstIndex { $0.isWhitespace || "'\"<>".contains($0) } ?? rest.endIndex
            let address = rest[schemeStart..<end]
            result += rest[..<schemeStart]
            result += scheme.hasPrefix("rtmp") || scheme == "srt" ? redact(String(address)) : String(address)
            rest = rest[end...]
        }
        return result + rest
    }

    /// Whether a query field called `name` holds a secret.
    private static func isSecret(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return ["key", "pass", "pwd", "secret", "token", "auth", "sig", "streamid"].contains { lowered.contains($0) }
    }
}
