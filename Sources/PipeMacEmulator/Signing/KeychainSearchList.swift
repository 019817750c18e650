import Foundation

/// The user's keychain search list, which `codesign` searches when no `--keychain` is named: `security
/// list-keychains [-d user] [-s keychain …]` reads it (one quoted absolute path a line, as macOS prints it) or
/// replaces it. Kept as a JSON array in the emulated home; the login keychain alone until a list is set.
struct KeychainSearchList {
    let context: EmulatorContext

    private var stateURL: URL {
        URL(fileURLWithPath: context.absolutePath("~/Library/Preferences/pipe-emulator-keychain-search-list.json"))
    }

    /// The keychains' files, in search order.
    var keychains: [URL] {
        let security = Security(context: context)
        guard let data = try? Data(contentsOf: stateURL), data.count <= 64 * 1024,
            let paths = try? JSONDecoder().decode([String].self, from: data)
        else { return [security.keychainURL(SigningKeychains.loginKeychain)] }
        return paths.map { URL(fileURLWithPath: $0) }
    }

    func run(_ arguments: [String]) -> Int32 {
        var words = arguments
        if let domain = words.firstIndex(of: "-d") {
            guard domain + 1 < words.count, words[domain + 1] == "user" else {
                context.stderr.line("security: list-keychains: only the user domain is emulated (-d user)")
                return 2
            }
            words.removeSubrange(domain...(domain + 1))
        }
        guard let set = words.firstIndex(of: "-s") else {
            guard words.isEmpty else { return usage() }
            for url in keychains { context.stdout.line("    \"\(url.path)\"") }
            return 0
        }
        let security = Security(context: context)
        let named = words[(set + 1)...].map { security.keychainURL($0).path }
        guard words[..<set].isEmpty else { return usage() }
        return save(named)
    }

    /// Takes a deleted keychain off the list, as `delete-keychain` does on macOS.
    func remove(_ url: URL) {
        let kept = keychains.filter { $0.path != url.path }
        if kept.count != keychains.count { _ = save(kept.map(\.path)) }
    }

    private func save(_ paths: [String]) -> Int32 {
        do {
            try FileManager.default.createDirectory(
                at: stateURL.deletingLastPathComponent(), withIntermediateDirectories: true)
            try JSONEncoder().encode(paths).write(to: stateURL, options: .atomic)
            return 0
        } catch {
            context.stderr.line("security: list-keychains: \(error.localizedDescription)")
            return 1
        }
    }

    private func usage() -> Int32 {
        context.stderr.line("Usage: list-keychains [-h] [-d user|system|common|dynamic] [-s [keychain...]]")
        return 2
    }
}
