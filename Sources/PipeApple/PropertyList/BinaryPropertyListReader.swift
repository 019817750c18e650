import Foundation

/// Reads Apple's binary property list format, version `00`: a header, objects, an offset table and a 32-byte
/// trailer (CoreFoundation's `CFBinaryPList.c` describes it). Every offset and reference is checked against the
/// file before it is followed, and an object that contains itself is refused.
struct BinaryPropertyListReader {
    private let bytes: [UInt8]
    private let limits: PropertyListLimits
    private var offsetSize = 0
    private var referenceSize = 0
    private var objectCount = 0
    private var offsetTableStart = 0
    private var valuesRead = 0
    /// The objects being read, outermost first: one of them again is a cycle.
    private var openObjects: Set<Int> = []

    private static let trailerSize = 32
    private static let header = Array("bplist00".utf8)

    init(_ bytes: [UInt8], limits: PropertyListLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    mutating func read() throws -> PropertyListValue {
        guard bytes.starts(with: Self.header) else {
            throw PropertyListError.binary(at: 0, "only version 00 (`bplist00`) is read")
        }
        guard bytes.count >= Self.header.count + Self.trailerSize + 1 else {
            throw PropertyListError.binary(at: bytes.count, "the file ends before its trailer")
        }
        let trailer = bytes.count - Self.trailerSize
        offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        guard [1, 2, 4, 8].contains(offsetSize), [1, 2, 4, 8].contains(referenceSize) else {
            throw PropertyListError.binary(
                at: trailer + 6, "offset size \(offsetSize) or reference size \(referenceSize)")
        }
        let count = bigEndian(at: trailer + 8, size: 8)
        let top = bigEndian(at: trailer + 16, size: 8)
        let tableStart = bigEndian(at: trailer + 24, size: 8)
        guard count > 0, count <= UInt64(trailer), tableStart >= UInt64(Self.header.count),
            tableStart <= UInt64(trailer), count * UInt64(offsetSize) <= UInt64(trailer) - tableStart
        else {
            throw PropertyListError.binary(at: trailer + 8, "the offset table lies outside the file")
        }
        guard top < count else {
            throw PropertyListError.binary(at: trailer + 16, "the top object \(top) is not among the \(count) objects")
        }
        objectCount = Int(count)
        offsetTableStart = Int(tableStart)
        return try object(Int(top), depth: 0)
    }

    private func bigEndian(at offset: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in offset..<offset + size {
            value = value << 8 | UInt64(bytes[index])
        }
        return value
    }

    /// Where object `number` starts, checked to lie among the objects (after the header, before the table).
    private func start(of number: Int) throws -> Int {
        let entry = offsetTableStart + number * offsetSize
        let offset = bigEndian(at: entry, size: offsetSize)
        guard offset >= UInt64(Self.header.count), offset < UInt64(offsetTableStart) else {
            throw PropertyListError.binary(at: entry, "object \(number) starts outside the objects")
        }
        return Int(offset)
    }

    private func need(_ count: Int, at offset: Int) throws {
        guard count >= 0, offset <= offsetTableStart, count <= offsetTableStart - offset else {
            throw PropertyListError.binary(at: offset, "\(count) bytes run past the objects")
        }
    }

    private mutating func object(_ number: Int, depth: Int) throws -> PropertyListValue {
        valuesRead += 1
        try limits.check(valuesRead: valuesRead, depth: depth)
        let offset = try start(of: number)
        let marker = bytes[offset]
        let kind = marker >> 4
        let low = Int(marker & 0x0F)
        switch kind {
        case 0x0:
            switch marker {
            case 0x08: return .boolean(false)
            case 0x09: return .boolean(true)
            default: throw PropertyListError.binary(at: offset, String(format: "marker 0x%02X is not read", marker))
            }
        case 0x1:
            return .integer(try integer(at: offset + 1, sizeExponent: low))
        case 0x2:
            return .real(try real(at: offset + 1, sizeExponent: low))
        case 0x3:
            guard marker == 0x33 else { throw PropertyListError.binary(at: offset, "a date is 8 bytes (marker 0x33)") }
            return .date(Date(timeIntervalSinceReferenceDate: try real(at: offset + 1, sizeExponent: 3)))
        case 0x4:
            let (count, body) = try length(low, at: offset)
            try need(count, at: body)
            return .data(Array(bytes[body..<body + count]))
        case 0x5:
            let (count, body) = try length(low, at: offset)
            try need(count, at: body)
            guard bytes[body..<body + count].allSatisfy({ $0 < 0x80 }) else {
                throw PropertyListError.binary(at: body, "an ASCII string holds a byte above 0x7F")
            }
            return .string(String(decoding: bytes[body..<body + count], as: UTF8.self))
        case 0x6:
            let (count, body) = try length(low, at: offset)
            guard count <= Int.max / 2 else { throw PropertyListError.binary(at: offset, "a string too long") }
            try need(count * 2, at: body)
            let units = stride(from: body, to: body + count * 2, by: 2).map {
                UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1])
            }
            return .string(String(decoding: units, as: UTF16.self))
        case 0x8:
            try need(low + 1, at: offset + 1)
            return .uid(bigEndian(at: offset + 1, size: low + 1))
        case 0xA:
            let (count, body) = try length(low, at: offset)
            let references = try self.references(count, at: body)
            return .array(
                try within(number) { reader in try references.map { try reader.object($0, depth: depth + 1) } })
        case 0xD:
            let (count, body) = try length(low, at: offset)
            let references = try self.references(count * 2, at: body)
            return .dictionary(
                try within(number) { reader in
                    var entries: [String: PropertyListValue] = [:]
                    for index in 0..<count {
                        guard case .string(let key) = try reader.object(references[index], depth: depth + 1) else {
                            throw PropertyListError.binary(at: body, "a dictionary key is not a string")
                        }
                        entries[key] = try reader.object(references[count + index], depth: depth + 1)
                    }
                    return entries
                })
        default:
            throw PropertyListError.binary(at: offset, String(format: "marker 0x%02X is not read", marker))
        }
    }

    /// Runs `body` with object `number` open, so that reaching it again inside is refused as a cycle.
    private mutating func within<Result>(_ number: Int, _ body: (inout Self) throws -> Result) throws -> Result {
        guard openObjects.insert(number).inserted else {
            throw PropertyListError("object \(number) of the binary property list contains itself")
        }
        defer { openObjects.remove(number) }
        return try body(&self)
    }

    private func integer(at offset: Int, sizeExponent: Int) throws -> Int64 {
        guard sizeExponent <= 4 else {
            throw PropertyListError.binary(at: offset - 1, "an integer wider than 16 bytes")
        }
        let size = 1 << sizeExponent
        try need(size, at: offset)
        switch size {
        case 1, 2, 4: return Int64(bigEndian(at: offset, size: size))
        case 8: return Int64(bitPattern: bigEndian(at: offset, size: 8))
        default:
            // CoreFoundation writes 16-byte integers only for values beyond Int64; their upper half is the sign.
            let high = bigEndian(at: offset, size: 8)
            let lowHalf = bigEndian(at: offset + 8, size: 8)
            guard high == 0 || (high == UInt64.max && lowHalf >> 63 == 1) else {
                throw PropertyListError.binary(at: offset, "an integer beyond 64 bits")
            }
            return Int64(bitPattern: lowHalf)
        }
    }

    private func real(at offset: Int, sizeExponent: Int) throws -> Double {
        switch sizeExponent {
        case 2:
            try need(4, at: offset)
            return Double(Float(bitPattern: UInt32(bigEndian(at: offset, size: 4))))
        case 3:
            try need(8, at: offset)
            return Double(bitPattern: bigEndian(at: offset, size: 8))
        default:
            throw PropertyListError.binary(at: offset - 1, "a real of \(1 << sizeExponent) bytes")
        }
    }

    /// The element count of an object whose marker's low nibble is `low` (0xF: an integer object follows) and where
    /// its body starts.
    private func length(_ low: Int, at offset: Int) throws -> (count: Int, body: Int) {
        guard low == 0x0F else { return (low, offset + 1) }
        try need(1, at: offset + 1)
        let marker = bytes[offset + 1]
        guard marker >> 4 == 0x1, marker & 0x0F <= 3 else {
            throw PropertyListError.binary(at: offset + 1, "a length is not an integer")
        }
        let exponent = Int(marker & 0x0F)
        let count = try integer(at: offset + 2, sizeExponent: exponent)
        guard count >= 0, count <= Int64(offsetTableStart) else {
            throw PropertyListError.binary(at: offset + 1, "a length of \(count) runs past the file")
        }
        return (Int(count), offset + 2 + (1 << exponent))
    }

    private func references(_ count: Int, at offset: Int) throws -> [Int] {
        guard count <= offsetTableStart else { throw PropertyListError.binary(at: offset, "too many references") }
        try need(count * referenceSize, at: offset)
        return try (0..<count).map { index in
            let reference = bigEndian(at: offset + index * referenceSize, size: referenceSize)
            guard reference < UInt64(objectCount) else {
                throw PropertyListError.binary(
                    at: offset + index * referenceSize, "reference \(reference) is not among the \(objectCount) objects"
                )
            }
            return Int(reference)
        }
    }
}
