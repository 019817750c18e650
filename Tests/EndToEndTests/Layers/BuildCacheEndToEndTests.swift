import Foundation
import PipeTestSupport
import XCTest

/// Build caches end to end (docs/hosts.md, "Build caches"): the built `pipe` against an emulated Mac over real SSH.
/// A second run of the same build is warm in the same cache, whose tree is the workspace at a stable path; code of
/// another trust level gets a cache of its own; `clean: true` wipes; `pipe hosts clean --build-caches` removes
/// what no run holds.
final class BuildCacheEndToEndTests: EmulatedHostTestCase {
    private func build(_ name: String, in record: [String: Any]) -> [String: String]? {
        layer(name, in: record)?["build"] as? [String: String]
    }

    private func cacheFolder(_ name: String) -> String { "/home/\(host.user)/\(host.workDirectory)/cache/\(name)" }

    private func entry(trust: String = "trusted") -> String {
        host.hostsFileEntry().replacingOccurrences(
            of: "    capacity: 1\n", with: "    capacity: 1\n    trust: \(trust)\n")
    }

    private func makeCacheProject() throws -> PipeProject {
        let project = try makeProject(pipeline: Self.oneLogicLayerPipeline)
        try project.writeHostsFile(entry())
        return project
    }

    private func exists(_ path: String) throws -> Bool {
        try host.inspect("[ -e \(path) ]").exitCode == 0
    }

    private func run(_ project: PipeProject, _ extra: [String] = []) throws -> [String: Any] {
        let result = try project.pipe(["run", "app-intents"] + extra)
        XCTAssertEqual(result.exitCode, 0, result.combined)
        return try project.lastRecord()
    }

    func testASecondRunBuildsWarmInTheSameCacheWhoseTreeIsTheWorkspace() throws {
        let project = try makeCacheProject()
        let first = try run(project)
        let cold = try XCTUnwrap(build("logic", in: first))
        XCTAssertEqual(cold["state"], "cold")
        XCTAssertEqual(cold["reason"], "nothing built in this cache yet")
        let cache = try XCTUnwrap(cold["cache"])
        XCTAssertTrue(cache.hasPrefix("trusted-") && cache.hasSuffix("-1"), cache)

        try project.commit("examples/reader-app/README.md", "one file changed\n", message: "one file")
        let second = try run(project)
        XCTAssertEqual(build("logic", in: second), ["state": "warm", "cache": cache])
        // The layer built in the cache's tree and DerivedData, and the run folder holds neither.
        let facts = try XCTUnwrap((layer("logic", in: second)?["attempts"] as? [[String: Any]])?.last?["facts"])
        let command = try XCTUnwrap((facts as? [String: String])?["command"])
        XCTAssertTrue(command.contains("-derivedDataPath \(cacheFolder(cache))/builds/logic-"), command)
        XCTAssertTrue(command.contains("-clonedSourcePackagesDirPath \(cacheFolder(cache))/builds/logic-"), command)
        XCTAssertTrue(try exists("\(cacheFolder(cache))/tree/README.md"))
        XCTAssertEqual(
            try host.inspect("cat \(cacheFolder(cache))/tree/README.md").stdout, "one file changed\n")
        let shown = try project.pipe(["runs", "show", "last"])
        XCTAssertTrue(shown.stdout.contains("built warm in build cache \(cache)"), shown.combined)
        let stored = try project.pipe(["runs", "show", "last", "--json"])
        XCTAssertTrue(stored.stdout.contains("\"state\" : \"warm\""), stored.stdout)
    }

    func testCleanTrueWipesTheCacheAndBuildCacheFalseBuildsInTheRunFolder() throws {
        let project = try makeCacheProject()
        let cache = try XCTUnwrap(build("logic", in: try run(project))?["cache"])
        try writePipeline(Self.oneLogicLayerPipeline + "\n    clean: true\n", in: project)
        let cleaned = try XCTUnwrap(build("logic", in: try run(project)))
        XCTAssertEqual(cleaned, ["state": "cold", "cache": cache, "reason": "clean: true"])

        try writePipeline(Self.oneLogicLayerPipeline + "\n    build-cache: false\n", in: project)
        let outside = try XCTUnwrap(build("logic", in: try run(project)))
        XCTAssertEqual(outside, ["state": "cold", "reason": "build-cache: false"])
    }

    func testCodeOfAnotherTrustLevelGetsACacheOfItsOwn() throws {
        let project = try makeCacheProject()
        let trusted = try XCTUnwrap(build("logic", in: try run(project))?["cache"])
        let mark = try host.inspect("stat -f %m \(cacheFolder(trusted))/synced").stdout
        // The same repository, from a source the project does not name (a parameter chose it): untrusted code, on
        // an untrusted host of the same account.
        try project.writeHostsFile(entry(trust: "untrusted"))
        try writePipeline(
            Self.oneLogicLayerPipeline.replacingOccurrences(
                of: "repository:\n", with: "parameters: {repo: {required: true}}\nrepository:\n  url: \"${repo}\"\n"),
            in: project)
        let fork = try XCTUnwrap(build("logic", in: try run(project, ["--param", "repo=\(project.url.path)"])))
        XCTAssertEqual(fork["state"], "cold", "nothing the trusted code built is offered to it")
        let forkCache = try XCTUnwrap(fork["cache"])
        XCTAssertTrue(forkCache.hasPrefix("untrusted-"), forkCache)
        XCTAssertNotEqual(forkCache.dropFirst("untrusted-".count), trusted.dropFirst("trusted-".count))
        XCTAssertEqual(
            try host.inspect("stat -f %m \(cacheFolder(trusted))/synced").stdout, mark,
            "the trusted cache was not synced, let alone built in")
    }

    private func writePipeline(_ text: String, in project: PipeProject) throws {
        try text.write(
            to: project.url.appendingPathComponent("pipelines/app-intents.yml"), atomically: true, encoding: .utf8)
    }

    func testHostsCleanBuildCachesRemovesThemAll() throws {
        let project = try makeCacheProject()
        let cache = try XCTUnwrap(build("logic", in: try run(project))?["cache"])
        XCTAssertTrue(try exists(cacheFolder(cache) + "/tree"))
        let dry = try project.pipe(["hosts", "clean", "--build-caches", "--dry-run"])
        XCTAssertEqual(dry.exitCode, 0, dry.combined)
        XCTAssertTrue(dry.stdout.contains("mac-1: would free "), dry.combined)
        XCTAssertTrue(dry.stdout.contains("in 1 build cache (\(cache))"), dry.combined)
        XCTAssertTrue(try exists(cacheFolder(cache) + "/tree"), "--dry-run removes nothing")
        let clean = try project.pipe(["hosts", "clean", "--build-caches"])
        XCTAssertEqual(clean.exitCode, 0, clean.combined)
        XCTAssertTrue(clean.stdout.contains("mac-1: freed "), clean.combined)
        XCTAssertFalse(try exists(cacheFolder(cache)))
        // The next run starts cold in a new cache of the same name.
        XCTAssertEqual(build("logic", in: try run(project))?["state"], "cold")
    }

    func testASecondRunAtOnceTakesTheNextCacheOfTheIdentity() throws {
        let project = try makeProject(pipeline: Self.oneLogicLayerPipeline)
        try project.writeHostsFile(
            entry().replacingOccurrences(of: "    capacity: 1\n", with: "    capacity: 3\n    build-caches: 2\n"))
        try makeFirstTest(of: "ReadingIDTests", take: 3, in: project)
        let first = try BackgroundPipe(["run", "app-intents"], in: project)
        _ = waitUntilTestsRun(in: project, layer: "logic")
        let second = try BackgroundPipe(["run", "app-intents"], in: project)
        XCTAssertEqual(first.wait(timeout: 60).exitCode, 0)
        let secondEnded = second.wait(timeout: 60)
        XCTAssertEqual(secondEnded.exitCode, 0, secondEnded.combined)
        let caches = try project.runFolders().map { folder -> String in
            let data = try Data(contentsOf: folder.appendingPathComponent("summary.json"))
            let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            return try XCTUnwrap(build("logic", in: record)?["cache"])
        }
        XCTAssertEqual(caches.count, 2)
        XCTAssertEqual(caches.map { $0.suffix(2) }.sorted(), ["-1", "-2"], "two runs at once, two caches: \(caches)")
        XCTAssertEqual(caches[0].dropLast(2), caches[1].dropLast(2), "of one identity")
    }

    func testACacheWhoseBuildFailedIsUsedAgainWarm() throws {
        let project = try makeCacheProject()
        try breakReaderBuild(in: project)
        let failed = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(failed.exitCode, 1, failed.combined)
        let cache = try XCTUnwrap(build("logic", in: try project.lastRecord())?["cache"])
        try editReaderScheme(in: project, message: "the build error is fixed") { reader in
            reader.removeValue(forKey: "buildErrors")
        }
        XCTAssertEqual(build("logic", in: try run(project)), ["state": "warm", "cache": cache])
    }
}
