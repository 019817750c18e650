import Foundation

/// A layer's raw log on the coordinator and its live output events, both cut at the layer's log limit: a test that
/// prints without end cannot fill the coordinator's disk, nor the run store with events. Only the stored copy is
/// cut; whoever reads the stream for a verdict reads it whole, before this.
public final class LayerLog {
    /// The default cap of a layer's log: far above any real xcodebuild log, far below a disk.
    public static let defaultLimitBytes: Int64 = 256 << 20

    public let url: URL
    private let handle: FileHandle
    private let layer: String
    private let events: EventSink
    private let limit: Int64
    private let redactor: StreamRedactor
    private let plainRedactor: SecretRedactor
    private let showsLive: Bool
    private var written: Int64 = 0
    /// Whether the log reached its limit, after which nothing more is kept.
    public private(set) var wasCut = false

    /// Creates (or empties) the log at `url`; `showsLive: false` keeps it without output events (a transcript).
    public init(
        url: URL, layer: String, events: EventSink, limitBytes: Int64, redactor: SecretRedactor,
        showsLive: Bool = true
    ) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw ConfigurationError("could not create \(url.path) on the coordinator: check the disk and permissions")
        }
        self.url = url
        handle = try FileHandle(forWritingTo: url)
        self.layer = layer
        self.events = events
        limit = max(limitBytes, 0)
        self.redactor = StreamRedactor(redactor)
        plainRedactor = redactor
        self.showsLive = showsLive
    }

    deinit {
        try? handle.close()
    }

    /// Keeps a chunk of the command's stdout (redacted across chunk boundaries).
    public func stdout(_ chunk: Data) {
        keep(redactor.feed(chunk), stream: .stdout)
    }

    /// Keeps a chunk of stderr.
    public func stderr(_ chunk: Data) {
        keep(plainRedactor.redact(chunk), stream: .stderr)
    }

    /// Keeps what the redactor still holds back and flushes the file.
    public func finish() {
        keep(redactor.flush(), stream: .stdout)
        try? handle.synchronize()
    }

    private func keep(_ shown: Data, stream: RunEvent.OutputStream) {
        guard !shown.isEmpty, !wasCut else { return }
        let room = limit - written
        let kept = Int64(shown.count) <= room ? shown : shown.prefix(Int(max(room, 0)))
        if !kept.isEmpty {
            handle.write(kept)
            written += Int64(kept.count)
            if showsLive {
                events.emit(.output(layer: layer, stream: stream, text: String(decoding: kept, as: UTF8.self)))
            }
        }
        if kept.count < shown.count {
            wasCut = true
            let marker =
                "\n[pipe: this log was cut at its limit of \(limit) bytes; the layer went on, and its verdict was "
                + "read from the whole output]\n"
            handle.write(Data(marker.utf8))
            events.emit(
                .warning(
                    "layer \(layer): its log passed its limit of \(limit) bytes (`log-limit`); the rest is not kept, "
                        + "and the verdict still reads all of it"))
        }
    }
}
