import CCrypto
import Foundation

/// The content of a CMS (PKCS#7) signed message, such as a `.mobileprovision` (a property list signed by Apple).
/// The signature is not checked: the file comes from the trusted project folder, and the host's Xcode checks the
/// chain; Pipe only reads what the profile says.
public enum CMSSignedContent {
    /// A provisioning profile is a few kilobytes to a few hundred.
    public static let maximumBytes = 4 << 20

    public static func content(of data: Data) throws -> Data {
        guard data.count <= maximumBytes else {
            throw PipeBasicsError.io("the signed file is \(data.count) bytes, more than \(maximumBytes)")
        }
        let bytes = [UInt8](data)
        let parsed: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_CMS_ContentInfo(nil, &cursor, buffer.count)
        }
        guard let message = parsed else {
            throw PipeBasicsError.io("the file is not a CMS signed message: \(PKCS12Identity.lastError())")
        }
        defer { CMS_ContentInfo_free(message) }
        guard let slot = CMS_get0_content(message), let octets = slot.pointee,
            let start = ASN1_STRING_get0_data(octets)
        else { throw PipeBasicsError.io("the signed message carries no content") }
        return Data(bytes: start, count: Int(ASN1_STRING_length(octets)))
    }
}
