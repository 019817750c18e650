import Foundation
import PipeApple
import PipeCore

/// `pipe verify <commit | run | --ipa FILE>`: may this build be released? (`ReleaseVerification`)
enum VerifyCommand {
    static let spec = CommandSpec(
        name: "verify",
        summary: "Say whether a release build may be released: its commit, gates, sign-offs and digests.",
        discussion: """
            Finds the release build (recorded by an archive layer) of a commit, of a run, or of an .ipa file (by its \
            SHA-256), and answers yes only when the build was made from that commit, the merge gate passed at \
            that commit, and every release checklist that needs the archive layer was signed off against that \
            build's SHA-256 (a CFBundleVersion is often reused across builds). Otherwise it says what is missing. \
            It shows each gate's verdict with its run, the automated layers' bundles with their digests, the \
            sign-offs (who, when, OS, device, which build, result) and the build's files and signing facts.

            Examples:
              pipe verify --ipa ~/Downloads/Reader.ipa
              pipe verify 3f2a9c1
              pipe verify 20261129-1403 --json
            """,
        arguments: [.optional("target", help: "A commit SHA (a unique prefix of 7 or more), or a run id or prefix.")],
        options: [
            .value("ipa", valueName: "file", help: "An .ipa file: found by its SHA-256, its Info.plist read."),
            .flag("json", help: "Print the verification as JSON (as in verification.json)."),
        ],
        sections: [
            HelpSection(
                title: "EXIT CODES",
                rows: [
                    .init("0", "The build may be released."),
                    .init("1", "A gate failed or a checklist was rejected, or the build is not of that commit."),
                    .init("2", "Invalid usage: no target, an unreadable .ipa, an ambiguous commit."),
                    .init("3", "Not judged: Pipe has no record of the build, or a gate could not be judged."),
                    .init("4", "Sign-offs pending, or signed against another build."),
                ])
        ])

    static func execute(_ context: CommandContext) throws -> Int32 {
        let session = try RunsSession(context)
        let arguments = context.arguments
        let verification: ReleaseVerification
        switch (arguments.string("ipa"), arguments.argument("target")) {
        case (let ipa?, nil):
            verification = try verify(ipa: ipa, session)
        case (nil, let target?):
            verification = try verify(target: target, session)
        case (nil, nil):
            throw session.usage("name a commit, a run, or --ipa FILE")
        case (_?, _?):
            throw session.usage("give a commit or run, or --ipa FILE, not both")
        }
        if arguments.flag("json") {
            context.console.out(String(decoding: try verification.jsonData(), as: UTF8.self))
        } else {
            context.console.out(VerificationText.render(verification))
        }
        return verification.exitCode
    }

    private static func builds(_ session: RunsSession) throws -> ReleaseBuildStore {
        guard let builds = try session.store as? ReleaseBuildStore else {
            throw RequestError("this run store keeps no release builds")
        }
        return builds
    }

    static func verify(ipa path: String, _ session: RunsSession) throws -> ReleaseVerification {
        let url = URL(fileURLWithPath: path, relativeTo: session.context.currentDirectory)
        let contents: IPAContents
        do {
            contents = try IPAReader().read(url)
        } catch {
            throw RequestError(error.message)
        }
        let subject = "the .ipa \(path) (SHA-256 \(contents.sha256))"
        let found = try builds(session).releaseBuilds(ipaSHA256: contents.sha256)
        guard let build = found.last else {
            return .unknown(
                subject,
                because:
                    "Pipe has no record of an .ipa with SHA-256 \(contents.sha256) (\(contents.app.bundleIdentifier) "
                    + "\(contents.app.shortVersion) (\(contents.app.buildVersion))): it was not built by a run of "
                    + "this store, or it was changed since")
        }
        return try verify(subject, build, session)
    }

    static func verify(target: String, _ session: RunsSession) throws -> ReleaseVerification {
        let hex = target.count >= 7 && target.count <= 40 && target.allSatisfy(\.isHexDigit)
        if hex, let commit = try commit(matching: target, session) {
            let found = try builds(session).releaseBuilds(commit: commit)
            guard let build = found.last else {
                return .unknown(
                    "commit \(commit)", commit: commit,
                    because: "no run of commit \(commit) recorded a release build; run the release pipeline there")
            }
            return try verify("commit \(commit)", build, session)
        }
        let run: StoredRun
        do {
            run = try session.run(target)
        } catch let error as RequestError where hex {
            throw RequestError(
                "no run in the store checked out a commit starting with \(target), and "
                    + error.message.replacingOccurrences(of: "; `pipe runs list` shows the runs", with: "")
                    + "; `pipe runs list` shows the runs and their commits")
        }
        guard let build = try builds(session).releaseBuilds(runID: run.record.runID).last else {
            return .unknown(
                "run \(run.record.runID)", commit: run.record.commit,
                because: "run \(run.record.runID) recorded no release build (it has no archive layer, or it did "
                    + "not get that far)")
        }
        return try verify("run \(run.record.runID)", build, session)
    }

    private static func verify(_ subject: String, _ build: ReleaseBuild, _ session: RunsSession) throws
        -> ReleaseVerification
    {
        try ReleaseVerificationFile.gather(
            subject, build: build, store: try session.store, builds: try builds(session),
            flakyPolicy: { record in
                let pipeline = try? RunPipelineFile.load(
                    record, project: session.project, environment: session.context.environment)
                return pipeline?.flakyPolicy ?? .allow
            })
    }

    /// The full commit a prefix names among the store's recent runs; nil when none does (it may be a run id).
    private static func commit(matching prefix: String, _ session: RunsSession) throws -> String? {
        let lower = prefix.lowercased()
        if lower.count == 40 { return lower }
        let commits = Set(
            try session.store.listRuns(RunFilter(limit: ReleaseVerificationFile.searchedRuns)).compactMap {
                $0.commit?.lowercased()
            }
            .filter { $0.hasPrefix(lower) })
        guard commits.count <= 1 else {
            throw RequestError(
                "\(prefix) names \(commits.count) commits (\(commits.sorted().joined(separator: ", "))); give more of it"
            )
        }
        return commits.first
    }
}
