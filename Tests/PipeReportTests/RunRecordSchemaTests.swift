import Foundation
import PipeCore
import PipeReport
import PipeTestSupport
import XCTest

/// `docs/schema/run-record.schema.json` describes `RunRecord` exactly as `RunRecord.write(to:)` writes it.
final class RunRecordSchemaTests: XCTestCase {
    static let schemaURL = RepositoryPaths.root.appendingPathComponent("docs/schema/run-record.schema.json")

    private func validator() throws -> JSONSchemaValidator {
        try JSONSchemaValidator(schema: try JSONSchemaValidator.readJSON(Self.schemaURL))
    }

    /// The record as `summary.json` holds it, read back the way the validator reads values.
    private func written(_ record: RunRecord) throws -> Any {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let url = folder.appending("summary.json")
        try record.write(to: url)
        return try JSONSchemaValidator.readJSON(url)
    }

    func testARecordWithEveryFieldSetIsValid() throws {
        let errors = try validator().validate(try written(SampleRecords.everyField()))
        XCTAssertEqual(errors, [])
    }

    func testARecordOfARunInProgressIsValid() throws {
        XCTAssertEqual(try validator().validate(try written(SampleRecords.inProgress())), [])
    }

    /// The reverse of `additionalProperties: false`: every property the schema declares is one the record writes,
    /// so the schema holds no field RunRecord lost.
    func testEveryPropertyOfTheSchemaIsWrittenByARecordWithEveryFieldSet() throws {
        let schema = try JSONSchemaValidator.readJSON(Self.schemaURL) as? [String: Any] ?? [:]
        let definitions = schema["$defs"] as? [String: Any] ?? [:]
        var declared: Set<String> = []
        func collect(_ node: [String: Any], _ prefix: String) {
            if let reference = node["$ref"] as? String,
                let target = definitions[String(reference.dropFirst("#/$defs/".count))] as? [String: Any]
            {
                collect(target, prefix)
            }
            for (key, member) in node["properties"] as? [String: Any] ?? [:] {
                declared.insert(prefix + "/" + key)
                if let memberSchema = member as? [String: Any] { collect(memberSchema, prefix + "/" + key) }
            }
            if let items = node["items"] as? [String: Any] { collect(items, prefix + "/[]") }
        }
        collect(schema, "")
        var writtenKeys: Set<String> = []
        func walk(_ value: Any, _ prefix: String, mapKeys: Bool) {
            if let object = value as? [String: Any] {
                for (key, member) in object {
                    // `parameters` and `facts` are maps: their keys are data, not fields.
                    if mapKeys { continue }
                    writtenKeys.insert(prefix + "/" + key)
                    walk(member, prefix + "/" + key, mapKeys: key == "parameters" || key == "facts")
                }
            } else if let array = value as? [Any] {
                for element in array { walk(element, prefix + "/[]", mapKeys: false) }
            }
        }
        walk(try written(SampleRecords.everyField()), "", mapKeys: false)
        XCTAssertEqual(declared.subtracting(writtenKeys).sorted(), [], "declared in the schema, never written")
        XCTAssertEqual(writtenKeys.subtracting(declared).sorted(), [], "written, not declared")
    }

    /// Real records: the `summary.json` of every `pipe report` golden case.
    func testTheRecordsOfEveryGoldenCaseAreValid() throws {
        let validator = try validator()
        var checked = 0
        for name in try ReportGoldenTests.caseNames() {
            let url = ReportGoldenTests.casesFolder.appendingPathComponent("\(name)/expected/summary.json")
            guard FileManager.default.fileExists(atPath: url.path) else { continue }
            XCTAssertEqual(validator.validate(try JSONSchemaValidator.readJSON(url)), [], "case \(name)")
            checked += 1
        }
        XCTAssertGreaterThan(checked, 30)
    }

    func testTheValidatorFindsWhatIsWrong() throws {
        let validator = try validator()
        guard var record = try written(SampleRecords.everyField()) as? [String: Any],
            var layers = record["layers"] as? [Any], var layer = layers.first as? [String: Any]
        else { return XCTFail("the sample record has no layer") }

        var missing = record
        missing["runID"] = nil
        XCTAssertEqual(validator.validate(missing), ["/: the required key \"runID\" is missing"])

        var extra = record
        extra["verdict"] = "passed"
        XCTAssertEqual(validator.validate(extra), ["/: the key \"verdict\" is not in the schema"])

        var wrongType = record
        wrongType["exitCode"] = "1"
        XCTAssertEqual(validator.validate(wrongType), ["/exitCode: expected integer, found \"1\""])

        layer["outcome"] = "green"
        layers[0] = layer
        record["layers"] = layers
        XCTAssertEqual(validator.validate(record).count, 1)
        XCTAssertTrue(
            validator.validate(record).first?.hasPrefix("/layers/0/outcome: \"green\" is not one of") ?? false)
    }

    func testTheValidatorRefusesKeywordsItDoesNotImplement() {
        XCTAssertThrowsError(try JSONSchemaValidator(schema: ["type": "string", "pattern": "^a"]))
        XCTAssertThrowsError(try JSONSchemaValidator(schema: ["properties": ["a": ["minimum": 1]]]))
        XCTAssertNoThrow(try JSONSchemaValidator(schema: ["type": "string", "description": "ok"]))
    }
}
