import Foundation
import PipeChatOps
import PipeForge
import PipeServer
import PipeSpec
import PipeTestSupport
import PipeWeb
import XCTest

@testable import PipeCLI

/// `pipe schema` and the copies in docs/schema/: the repository's own files validate against them, and on a
/// table of small files the schema refuses what the loader refuses for a key or a type, and accepts what it
/// accepts. Validation is python3-jsonschema's (Debian's /usr/bin/python3, scripts/check-schema.py).
final class SchemaTests: XCTestCase {
    private static let python = URL(fileURLWithPath: "/usr/bin/python3")
    private static let checker = RepositoryPaths.root.appendingPathComponent("scripts/check-schema.py")

    private static func schemaFile(_ kind: String) -> URL {
        RepositoryPaths.root.appendingPathComponent("docs/schema/\(kind).schema.json")
    }

    /// Each file's problems as the schema reports them, by path.
    private func schemaErrors(_ schema: URL, _ files: [URL]) throws -> [String: [String]] {
        let result = try CommandRunner.run(Self.python, [Self.checker.path, schema.path] + files.map(\.path))
        XCTAssertEqual(result.exitCode, 0, result.combined)
        var errors: [String: [String]] = [:]
        for line in result.stdout.split(separator: "\n") {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            if let file = object?["file"] as? String { errors[file] = object?["errors"] as? [String] ?? [] }
        }
        XCTAssertEqual(errors.count, files.count, result.combined)
        return errors
    }

    func testDocsCopiesAreWhatTheCommandPrints() throws {
        XCTAssertEqual(SchemaCommand.kinds.sorted(), SchemaCommand.files().keys.sorted())
        for kind in SchemaCommand.kinds {
            let result = try CommandRunner.run(RepositoryPaths.pipeBinary, ["schema", kind])
            XCTAssertEqual(result.exitCode, 0, result.combined)
            let copy = try String(contentsOf: Self.schemaFile(kind), encoding: .utf8)
            XCTAssertEqual(
                result.stdout, copy, "docs/schema/\(kind).schema.json is stale: run `pipe schema \(kind) > \(kind)`")
        }
        let unknown = try CommandRunner.run(RepositoryPaths.pipeBinary, ["schema", "hostz"])
        XCTAssertEqual(unknown.exitCode, 2, unknown.combined)
        XCTAssertTrue(unknown.stderr.contains("choose one of pipeline, hosts"), unknown.stderr)
    }

    func testKindsComplete() throws {
        let folder = try TemporaryDirectory(prefix: "pipe-schema-complete")
        defer { folder.remove() }
        let engine = CompletionEngine(
            root: PipeCommandLine.root, names: CompletionNames(currentDirectory: folder.url, environment: [:]))
        let kinds = engine.complete(["schema", ""]).map { String($0.prefix { $0 != "\t" }) }
        XCTAssertEqual(kinds, SchemaCommand.kinds)
        XCTAssertTrue(engine.complete(["sch"]).contains { $0.hasPrefix("schema") })
    }

    /// The YAML examples of the docs: where the loader takes one, the schema does too; where the loader refuses one
    /// for a key or a type, so does the schema (examples that are fragments are refused for other reasons).
    func testDocumentationExamplesAgreeWithTheLoaders() throws {
        let folder = try TemporaryDirectory(prefix: "pipe-schema-docs")
        defer { folder.remove() }
        let docs = RepositoryPaths.root.appendingPathComponent("docs")
        var examples: [(kind: String, name: String, file: URL)] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: docs.path).sorted() where name.hasSuffix(".md")
        {
            let text = try String(contentsOf: docs.appendingPathComponent(name), encoding: .utf8)
            for (index, block) in Self.yamlBlocks(text).enumerated() {
                guard let kind = Self.kind(of: block) else { continue }
                let file = folder.appending("\(kind)-\(name)-\(index).yml")
                try block.write(to: file, atomically: true, encoding: .utf8)
                examples.append((kind, "\(name) example \(index + 1)", file))
            }
        }
        XCTAssertGreaterThan(examples.count, 10)
        var accepted = 0
        for kind in SchemaCommand.kinds {
            let files = examples.filter { $0.kind == kind }
            guard !files.isEmpty else { continue }
            let verdicts = try schemaErrors(Self.schemaFile(kind), files.map(\.file))
            for example in files {
                let loader = SchemaAgreementCases.loaderErrors(kind, example.file, folder: folder.url)
                let schema = verdicts[example.file.path] ?? ["not checked"]
                if loader.isEmpty {
                    accepted += 1
                    XCTAssertEqual(schema, [], "\(example.name) (\(kind)): the loader takes it, the schema does not")
                } else if loader.contains(where: { $0.contains("unknown key") || $0.hasPrefix("expected ") }) {
                    XCTAssertFalse(schema.isEmpty, "\(example.name) (\(kind)): the loader refuses it: \(loader)")
                }
            }
        }
        XCTAssertGreaterThan(accepted, 8)
    }

    /// The bodies of the ```yaml blocks of a Markdown text.
    private static func yamlBlocks(_ text: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```yaml" || line == "```yml" {
                current = []
            } else if current != nil, line.hasPrefix("```") {
                blocks.append((current ?? []).joined(separator: "\n") + "\n")
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// Which file an example is, from its top-level keys.
    private static func kind(of block: String) -> String? {
        let keys = Set(
            block.split(separator: "\n").compactMap { line -> String? in
                guard let first = line.first, first.isLetter, let colon = line.firstIndex(of: ":") else { return nil }
                return String(line[..<colon])
            })
        if keys.contains("layers") { return "pipeline" }
        for (key, kind) in [("hosts", "hosts"), ("forges", "forges"), ("trusted-refs", "project")]
        where keys.contains(key) {
            return kind
        }
        if keys == ["chatops"] { return "chatops" }
        if keys == ["web"] { return "web" }
        let controller = Set(ControllerConfigFileShape.file.root.keyNames)
        return !keys.isEmpty && keys.isSubset(of: controller) ? "controller" : nil
    }

    /// With --with-plugins, an external plugin of the project (the example one, copied into Plugins/) adds its
    /// settings: its documented layer validates, and a misspelt setting of it is refused.
    func testWithPluginsAddsTheProjectsExternalPlugins() throws {
        let project = try TemporaryDirectory(prefix: "pipe-schema-plugins")
        defer { project.remove() }
        try FileManager.default.createDirectory(at: project.appending("pipelines"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: project.appending("Plugins"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: RepositoryPaths.root.appendingPathComponent("Plugins/examples/pipe-layer-source-lint"),
            to: project.appending("Plugins/pipe-layer-source-lint"))
        let result = try CommandRunner.run(
            RepositoryPaths.pipeBinary, ["schema", "pipeline", "--with-plugins", "--project-dir", project.url.path])
        XCTAssertEqual(result.exitCode, 0, result.combined)
        let schema = project.appending("pipeline.schema.json")
        try result.stdout.write(to: schema, atomically: true, encoding: .utf8)
        let layer = "layers:\n  lint:\n    plugin: source-lint\n    paths: [Sources]\n"
        let good = project.appending("good.yml")
        try (layer + "    max-line-length: 120\n").write(to: good, atomically: true, encoding: .utf8)
        let bad = project.appending("bad.yml")
        try (layer + "    max-line-lenght: 120\n").write(to: bad, atomically: true, encoding: .utf8)
        let errors = try schemaErrors(schema, [good, bad])
        XCTAssertEqual(errors[good.path], [])
        XCTAssertTrue(errors[bad.path]?.contains { $0.contains("max-line-lenght") } ?? false, "\(errors)")
        let builtInOnly = try schemaErrors(Self.schemaFile("pipeline"), [good])
        XCTAssertTrue(builtInOnly[good.path]?.contains { $0.contains("source-lint") } ?? false, "\(builtInOnly)")
    }

    /// A key list written out in a loader would be checked by the loader but missing from the schema: every
    /// loader takes its keys from a shape.
    func testNoLoaderWritesItsKeysOutsideAShape() throws {
        let sources = RepositoryPaths.root.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        var literal: [String] = []
        while let file = files?.nextObject() as? URL {
            guard file.pathExtension == "swift" else { continue }
            let text = try String(contentsOf: file, encoding: .utf8)
            for marker in ["rejectUnknownKeys(allowed: [\"", ", allowed: [\""] where text.contains(marker) {
                literal.append("\(file.lastPathComponent): \(marker)")
            }
        }
        XCTAssertEqual(literal, [], "take these keys from the file's shape (Sources/PipeSpec/Schema/FileShape.swift)")
    }

    /// The controller's schema names exactly the top-level keys its loader takes, sections of other modules too.
    func testControllerSchemaHasTheLoadersSections() {
        var loader = ControllerConfigLoader()
        ControllerHTTPSections().register(on: &loader)
        XCTAssertEqual(
            ControllerConfigFileShape.file.root.keyNames.sorted(),
            (ControllerConfigLoader.topLevelKeys + loader.additionalSections.keys).sorted())
    }

    /// Every YAML file of the repository names its schema on a `# yaml-language-server:` line, and validates.
    func testRepositoryFilesValidateAgainstTheSchemaTheyName() throws {
        let listing = try CommandRunner.run(
            URL(fileURLWithPath: "/usr/bin/git"), ["-C", RepositoryPaths.root.path, "ls-files", "*.yml", "*.yaml"])
        let files = listing.stdout.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("Tests/") }
        XCTAssertTrue(files.contains("pipelines/haptics.yml"), listing.combined)
        for file in files {
            let url = RepositoryPaths.root.appendingPathComponent(file)
            let firstLine = try String(contentsOf: url, encoding: .utf8).prefix { $0 != "\n" }
            let marker = "# yaml-language-server: $schema="
            guard firstLine.hasPrefix(marker) else {
                XCTFail("\(file) does not start with \(marker)<schema>")
                continue
            }
            let schema = url.deletingLastPathComponent().appendingPathComponent(
                String(firstLine.dropFirst(marker.count))
            ).standardizedFileURL
            XCTAssertTrue(FileManager.default.fileExists(atPath: schema.path), "\(file) names a missing \(schema.path)")
            let errors = try schemaErrors(schema, [url])
            XCTAssertEqual(errors[url.path] ?? ["not checked"], [], file)
        }
    }

    /// The hosts file of the tests is the repository's one real hosts example.
    func testHostsFixtureValidates() throws {
        let hosts = RepositoryPaths.root.appendingPathComponent("Tests/PipeSpecTests/Fixtures/hosts/hosts.yml")
        XCTAssertEqual(try schemaErrors(Self.schemaFile("hosts"), [hosts])[hosts.path], [])
    }

    func testSchemaRefusesWhatTheLoaderRefusesAndAcceptsWhatItAccepts() throws {
        let folder = try TemporaryDirectory(prefix: "pipe-schema")
        defer { folder.remove() }
        for kind in SchemaCommand.kinds {
            let cases = SchemaAgreementCases.all.enumerated().filter { $0.element.kind == kind }
            XCTAssertFalse(cases.isEmpty, "no cases for \(kind)")
            var files: [URL] = []
            for (index, item) in cases {
                let file = folder.appending("\(kind)-\(index).yml")
                try item.yaml.write(to: file, atomically: true, encoding: .utf8)
                files.append(file)
            }
            let schemaVerdicts = try schemaErrors(Self.schemaFile(kind), files)
            for ((_, item), file) in zip(cases, files) {
                let loaderErrors = SchemaAgreementCases.loaderErrors(kind, file, folder: folder.url)
                let schema = schemaVerdicts[file.path] ?? ["not checked"]
                let name = "\(kind) case '\(item.name)'"
                if let fragment = item.refusal {
                    XCTAssertTrue(
                        loaderErrors.contains { $0.contains(fragment) },
                        "\(name): the loader should refuse it with '\(fragment)', said \(loaderErrors)")
                    XCTAssertFalse(schema.isEmpty, "\(name): the loader refuses it, the schema accepts it")
                } else {
                    XCTAssertEqual(loaderErrors, [], "\(name): the loader should accept it")
                    XCTAssertEqual(schema, [], "\(name): the loader accepts it, the schema refuses it")
                }
            }
        }
    }
}
