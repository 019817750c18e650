import CZlib
import Foundation

/// A workspace's tar stream compressed as gzip at zlib's level 1 (the fastest: on slow links the point is to send
/// fewer bytes without the compressing becoming the slower side), for `gzip -dc` on the host.
final class GzipArchiveSource: ArchiveSource {
    private let input: WorkspaceTarStream
    /// zlib's state points back at its `z_stream`, so the stream must not move: it lives on the heap.
    private let zlib = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    private let pending = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
    private var inputEnded = false
    private var finished = false

    init(compressing input: WorkspaceTarStream) throws {
        self.input = input
        zlib.initialize(to: z_stream())
        // 15 + 16: a 32 KiB window with gzip's header and trailer (what `gzip -dc` reads); memory level 8.
        let status = deflateInit2_(
            zlib, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            // `deinit` still runs (every property is set) and frees both; `deflateEnd` refuses a stream never begun.
            throw WorkspaceScanner.Failure(message: "cannot compress the workspace: zlib refused to start (\(status))")
        }
    }

    deinit {
        deflateEnd(zlib)
        zlib.deallocate()
        pending.deallocate()
    }

    func fill(_ buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard !finished, let base = buffer.baseAddress else { return 0 }
        zlib.pointee.next_out = base.assumingMemoryBound(to: Bytef.self)
        zlib.pointee.avail_out = uInt(buffer.count)
        while zlib.pointee.avail_out > 0 {
            if zlib.pointee.avail_in == 0 && !inputEnded {
                let count = try input.fill(pending)
                if count == 0 {
                    inputEnded = true
                } else {
                    zlib.pointee.next_in = pending.baseAddress?.assumingMemoryBound(to: Bytef.self)
                    zlib.pointee.avail_in = uInt(count)
                }
            }
            let status = deflate(zlib, inputEnded ? Z_FINISH : Z_NO_FLUSH)
            if status == Z_STREAM_END {
                finished = true
                break
            }
            // Z_BUF_ERROR: no progress possible this turn (more input or room is on its way).
            guard status == Z_OK || status == Z_BUF_ERROR else {
                throw WorkspaceScanner.Failure(message: "compressing the workspace failed (zlib \(status))")
            }
        }
        return buffer.count - Int(zlib.pointee.avail_out)
    }
}
