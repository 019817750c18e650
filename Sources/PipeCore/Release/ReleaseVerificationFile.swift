import Foundation

/// Gathers a release build's verification from the store, and keeps `verification.json` beside the build's files:
/// written when a run records the build, and again after each sign-off of that run.
public enum ReleaseVerificationFile {
    public static let fileName = "verification.json"
    /// How many recent runs are searched for a commit's runs, and how many of them are judged.
    public static let searchedRuns = 2_000
    public static let judgedRuns = 20

    /// `build`'s verification, from the store's records of its run and its commit's other runs.
    public static func gather(
        _ subject: String, build: ReleaseBuild, store: RunStore, builds: ReleaseBuildStore,
        flakyPolicy: (RunRecord) -> FlakyPolicy = { _ in .allow }
    ) throws -> ReleaseVerification {
        let commit = build.commit.lowercased()
        let commitRuns = try store.listRuns(RunFilter(limit: searchedRuns))
            .filter { $0.commit?.lowercased() == commit && $0.runID != build.runID }
            .prefix(judgedRuns).compactMap { try store.run($0.runID) }
        return ReleaseVerification.verify(
            subject, build: build, buildRun: try store.run(build.runID), commitRuns: commitRuns,
            otherBuilds: try builds.releaseBuilds(commit: commit), flakyPolicy: flakyPolicy)
    }

    /// Records `build` in the store and writes its `verification.json` into `<runFolder>/<layer>/`.
    @discardableResult
    public static func record(_ build: ReleaseBuild, store: RunStore, runFolder: URL) throws -> ReleaseVerification? {
        guard let builds = store as? ReleaseBuildStore else { return nil }
        try builds.saveReleaseBuild(build)
        return try write(build, store: store, builds: builds, runFolder: runFolder)
    }

    /// Rewrites `verification.json` of every release build of the run (after a sign-off).
    public static func refresh(runID: String, store: RunStore, runFolder: URL) throws {
        guard let builds = store as? ReleaseBuildStore else { return }
        for build in try builds.releaseBuilds(runID: runID) {
            _ = try write(build, store: store, builds: builds, runFolder: runFolder)
        }
    }

    private static func write(_ build: ReleaseBuild, store: RunStore, builds: ReleaseBuildStore, runFolder: URL)
        throws -> ReleaseVerification
    {
        let verification = try gather("run \(build.runID)", build: build, store: store, builds: builds)
        let folder = runFolder.appendingPathComponent(build.layer, isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try verification.jsonData().write(to: folder.appendingPathComponent(fileName), options: .atomic)
        return verification
    }
}
