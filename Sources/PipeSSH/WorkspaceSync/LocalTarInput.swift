import PipeBasics

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A command's standard input from a local `tar -c`, digested and counted as it passes (upload).
final class LocalTarInput: CommandInput {
    private let tar: LocalTar
    private var buffer: UnsafeMutableRawBufferPointer
    private var pending = 0..<0
    private var ended = false
    private let digest = SHA256Digest()
    /// Bytes of the stream read from tar so far.
    private(set) var byteCount: Int64 = 0

    init(tar: LocalTar) {
        self.tar = tar
        buffer = .allocate(byteCount: 256 * 1024, alignment: 16)
    }

    deinit { buffer.deallocate() }

    func send(through channel: SSHChannel) throws -> Int? {
        var moved = 0
        if pending.isEmpty {
            guard !ended else { return nil }
            switch try tar.read(into: buffer) {
            case .bytes(let count):
                let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
                digest.update(chunk)
                byteCount += Int64(count)
                pending = 0..<count
                moved = count
            case .wouldBlock:
                return 0
            case .endOfStream:
                ended = true
                return nil
            }
        }
        let sent = try channel.write(UnsafeRawBufferPointer(rebasing: buffer[pending]))
        pending = (pending.lowerBound + sent)..<pending.upperBound
        return moved + sent
    }

    var waitDescriptor: pollfd? {
        pending.isEmpty && !ended ? pollfd(fd: tar.descriptor, events: Int16(POLLIN), revents: 0) : nil
    }

    /// Whether tar's whole output was read.
    var reachedEnd: Bool { ended }

    /// The stream's SHA-256, once it has ended.
    func finalDigest() -> String { digest.finalizeHex() }
}
