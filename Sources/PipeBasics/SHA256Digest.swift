import CCrypto
import Foundation

/// Incremental SHA-256 (OpenSSL's libcrypto), for verifying transfers as the bytes stream through.
public final class SHA256Digest {
    private let context: OpaquePointer

    public init() {
        guard let context = EVP_MD_CTX_new() else { fatalError("OpenSSL could not allocate a digest context") }
        self.context = context
        EVP_DigestInit_ex(context, EVP_sha256(), nil)
    }

    deinit { EVP_MD_CTX_free(context) }

    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    public func update(_ data: Data) {
        data.withUnsafeBytes { update($0) }
    }

    /// The 32 digest bytes. Ends this digest.
    public func finalize() -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &output, &length)
        return Array(output.prefix(Int(length)))
    }

    /// The digest as 64 lowercase hex digits (the way `shasum -a 256` prints it). Ends this digest.
    public func finalizeHex() -> String { Hex.encode(finalize()) }

    /// SHA-256 of one buffer, as hex.
    public static func hex(of data: Data) -> String {
        let digest = SHA256Digest()
        digest.update(data)
        return digest.finalizeHex()
    }

    /// SHA-256 of bytes in memory, as hex.
    public static func hex(of bytes: [UInt8]) -> String {
        let digest = SHA256Digest()
        bytes.withUnsafeBytes { digest.update($0) }
        return digest.finalizeHex()
    }

    /// SHA-256 of a file, read in 1 MiB pieces so memory stays flat.
    public static func hex(ofFile url: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        let digest = SHA256Digest()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            digest.update(chunk)
        }
        return digest.finalizeHex()
    }
}
