import Foundation
import PipeCore
import PipeSpec
import XCTest

/// `build-caches:` and `build-cache:` in the hosts file, `clean:` and `build-cache:` on a pipeline's layer, and the
/// units they are written in (`14d`, `50GiB`).
final class BuildCacheSpecTests: XCTestCase {
    private func hosts(_ keys: String) throws(SpecErrors) -> [HostConfig] {
        try HostsFileLoader.load(
            yaml: "hosts:\n  - name: a\n    address: h\n    user: u\n    identity-file: id\n    known-hosts: kh\n"
                + keys,
            file: ".pipe/hosts.yml", baseDirectory: URL(fileURLWithPath: "/p/.pipe"))
    }

    private func errors(_ load: () throws -> Any) -> [String] {
        do {
            _ = try load()
            return []
        } catch {
            return "\(error)".components(separatedBy: "\n")
        }
    }

    func testAHostKeepsTwoCachesPerIdentityOf50GiBAnd14DaysByDefault() throws {
        let host = try XCTUnwrap(try hosts("").first)
        XCTAssertEqual(
            host.buildCache, BuildCachePolicy(cachesPerIdentity: 2, maxSizeBytes: 50 << 30, maxAgeSeconds: 1_209_600))
        XCTAssertTrue(host.buildCache.isEnabled)
    }

    func testTheHostsFileSetsCachesPerIdentityAndEviction() throws {
        let host = try XCTUnwrap(
            try hosts("    build-caches: 3\n    build-cache: { max-size: 1TiB, max-age: 1d12h }\n").first)
        XCTAssertEqual(
            host.buildCache, BuildCachePolicy(cachesPerIdentity: 3, maxSizeBytes: 1 << 40, maxAgeSeconds: 129_600))
        let off = try XCTUnwrap(try hosts("    build-caches: 0\n").first)
        XCTAssertFalse(off.buildCache.isEnabled)
    }

    func testBadBuildCacheKeysAreReportedWhereTheyAreWritten() {
        XCTAssertEqual(
            errors {
                try self.hosts(
                    "    build-caches: -1\n    build-cache:\n      max-size: 50 gigs\n      max-age: 2w\n"
                        + "      max-sise: 1GiB\n")
            },
            [
                ".pipe/hosts.yml:7:19: error: hosts[0].build-caches: -1 is out of range: expected the build caches "
                    + "the host keeps per build identity, 0 (none) to 64",
                ".pipe/hosts.yml:9:17: error: hosts[0].build-cache.max-size: expected a size such as 512KB, 64MB, "
                    + "2GiB, 1TiB or a number of bytes, found '50 gigs'",
                ".pipe/hosts.yml:10:16: error: hosts[0].build-cache.max-age: expected a duration such as 90s, 10m, "
                    + "1h30m, 14d, or a number of seconds, found '2w'",
                ".pipe/hosts.yml:11:7: error: hosts[0].build-cache.max-sise: unknown key; did you mean 'max-size'?",
            ])
        XCTAssertEqual(
            errors { try self.hosts("    build-cache: 50GiB\n") },
            [
                ".pipe/hosts.yml:7:18: error: hosts[0].build-cache: expected a mapping of max-size and max-age, e.g. "
                    + "{ max-size: 50GiB, max-age: 14d }, found the text '50GiB'"
            ])
    }

    func testDaysAndBinaryTerabytesAreUnits() {
        XCTAssertEqual(DurationParser.seconds(from: "14d"), 1_209_600)
        XCTAssertEqual(DurationParser.seconds(from: "1d6h"), 108_000)
        XCTAssertNil(DurationParser.seconds(from: "1w"))
        XCTAssertEqual(ByteSizeParser.bytes(from: "2TiB"), 2 << 40)
        XCTAssertEqual(ByteSizeParser.bytes(from: "1TB"), 1_000_000_000_000)
        XCTAssertNil(ByteSizeParser.bytes(from: "9000000TiB"))
    }

    private let layers = "layers:\n  logic:\n    plugin: xcodebuild-test\n    scheme: Reader\n"

    func testALayerBuildsInTheCacheAndKeepsItByDefault() throws {
        let layer = try XCTUnwrap(try SpecFixtures.loader.load(yaml: layers, file: "pipelines/p.yml").layers.first)
        XCTAssertTrue(layer.buildCache)
        XCTAssertFalse(layer.clean)
    }

    func testCleanAndBuildCacheAreLayerKeys() throws {
        let pipeline = try SpecFixtures.loader.load(
            yaml: layers + "    clean: true\n  ui:\n    plugin: xcodebuild-test\n    scheme: Reader\n"
                + "    build-cache: false\n", file: "pipelines/p.yml")
        XCTAssertEqual(pipeline.layers.map(\.clean), [true, false])
        XCTAssertEqual(pipeline.layers.map(\.buildCache), [true, false])
    }

    func testCleanWithoutABuildCacheAndWrongTypesAreRefused() {
        let problems = errors {
            try SpecFixtures.loader.load(
                yaml: layers + "    clean: true\n    build-cache: false\n  ui:\n    plugin: xcodebuild-test\n"
                    + "    scheme: Reader\n    clean: \"yes\"\n", file: "pipelines/p.yml")
        }
        XCTAssertEqual(
            problems,
            [
                "pipelines/p.yml:5:12: error: layers.logic.clean: 'clean: true' wipes the layer's build cache, and "
                    + "'build-cache: false' builds without one: keep one of them (a layer without a build cache "
                    + "always builds from nothing)",
                "pipelines/p.yml:10:12: error: layers.ui.clean: expected a boolean (true or false), found the quoted "
                    + "text \"yes\"; remove the quotes",
            ])
    }
}
