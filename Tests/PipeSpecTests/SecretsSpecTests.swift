import Foundation
import PipeCore
import PipeSpec
import XCTest

/// `secrets:` of a pipeline and the secrets a layer receives.
final class SecretsSpecTests: XCTestCase {
    func testSecretsNameTheirSourceAndLayersNameTheSecrets() throws {
        let yaml = """
            secrets:
              API_TOKEN: { env: PIPE_API_TOKEN }
              TEST_ACCOUNT: { file: .pipe/secrets/account }
            layers:
              intent:
                plugin: xcodebuild-test
                scheme: Reader
                secrets: [API_TOKEN, TEST_ACCOUNT]
            """
        let pipeline = try SpecFixtures.loader.load(yaml: yaml, file: "pipelines/p.yml")
        XCTAssertEqual(
            pipeline.secrets,
            ["API_TOKEN": .environment("PIPE_API_TOKEN"), "TEST_ACCOUNT": .file(".pipe/secrets/account")])
        XCTAssertEqual(pipeline.layers[0].secrets, ["API_TOKEN", "TEST_ACCOUNT"])
    }

    func testEveryMistakeIsReported() {
        let yaml = """
            secrets:
              api-token: { env: X }
              BOTH: { env: X, file: y }
              NEITHER: {}
              VALUE: hunter2
            layers:
              intent:
                plugin: xcodebuild-test
                scheme: Reader
                secrets: [BOTHH]
            """
        XCTAssertThrowsError(try SpecFixtures.loader.load(yaml: yaml, file: "pipelines/p.yml")) { error in
            let text = "\(error)"
            XCTAssertTrue(
                text.contains("pipelines/p.yml:2:3: error: secrets.api-token: 'api-token' cannot name a secret"), text)
            XCTAssertTrue(text.contains("secrets.BOTH: give 'env:' or 'file:', not both"), text)
            XCTAssertTrue(text.contains("secrets.NEITHER: say where the value is read"), text)
            XCTAssertTrue(text.contains("secrets.VALUE: expected a mapping with 'env:' or 'file:'"), text)
            XCTAssertTrue(text.contains("layers.intent.secrets[0]: no secret is named 'BOTHH'"), text)
            XCTAssertTrue(text.contains("did you mean 'BOTH'?"), text)
        }
    }

    func testValuesAreResolvedOnTheCoordinatorAndCheckedBeforeAnythingRuns() throws {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("secrets-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try "from-a-file\n".write(to: folder.appendingPathComponent("token"), atomically: true, encoding: .utf8)
        let values = try SecretValues.resolve(
            ["A": .environment("PIPE_A"), "B": .file("token")], environment: ["PIPE_A": "from-env"],
            projectDirectory: folder)
        XCTAssertEqual(values.values, ["A": "from-env", "B": "from-a-file"])
        XCTAssertThrowsError(
            try SecretValues.resolve(
                ["A": .environment("PIPE_A"), "B": .file("missing"), "C": .environment("PIPE_C")],
                environment: ["PIPE_C": "two\nlines"], projectDirectory: folder)
        ) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("A: the environment variable PIPE_A is not set"), text)
            XCTAssertTrue(text.contains("B: cannot read the file"), text)
            XCTAssertTrue(text.contains("C: the environment variable PIPE_C holds a line break"), text)
        }
    }

    func testFileSecretsAreBinaryFilesReadWholeAndBounded() throws {
        let yaml = """
            secrets:
              DIST_P12: { file: .pipe/secrets/dist.p12, type: file }
              DIST_P12_PASSWORD: { env: PIPE_P12_PASSWORD, type: line }
              WRONG: { env: X, type: file }
              ODD: { file: y, type: blob }
            layers:
              archive:
                plugin: shell
                run: "true"
                secrets: [DIST_P12]
            """
        XCTAssertThrowsError(try SpecFixtures.loader.load(yaml: yaml, file: "pipelines/p.yml")) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("secrets.WRONG: a secret of type 'file' is read from 'file:'"), text)
            XCTAssertTrue(text.contains("pipelines/p.yml:5:25: error: secrets.ODD.type: a secret's type is"), text)
            XCTAssertTrue(
                text.contains(
                    "pipelines/p.yml:10:15: error: layers.archive.secrets[0]: 'DIST_P12' is a secret of type 'file', "
                        + "and plugin 'shell' takes only one-line secrets"), text)
        }
        // A plugin that takes file secrets (one that signs) gets it.
        var registry = SpecFixtures.registry
        registry["signs"] = PluginSchema(settings: [], takesFileSecrets: true)
        let valid = yaml.split(separator: "\n").filter { !$0.contains("WRONG") && !$0.contains("ODD") }
            .map { $0.replacingOccurrences(of: "plugin: shell", with: "plugin: signs") }
            .filter { !$0.contains("run: ") }
        let pipeline = try PipelineLoader(registry: registry).load(
            yaml: valid.joined(separator: "\n"), file: "pipelines/p.yml")
        XCTAssertEqual(
            pipeline.secrets,
            ["DIST_P12": .binaryFile(".pipe/secrets/dist.p12"), "DIST_P12_PASSWORD": .environment("PIPE_P12_PASSWORD")])

        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("secrets-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let binary = Data([0x30, 0x82, 0x00, 0x0A, 0x0A, 0x00, 0xFF])  // line breaks and NULs are kept
        try binary.write(to: folder.appendingPathComponent("dist.p12"))
        try Data(count: SecretValues.maximumFileBytes + 1).write(to: folder.appendingPathComponent("huge"))
        try Data().write(to: folder.appendingPathComponent("empty"))
        let values = try SecretValues.resolve(
            ["P12": .binaryFile("dist.p12")], environment: [:], projectDirectory: folder)
        XCTAssertEqual(values.files, ["P12": binary])
        XCTAssertTrue(values.values.isEmpty, "a file secret is never an environment variable")
        XCTAssertEqual(values.subset(["P12"]).files, ["P12": binary])
        XCTAssertTrue(values.subset(["OTHER"]).isEmpty)
        XCTAssertThrowsError(
            try SecretValues.resolve(
                ["H": .binaryFile("huge"), "E": .binaryFile("empty"), "M": .binaryFile("missing")], environment: [:],
                projectDirectory: folder)
        ) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("H: the binary file \(folder.path)/huge is larger than 1048576 bytes"), text)
            XCTAssertTrue(text.contains("E: the binary file \(folder.path)/empty is empty"), text)
            XCTAssertTrue(text.contains("M: cannot read the file"), text)
        }
    }

    func testRedactionMasksValuesEvenAcrossChunks() {
        let redactor = SecretRedactor(SecretValues(["TOKEN": "abc123", "LONG": "abc123-and-more"]))
        XCTAssertEqual(redactor.redact("x abc123-and-more y abc123"), "x [secret LONG] y [secret TOKEN]")
        let stream = StreamRedactor(redactor)
        let pieces = ["line one ab", "c12", "3 end\nnext abc", "123\n", "tail"].map { Data($0.utf8) }
        let output = pieces.map(stream.feed).reduce(Data(), +) + stream.flush()
        XCTAssertEqual(
            String(decoding: output, as: UTF8.self), "line one [secret TOKEN] end\nnext [secret TOKEN]\ntail")
    }

    func testDeliveryPutsValuesOnStdinNotOnTheCommandLine() throws {
        let delivery = try SecretDelivery.wrap(
            "printf '%s|%s' \"$TEST_RUNNER_A\" \"$TEST_RUNNER_B\"",
            secrets: SecretValues(["A": "it's $(rm -rf /) `x`", "B": "plain"]), exportName: { "TEST_RUNNER_\($0)" })
        XCTAssertFalse(delivery.command.contains("plain"))
        XCTAssertFalse(delivery.command.contains("rm -rf"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", delivery.command]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(delivery.stdin ?? Data())
        try input.fileHandleForWriting.close()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(printed, "it's $(rm -rf /) `x`|plain")
    }
}
