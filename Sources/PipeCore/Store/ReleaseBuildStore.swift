import Foundation

/// Where release builds are recorded and found again: by run, by commit and by the `.ipa`'s SHA-256.
public protocol ReleaseBuildStore: AnyObject {
    /// Records `build`, replacing an earlier record of the same run and layer (a retried attempt).
    func saveReleaseBuild(_ build: ReleaseBuild) throws

    /// The run's release builds, in layer order of recording.
    func releaseBuilds(runID: String) throws -> [ReleaseBuild]

    /// Every release build of `commit` (a full SHA, any case), oldest first.
    func releaseBuilds(commit: String) throws -> [ReleaseBuild]

    /// The builds whose `.ipa` has this SHA-256 (any case), oldest first: normally one, more when a build was
    /// reproduced byte for byte.
    func releaseBuilds(ipaSHA256: String) throws -> [ReleaseBuild]
}
