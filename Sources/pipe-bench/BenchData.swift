import Foundation
import PipeBasics

#if canImport(Glibc)
    import Glibc
#endif

/// The benchmark's data, made deterministically (same bytes on every machine and run) to the shapes of
/// `shared/bench/README.md`:
///
/// - `A`: a workspace of 10,000 source-like text files in ~650 nested folders, 60,000,000 bytes in all (sizes
///   log-normal, median 4 KiB, σ 0.9, rescaled to the exact total).
/// - `B`: a result-bundle-like folder: `Info.plist`, 1,999 incompressible files of 1–20 KiB under `Data/`, three
///   incompressible 20 MiB blobs (~84 MB).
/// - `C`: `A` with one file changed (a 200-byte region rewritten, same size) and one 4 KiB file added.
/// - `D` (with `--big`): a bundle of 50 incompressible 20 MiB blobs and `Info.plist` (~1 GB), for memory.
///
/// Every file and folder gets a fixed modification time (the two changes in `C` an hour later), so rsync's quick
/// check sees exactly two differences. `MANIFEST.txt` holds counts and a fingerprint of each tree.
struct BenchData {
    static let seed: UInt64 = 20_240_601
    static let mtime = 1_700_000_000
    static let changedMtime = mtime + 3_600

    let output: URL

    func generate(big: Bool) throws -> String {
        let manager = FileManager.default
        for name in ["A", "B", "C", "D"] { try? manager.removeItem(at: output.appendingPathComponent(name)) }
        try manager.createDirectory(at: output, withIntermediateDirectories: true)
        umask(0o022)
        let workspace = WorkspaceShape(seed: Self.seed)
        try workspace.write(to: output.appendingPathComponent("A"))
        try writeBundle(output.appendingPathComponent("B"), smallFiles: 1_999, blobs: 3, seed: Self.seed + 1)
        try workspace.write(to: output.appendingPathComponent("C"))
        let (changed, added) = try workspace.change(output.appendingPathComponent("C"), seed: Self.seed + 2)
        var lines = ["seed=\(Self.seed) mtime=\(Self.mtime)", "C: modified=\(changed) added=\(added)"]
        if big {
            try writeBundle(output.appendingPathComponent("D"), smallFiles: 0, blobs: 50, seed: Self.seed + 3)
        }
        for name in big ? ["A", "B", "C", "D"] : ["A", "B", "C"] {
            lines.append(try Self.fingerprint(output.appendingPathComponent(name), name: name))
        }
        let text = lines.joined(separator: "\n") + "\n"
        try text.write(to: output.appendingPathComponent("MANIFEST.txt"), atomically: true, encoding: .utf8)
        return text
    }

    private func writeBundle(_ root: URL, smallFiles: Int, blobs: Int, seed: UInt64) throws {
        var random = Xoshiro256(seed: seed)
        let data = root.appendingPathComponent("Data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>version</key><dict><key>major</key><integer>3</integer>\
            <key>minor</key><integer>53</integer></dict><key>dateCreated</key><date>2023-11-14T22:13:20Z</date>\
            <key>rootId</key><dict><key>hash</key><string>0~\(Self.name("root", 0, seed))</string></dict></dict></plist>

            """
        try Data(plist.utf8).write(to: root.appendingPathComponent("Info.plist"))
        for index in 0..<smallFiles {
            let kind = index % 10 == 0 ? "refs" : "data"
            let size = 1_024 + Int(random.next() % UInt64(20 * 1_024 - 1_024 + 1))
            try Data(random.bytes(size)).write(
                to: data.appendingPathComponent("\(kind).0~\(Self.name(kind, index, seed))"))
        }
        for index in 0..<blobs {
            let file = data.appendingPathComponent("blob.0~\(Self.name("blob", index, seed))")
            _ = FileManager.default.createFile(atPath: file.path, contents: nil)
            let handle = try FileHandle(forWritingTo: file)
            for _ in 0..<20 { try handle.write(contentsOf: Data(random.bytes(1 << 20))) }
            try handle.close()
        }
        try Self.setTimes(under: root, to: Self.mtime)
    }

    /// A content-addressed-looking name: base64url of SHA-256 of `seed/kind/index`.
    static func name(_ kind: String, _ index: Int, _ seed: UInt64) -> String {
        let hex = SHA256Digest.hex(of: Data("\(seed)/\(kind)/\(index)".utf8))
        var bytes = [UInt8]()
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
    }

    static func setTimes(under root: URL, to seconds: Int) throws {
        let paths = (FileManager.default.enumerator(atPath: root.path)?.allObjects as? [String]) ?? []
        for path in paths + [""] {
            let full = path.isEmpty ? root.path : root.path + "/" + path
            var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
            guard utimensat(AT_FDCWD, full, &times, AT_SYMLINK_NOFOLLOW) == 0 else {
                throw BenchFailure("cannot set the time of \(full): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// `<name>: files=… dirs=… bytes=… sha256=…` over (path, SHA-256 of content) in path order.
    static func fingerprint(_ root: URL, name: String) throws -> String {
        let manager = FileManager.default
        let paths = ((manager.enumerator(atPath: root.path)?.allObjects as? [String]) ?? []).sorted()
        let total = SHA256Digest()
        var files = 0
        var folders = 0
        var bytes: Int64 = 0
        for path in paths {
            let url = root.appendingPathComponent(path)
            var isFolder: ObjCBool = false
            _ = manager.fileExists(atPath: url.path, isDirectory: &isFolder)
            if isFolder.boolValue {
                folders += 1
                continue
            }
            files += 1
            let size = (try manager.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value ?? 0
            bytes += size
            total.update(Data(path.utf8 + [0]))
            total.update(Data(try SHA256Digest.hex(ofFile: url).utf8))
        }
        let megabytes = String(format: "%.1f", Double(bytes) / 1e6)
        return "\(name): files=\(files) dirs=\(folders) bytes=\(bytes) (\(megabytes) MB) sha256=\(total.finalizeHex())"
    }
}

/// The workspace tree `A` (and its copy `C`): the same folders, names, sizes and text for one seed.
struct WorkspaceShape {
    static let files = 10_000
    static let total = 60_000_000
    static let extensions: [(String, Int)] = [
        (".swift", 70), (".h", 5), (".m", 5), (".json", 6), (".md", 4), (".strings", 4), (".txt", 3), (".yml", 3),
    ]

    let folders: [String]
    let paths: [String]
    let sizes: [Int]
    let vocabulary: Vocabulary
    let contentSeed: UInt64

    init(seed: UInt64) {
        var random = Xoshiro256(seed: seed)
        vocabulary = Vocabulary(random: &random)
        var folders = Set<String>()
        for top in ["Sources", "Tests", "Packages", "App", "Resources", "Scripts"] {
            folders.insert(top)
            for _ in 0..<random.between(3, 9) {
                let module = top + "/" + vocabulary.identifier(&random, capitalized: true)
                folders.insert(module)
                for _ in 0..<random.between(2, 8) {
                    let sub = module + "/" + vocabulary.identifier(&random, capitalized: true)
                    folders.insert(sub)
                    for _ in 0..<random.between(0, 4) {
                        let inner = sub + "/" + vocabulary.identifier(&random, capitalized: true)
                        folders.insert(inner)
                        if random.unit() < 0.3 {
                            folders.insert(inner + "/" + vocabulary.identifier(&random, capitalized: true))
                        }
                    }
                }
            }
        }
        self.folders = folders.sorted()
        // Log-normal sizes (median 4 KiB, σ 0.9), clamped, then scaled so they add up to exactly 60,000,000.
        var raw = [Double]()
        for _ in 0..<Self.files {
            raw.append(min(max(exp(log(4_096) + 0.9 * random.gaussian()), 32), 2 * 1_048_576))
        }
        let scale = Double(Self.total) / raw.reduce(0, +)
        var sizes = raw.map { max(16, Int($0 * scale)) }
        let largest = sizes.indices.max { sizes[$0] < sizes[$1] }!
        sizes[largest] += Self.total - sizes.reduce(0, +)
        self.sizes = sizes
        var used = Set<String>()
        var paths = [String]()
        let weights = Self.extensions.map(\.1).reduce(0, +)
        for _ in 0..<Self.files {
            let folder = self.folders[random.below(self.folders.count)]
            while true {
                var pick = random.below(weights)
                var ext = Self.extensions[0].0
                for (candidate, weight) in Self.extensions {
                    if pick < weight {
                        ext = candidate
                        break
                    }
                    pick -= weight
                }
                let path = folder + "/" + vocabulary.identifier(&random, capitalized: true) + ext
                if used.insert(path).inserted {
                    paths.append(path)
                    break
                }
            }
        }
        paths[0] = "Package.swift"
        paths[1] = "README.md"
        self.paths = paths
        contentSeed = random.next()
    }

    func write(to root: URL) throws {
        let manager = FileManager.default
        for folder in folders {
            try manager.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        var random = Xoshiro256(seed: contentSeed)
        for (path, size) in zip(paths, sizes) {
            let text = vocabulary.text(&random, size: size, header: "// \(path) -- generated by pipe-bench gen")
            try Data(text).write(to: root.appendingPathComponent(path))
        }
        try BenchData.setTimes(under: root, to: BenchData.mtime)
    }

    /// Rewrites 200 bytes in the middle of one mid-sized `.swift` file (same size) and adds a 4 KiB file beside
    /// it, both an hour newer; returns their paths.
    func change(_ root: URL, seed: UInt64) throws -> (String, String) {
        var random = Xoshiro256(seed: seed)
        let candidates = zip(paths, sizes).filter { $0.0.hasSuffix(".swift") && $0.1 >= 8_000 }.map(\.0).sorted()
        let changed = candidates[candidates.count / 2]
        let file = root.appendingPathComponent(changed)
        let handle = try FileHandle(forUpdating: file)
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size / 2)
        try handle.write(contentsOf: Data(vocabulary.text(&random, size: 200, header: "// MODIFIED")))
        try handle.close()
        let folder = (changed as NSString).deletingLastPathComponent
        let added = folder + "/NewFeature.swift"
        try Data(vocabulary.text(&random, size: 4_096, header: "// \(added) -- added")).write(
            to: root.appendingPathComponent(added))
        for path in [changed, added, folder] {
            var times = [
                timespec(tv_sec: BenchData.changedMtime, tv_nsec: 0),
                timespec(tv_sec: BenchData.changedMtime, tv_nsec: 0),
            ]
            _ = utimensat(AT_FDCWD, root.appendingPathComponent(path).path, &times, 0)
        }
        return (changed, added)
    }
}

/// Source-like words with Zipf-like frequencies.
struct Vocabulary {
    static let syllables = [
        "ac", "al", "an", "ar", "be", "ca", "co", "da", "de", "di", "el", "en", "er", "fa", "fi", "ge", "ha", "in",
        "is",
        "ka", "la", "le", "li", "lo", "ma", "me", "mo", "na", "ne", "no", "or", "pa", "pe", "po", "ra", "re", "ri",
        "ro",
        "sa", "se", "si", "so", "ta", "te", "ti", "to", "ul", "un", "ur", "va", "ve", "vi", "wa", "xe", "yo", "za",
    ]
    static let keywords = [
        "let", "var", "func", "return", "if", "else", "guard", "for", "in", "while", "switch", "case", "default",
        "struct", "class", "enum", "protocol", "extension", "import", "public", "private", "internal", "static", "self",
        "Self", "nil", "true", "false", "try", "await", "async", "throws", "init", "some", "any", "where", "=", "==",
        "!=", "->", "(", ")", "{", "}", "[", "]", ":", ",", ".", "+", "-", "*", "&&", "||", "?", "!", "0", "1", "2",
        "String", "Int", "Bool", "Data", "URL", "Error", "Result", "Array", "Dictionary", "count", "value", "name",
        "path", "error", "result", "config", "index",
    ]

    let words: [[UInt8]]
    let cumulative: [Double]

    init(random: inout Xoshiro256) {
        var words = Self.keywords
        var seen = Set(words)
        while words.count < 4_000 {
            let word = Self.identifier(&random, capitalized: random.unit() < 0.3)
            if seen.insert(word).inserted { words.append(word) }
        }
        self.words = words.map { Array($0.utf8) }
        var sum = 0.0
        cumulative = (0..<words.count).map {
            sum += 1 / pow(Double($0 + 1), 1.05)
            return sum
        }
    }

    static func identifier(_ random: inout Xoshiro256, capitalized: Bool) -> String {
        let count = [2, 2, 3, 3, 3, 4, 5][random.below(7)]
        var text = ""
        for index in 0..<count {
            let syllable = syllables[random.below(syllables.count)]
            text += index > 0 || capitalized ? syllable.prefix(1).uppercased() + syllable.dropFirst() : syllable
        }
        return text
    }

    func identifier(_ random: inout Xoshiro256, capitalized: Bool) -> String {
        Self.identifier(&random, capitalized: capitalized)
    }

    private func word(_ random: inout Xoshiro256) -> [UInt8] {
        let target = random.unit() * cumulative[cumulative.count - 1]
        var low = 0
        var high = cumulative.count - 1
        while low < high {
            let middle = (low + high) / 2
            if cumulative[middle] < target { low = middle + 1 } else { high = middle }
        }
        return words[low]
    }

    /// Lines of code-like tokens, comments and braces, cut to exactly `size` bytes.
    func text(_ random: inout Xoshiro256, size: Int, header: String) -> [UInt8] {
        var out = Array(header.utf8)
        out.reserveCapacity(size + 200)
        var depth = 0
        while out.count < size {
            out.append(0x0a)
            let roll = random.unit()
            let indent = [UInt8](repeating: 0x20, count: 4 * depth)
            if roll < 0.06 { continue }
            out += indent
            if roll < 0.14 {
                out += Array("//".utf8)
                for _ in 0..<random.between(3, 12) { out += [0x20] + word(&random) }
                continue
            }
            if roll >= 0.24 && roll < 0.33 && depth > 0 {
                depth -= 1
                out.removeLast(4)
                out.append(0x7d)
                continue
            }
            for index in 0..<random.between(2, 11) {
                if index > 0 { out.append(0x20) }
                out += word(&random)
            }
            if roll < 0.24 && depth < 4 {
                out += Array(" {".utf8)
                depth += 1
            }
        }
        return Array(out.prefix(size))
    }
}

/// xoshiro256** seeded through SplitMix64: small, fast and the same everywhere.
struct Xoshiro256 {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    init(seed: UInt64) {
        var mix = seed
        func next() -> UInt64 {
            mix &+= 0x9E37_79B9_7F4A_7C15
            var z = mix
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        state = (next(), next(), next(), next())
    }

    mutating func next() -> UInt64 {
        let result = ((state.1 &* 5) << 7 | (state.1 &* 5) >> 57) &* 9
        let shifted = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= shifted
        state.3 = state.3 << 45 | state.3 >> 19
        return result
    }

    /// In [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// In [low, high], both included.
    mutating func between(_ low: Int, _ high: Int) -> Int { low + below(high - low + 1) }

    /// Standard normal (Box–Muller).
    mutating func gaussian() -> Double {
        let first = max(unit(), 1e-300)
        return (-2 * log(first)).squareRoot() * cos(2 * Double.pi * unit())
    }

    mutating func bytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: (count + 7) & ~7)
        bytes.withUnsafeMutableBytes { raw in
            let words = raw.bindMemory(to: UInt64.self)
            for index in words.indices { words[index] = next() }
        }
        return Array(bytes.prefix(count))
    }
}

struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
