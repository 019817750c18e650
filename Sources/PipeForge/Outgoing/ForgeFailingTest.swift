/// A test that failed, as the comment lists it and a check run annotates it. Every field is hostile text from the
/// host or the code under test.
public struct ForgeFailingTest: Sendable, Equatable {
    public var layer: String
    public var name: String
    public var message: String
    /// The test file as the result bundle names it (relative to the checkout, or absolute on the host).
    public var file: String?
    public var line: Int?

    public init(layer: String, name: String, message: String, file: String? = nil, line: Int? = nil) {
        self.layer = layer
        self.name = name
        self.message = message
        self.file = file
        self.line = line
    }

    /// The file relative to the repository, as annotations need it: an absolute path is made relative to
    /// `checkoutRoot` (the folder the host ran in); a path outside it, or with `..`, has none.
    public func repositoryPath(checkoutRoot: String?) -> String? {
        guard var path = file, !path.isEmpty else { return nil }
        if path.hasPrefix("/") {
            guard let root = checkoutRoot, !root.isEmpty else { return nil }
            let prefix = root.hasSuffix("/") ? root : root + "/"
            guard path.hasPrefix(prefix) else { return nil }
            path = String(path.dropFirst(prefix.count))
        }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard !parts.isEmpty, !parts.contains(where: { $0.isEmpty || $0 == ".." || $0 == "." }),
            !path.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else { return nil }
        return path
    }
}

/// A release checklist (a manual layer) as the comment shows it, with the command that signs it.
public struct ForgeChecklist: Sendable, Equatable {
    public enum Standing: String, Sendable, Equatable {
        case awaitingSignoff = "awaiting sign-off"
        case signedOff = "signed off"
        case rejected
        case notReached = "not reached"
    }

    public var layer: String
    public var standing: Standing
    /// What the tester checks, from the pipeline.
    public var items: [String]
    /// The fields `pipe signoff` requires (`os_version`, `app_build`, …).
    public var requiredFields: [String]
    /// Who signed, when someone did.
    public var signedBy: String?

    public init(
        layer: String, standing: Standing, items: [String] = [], requiredFields: [String] = [], signedBy: String? = nil
    ) {
        self.layer = layer
        self.standing = standing
        self.items = items
        self.requiredFields = requiredFields
        self.signedBy = signedBy
    }
}
