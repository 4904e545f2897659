import ELImageTesting

extension PrivateStreamingServer {
    /// Waits until nginx has closed `count` recordings (`closedRecordings`, a file state that
    /// announces no event, so it is polled); false when it has not after `timeout`. Call it before
    /// `stopKeepingFiles()` to compare what arrived with what was sent.
    package func waitUntilRecordingsClosed(_ count: Int, timeout: Duration = .seconds(20)) async -> Bool {
        await waitUntil(timeout: timeout) { closedRecordings >= count }
    }
}
