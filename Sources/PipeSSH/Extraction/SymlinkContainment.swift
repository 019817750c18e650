import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Checks, once a pulled-back item is whole, that each of its links resolves inside it, the way the kernel would
/// resolve it: link by link, `..` after a link from where that link led. A check of the target's text alone is not
/// enough: `d/p -> q/../..` looks inside, but with `d/q -> ..` it leads out.
enum SymlinkContainment {
    /// Links followed while resolving one, as the kernel allows (`MAXSYMLINKS`).
    static let maximumHops = 40

    /// The first link in `links` (names of links made in `staging`) that leads outside its item, with where it
    /// leads; `nil` when every one stays inside.
    static func firstEscape(among links: [ArchiveMemberName], in staging: URL) -> (
        link: ArchiveMemberName, why: String
    )? {
        for link in links {
            if let why = escape(of: link, in: staging) { return (link, why) }
        }
        return nil
    }

    /// Why `link` leads outside its item, or `nil` when it stays inside (or dangles inside).
    static func escape(of link: ArchiveMemberName, in staging: URL) -> String? {
        guard link.components.count > 1 else { return "the item itself is a link" }
        var position = Array(link.parent)
        guard var remaining = components(ofTarget: link.components, in: staging) else {
            return "its target cannot be read"
        }
        if remaining.first == [] { return "it leads to an absolute path" }
        var hops = 1
        while !remaining.isEmpty {
            let component = remaining.removeFirst()
            if component.isEmpty || component == [UInt8(ascii: ".")] { continue }
            if component == [UInt8(ascii: "."), UInt8(ascii: ".")] {
                guard position.count > 1 else { return "it leads out of the item" }
                position.removeLast()
                continue
            }
            position.append(component)
            var info = stat()
            guard lstat(path(of: position, in: staging), &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { continue }
            hops += 1
            guard hops <= maximumHops else { return "it resolves through more than \(maximumHops) links" }
            guard let target = components(ofTarget: position, in: staging) else {
                return "a link on its way cannot be read"
            }
            if target.first == [] { return "it leads to an absolute path" }
            position.removeLast()
            remaining = target + remaining
        }
        return nil
    }

    /// The target's components; an absolute target starts with an empty component.
    private static func components(ofTarget link: [[UInt8]], in staging: URL) -> [[UInt8]]? {
        var buffer = [CChar](repeating: 0, count: 4_097)
        let count = readlink(path(of: link, in: staging), &buffer, 4_096)
        guard count >= 0 else { return nil }
        let target = buffer[0..<count].map { UInt8(bitPattern: $0) }
        return target.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map(Array.init)
    }

    /// The C path of `components` under `staging`, byte for byte (names need not be UTF-8).
    private static func path(of components: [[UInt8]], in staging: URL) -> [CChar] {
        (Array(staging.path.utf8) + [UInt8(ascii: "/")] + Array(components.joined(separator: [UInt8(ascii: "/")])))
            .cString
    }
}
