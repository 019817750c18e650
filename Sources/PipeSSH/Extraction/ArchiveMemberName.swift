import PipeBasics

/// A member's name in a pulled-back archive, checked: relative, without `..`, inside the item being pulled, and
/// short enough for every filesystem the coordinator may use.
struct ArchiveMemberName: Equatable, Sendable {
    /// The components after the leading `./`, the item's own name first.
    let components: [[UInt8]]

    static let maximumComponentBytes = 255
    static let maximumNameBytes = 4_096

    /// Why a name was refused, phrased to follow "it holds a member named `…`".
    enum Refusal: Error, Equatable {
        case absolute
        case parentReference
        case outsideItem
        case empty
        case tooLong
    }

    init(bytes: [UInt8], item: [UInt8]) throws(Refusal) {
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.count <= Self.maximumNameBytes else { throw .tooLong }
        guard bytes[0] != UInt8(ascii: "/") else { throw .absolute }
        var components: [[UInt8]] = []
        for part in bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true) {
            if part.elementsEqual([UInt8(ascii: ".")]) { continue }
            if part.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")]) { throw .parentReference }
            guard part.count <= Self.maximumComponentBytes else { throw .tooLong }
            components.append(Array(part))
        }
        guard let first = components.first else { throw .empty }
        guard first == item else { throw .outsideItem }
        self.components = components
    }

    /// The name as shown in messages, control characters and invalid UTF-8 escaped.
    var display: String { DisplayEscaping.escaped(bytes: Array(components.joined(separator: [UInt8(ascii: "/")]))) }

    var parent: ArraySlice<[UInt8]> { components.dropLast() }
    var last: [UInt8] { components[components.count - 1] }

    /// A macOS `._` AppleDouble member (extended attributes, resource forks): metadata, never content.
    var isAppleDoubleName: Bool { last.starts(with: [UInt8(ascii: "."), UInt8(ascii: "_")]) }
}

extension ArchiveMemberName.Refusal {
    var reason: String {
        switch self {
        case .absolute: return "an absolute name"
        case .parentReference: return "a `..` component"
        case .outsideItem: return "a name outside the item"
        case .empty: return "an empty name"
        case .tooLong:
            return
                "a name longer than \(ArchiveMemberName.maximumNameBytes) bytes or a component longer than "
                + "\(ArchiveMemberName.maximumComponentBytes)"
        }
    }
}
