import Logging

/// Writes each log event into a ``LogRecorder`` as `LEVEL: message`.
public struct RecordingLogHandler: LogHandler {
    public var logLevel: Logger.Level = .trace
    public var metadata: Logger.Metadata = [:]
    let recorder: LogRecorder

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        recorder.append("\(event.level): \(event.message)")
    }
}

extension LogRecorder {
    /// A logger whose events this recorder keeps.
    public func logger(label: String = "test") -> Logger {
        Logger(label: label) { _ in RecordingLogHandler(recorder: self) }
    }
}
