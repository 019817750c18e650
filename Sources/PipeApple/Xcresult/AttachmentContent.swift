import Foundation

/// What an attachment's bytes are, whatever its name or the host claims: only PNG and JPEG are ever shown inline.
public enum AttachmentContent {
    /// `image/png` or `image/jpeg` when the first bytes say so, else `nil`.
    public static func detectedImageType(_ prefix: Data) -> String? {
        let bytes = [UInt8](prefix.prefix(8))
        if bytes == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] { return "image/png" }
        if bytes.count >= 3, bytes[0] == 0xFF, bytes[1] == 0xD8, bytes[2] == 0xFF { return "image/jpeg" }
        return nil
    }

    /// The type a file's name claims (its extension), for people and downloads only.
    public static func claimedType(fileName: String) -> String {
        guard let dot = fileName.lastIndex(of: ".") else { return "application/octet-stream" }
        switch fileName[fileName.index(after: dot)...].lowercased() {
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "heic": return "image/heic"
        case "txt", "log": return "text/plain"
        case "json": return "application/json"
        case "plist": return "application/x-plist"
        case "mov": return "video/quicktime"
        case "mp4": return "video/mp4"
        default: return "application/octet-stream"
        }
    }
}
