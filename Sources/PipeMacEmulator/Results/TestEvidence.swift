import Foundation

/// What a test run leaves besides verdicts: code coverage (when `-enableCodeCoverage YES` asked for it) and the
/// files tests attached. The result bundle keeps both (`ResultBundleRecord`), for `xccov` and `xcresulttool export
/// attachments` to answer later.
struct TestEvidence {
    /// One covered product, as `xccov` lists it.
    struct CoverageTarget: Codable, Equatable {
        var name: String
        var files: [CoverageFile]
    }

    /// One source file's line counts; `path` is absolute (a canned file relative to the workspace is made so).
    struct CoverageFile: Codable, Equatable {
        var path: String
        var coveredLines: Int
        var executableLines: Int
    }

    /// An attachment kept in the bundle's `Attachments/` folder under `fileName`.
    struct Attachment: Codable, Equatable {
        var test: TestIdentity
        /// The name the test gave it.
        var name: String
        var fileName: String
        var associatedWithFailure: Bool
        var timestamp: Double
        /// Its index among the test's attachments, which Xcode puts in the suggested name.
        var index: Int

        /// `<name>_<index>_<UUID>.<extension>`, the shape Xcode's manifests give (apple-formats.md Part 2 §2b); the
        /// UUID is the stored file's.
        var suggestedHumanReadableName: String {
            let stem = (fileName as NSString).deletingPathExtension
            let fileExtension = (fileName as NSString).pathExtension
            return "\(name)_\(index)_\(stem)" + (fileExtension.isEmpty ? "" : "." + fileExtension)
        }
    }

    /// A file to attach, still where the test (or the canned results) left it.
    struct Source {
        var test: TestIdentity
        var name: String
        var file: URL
        var associatedWithFailure: Bool
    }

    var coverage: [CoverageTarget]?
    var attachments: [Source] = []
}
