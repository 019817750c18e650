import PipeBasics

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A command's stdout into a `PulledArchiveExtractor`, digested and counted as it passes; stderr kept as text
/// (download).
///
/// At most `limit` bytes wait for the extraction: beyond that stdout is left in the channel window, so memory stays
/// flat whatever the size of the download.
final class ExtractionOutput: CommandOutput {
    static let limit = 1 << 20

    private let extractor: PulledArchiveExtractor
    private var pending = [UInt8]()
    private var pendingStart = 0
    private let digest = SHA256Digest()
    private let fault: ((inout [UInt8]) -> Void)?
    private var extractionStoppedReading = false
    /// Bytes of the stream received so far.
    private(set) var byteCount: Int64 = 0
    /// What the host printed on stderr (capped).
    private(set) var errorText = [UInt8]()
    /// The words after `pipe-plan` once that line arrived (`RemoteScript.archiveDownload`: how a split download's
    /// part was planned), as soon as it arrives: the second part starts on it.
    private(set) var plan: [Substring]?
    /// Whether stderr is still searched for the plan line (only the parts of a download that may be split).
    private var awaitsPlan: Bool

    init(extractor tar: PulledArchiveExtractor, fault: ((inout [UInt8]) -> Void)? = nil, awaitsPlan: Bool = false) {
        self.extractor = tar
        self.fault = fault
        self.awaitsPlan = awaitsPlan
    }

    var acceptsStdout: Bool { pending.count - pendingStart < Self.limit }

    func stdout(_ bytes: UnsafeRawBufferPointer) throws {
        if let fault {
            var copy = Array(bytes)
            fault(&copy)
            try copy.withUnsafeBytes { try take($0) }
        } else {
            try take(bytes)
        }
    }

    private func take(_ bytes: UnsafeRawBufferPointer) throws {
        digest.update(bytes)
        byteCount += Int64(bytes.count)
        guard !extractionStoppedReading else { return }
        var offset = 0
        if pendingStart == pending.count {
            offset = try write(bytes)
        }
        if offset < bytes.count && !extractionStoppedReading {
            pending.append(contentsOf: bytes[offset...])
        }
    }

    func stderr(_ bytes: UnsafeRawBufferPointer) {
        if errorText.count < 65_536 { errorText.append(contentsOf: bytes) }
        guard awaitsPlan, bytes.contains(0x0a) else { return }
        let text = String(decoding: errorText, as: UTF8.self)
        if let line = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().first(where: {
            $0.hasPrefix("pipe-plan ")
        }) {
            plan = Array(line.split(separator: " ").dropFirst())
            awaitsPlan = false
        }
    }

    func flush() throws -> Bool {
        guard pendingStart < pending.count else { return false }
        let sent = try pending.withUnsafeBytes { try write(UnsafeRawBufferPointer(rebasing: $0[pendingStart...])) }
        if extractionStoppedReading {
            // Nothing more goes to the extraction: what waited for it is dropped (it was digested on arrival).
            pending.removeAll()
            pendingStart = 0
            return true
        }
        pendingStart += sent
        if pendingStart == pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingStart = 0
        } else if pendingStart > Self.limit / 2 {
            pending.removeFirst(pendingStart)
            pendingStart = 0
        }
        return sent > 0
    }

    /// An extraction that stops reading may simply have reached the archive's end-of-file blocks (the rest is
    /// padding): the stream is still digested to the end, and the extraction's ending says whether it failed.
    private func write(_ bytes: UnsafeRawBufferPointer) throws -> Int {
        do {
            return try extractor.write(bytes)
        } catch is LocalTarFailure {
            // `bytes` may be `pending`'s own storage: the caller drops what waits once it sees the flag.
            extractionStoppedReading = true
            return bytes.count
        }
    }

    var hasPending: Bool { pendingStart < pending.count }

    var waitDescriptor: pollfd? {
        hasPending ? pollfd(fd: extractor.descriptor, events: Int16(POLLOUT), revents: 0) : nil
    }

    /// Pushes everything still buffered into tar, waiting on it (at most until `deadline`).
    func flushAll(until deadline: Deadline) throws -> Bool {
        while hasPending {
            if try !flush() {
                if deadline.hasPassed { return false }
                var entry = pollfd(fd: extractor.descriptor, events: Int16(POLLOUT), revents: 0)
                _ = poll(&entry, 1, 100)
            }
        }
        return true
    }

    /// The stream's SHA-256, once it has ended.
    func finalDigest() -> String { digest.finalizeHex() }
}
