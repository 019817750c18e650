/// Reads a property list, binary (`bplist00`) or XML, chosen by its first bytes, within `PropertyListLimits`.
/// Apple's `.ipa` Info.plists are binary (Xcode converts them when it builds); export options, archive Info.plists
/// and the plist inside a provisioning profile are XML.
public enum PropertyListReader {
    public static func read(_ bytes: [UInt8], limits: PropertyListLimits = PropertyListLimits()) throws
        -> PropertyListValue
    {
        guard bytes.count <= limits.maximumBytes else {
            throw PropertyListError(
                "the property list is \(bytes.count) bytes, more than the \(limits.maximumBytes) Pipe reads")
        }
        if bytes.starts(with: Array("bplist".utf8)) {
            var reader = BinaryPropertyListReader(bytes, limits: limits)
            return try reader.read()
        }
        var reader = XMLPropertyListReader(bytes, limits: limits)
        return try reader.read()
    }
}
