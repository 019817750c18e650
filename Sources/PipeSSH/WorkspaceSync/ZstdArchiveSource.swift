import CZstd
import Foundation

/// A workspace's tar stream compressed as zstd at level 1 (on one core here about three times zlib level 1's rate,
/// to a smaller archive), for `zstd -dc` on a host that has it.
final class ZstdArchiveSource: ArchiveSource {
    private let input: WorkspaceTarStream
    private let context: OpaquePointer
    private let pending = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
    private var pendingStart = 0
    private var pendingEnd = 0
    private var inputEnded = false
    private var finished = false

    init(compressing input: WorkspaceTarStream) throws {
        guard let context = ZSTD_createCCtx() else {
            pending.deallocate()
            throw WorkspaceScanner.Failure(message: "cannot compress the workspace: zstd could not start")
        }
        self.input = input
        self.context = context
        let level = ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, 1)
        guard ZSTD_isError(level) == 0 else {
            throw WorkspaceScanner.Failure(
                message:
                    "cannot compress the workspace: zstd refused level 1 (\(String(cString: ZSTD_getErrorName(level))))"
            )
        }
    }

    deinit {
        ZSTD_freeCCtx(context)
        pending.deallocate()
    }

    func fill(_ buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard !finished, let base = buffer.baseAddress else { return 0 }
        var output = ZSTD_outBuffer(dst: base, size: buffer.count, pos: 0)
        while output.pos < output.size {
            if pendingStart == pendingEnd && !inputEnded {
                let count = try input.fill(pending)
                if count == 0 { inputEnded = true } else { (pendingStart, pendingEnd) = (0, count) }
            }
            var source = ZSTD_inBuffer(src: pending.baseAddress, size: pendingEnd, pos: pendingStart)
            let remaining = ZSTD_compressStream2(context, &output, &source, inputEnded ? ZSTD_e_end : ZSTD_e_continue)
            guard ZSTD_isError(remaining) == 0 else {
                throw WorkspaceScanner.Failure(
                    message: "compressing the workspace failed (zstd: \(String(cString: ZSTD_getErrorName(remaining))))"
                )
            }
            pendingStart = source.pos
            // With `ZSTD_e_end`, 0 left to flush means the frame is complete.
            if inputEnded && remaining == 0 {
                finished = true
                break
            }
        }
        return output.pos
    }
}
