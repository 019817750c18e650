/// The errors `archive` and `-exportArchive` stop with before any work, on stderr. Texts from apple-formats.md
/// Part 2 §3 and issue transcripts where one exists; the others follow xcodebuild's wording for the test action
/// and are marked in emulator/README.md.
enum XcodebuildReleaseError: Error, Equatable {
    case missingScheme
    /// Only device archives are emulated: a simulator or unknown destination is not found.
    case archiveDestination(specifier: String, scheme: String)
    /// `-exportArchive` without one of the flags it needs.
    case exportFlagRequired(String)
    case archiveNotFound(String)

    var exitCode: Int32 {
        switch self {
        case .missingScheme, .exportFlagRequired: return 64
        case .archiveDestination, .archiveNotFound: return 70
        }
    }

    var message: String {
        switch self {
        case .missingScheme:
            return "xcodebuild: error: The archive action requires that the name of a scheme in the project is "
                + "provided using the \"-scheme\" option. The \"-list\" option can be used to find the names of the "
                + "schemes in the project."
        case .archiveDestination(let specifier, let scheme):
            return XcodebuildError.destinationNotFound(
                specifier: specifier, scheme: scheme,
                available: [
                    "{ platform:iOS, id:dvtdevice-DVTiPhonePlaceholder-iphoneos:placeholder, name:Any iOS Device }"
                ]
            ).message + "\n\t(pipe-mac-emulator) archive builds for -destination 'generic/platform=iOS' only."
        case .exportFlagRequired(let flag):
            // Verbatim for -exportOptionsPlist (Xcode 9); the same form assumed for the other two flags.
            return "xcodebuild: error: The flag \(flag) is required when specifying -exportArchive."
        case .archiveNotFound(let path):
            return "error: archive not found at path '\(path)'"
        }
    }
}
