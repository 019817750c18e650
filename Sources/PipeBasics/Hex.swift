/// Lowercase hexadecimal text of bytes, without a formatter per byte (digests of thousands of files add up).
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    public static func encode(_ bytes: [UInt8]) -> String {
        var text = [UInt8](repeating: 0, count: bytes.count * 2)
        for (index, byte) in bytes.enumerated() {
            text[2 * index] = digits[Int(byte >> 4)]
            text[2 * index + 1] = digits[Int(byte & 0x0f)]
        }
        return String(decoding: text, as: UTF8.self)
    }
}
