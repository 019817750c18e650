import Foundation
import PipeCore

/// One run as the runs list shows it, and as its JSON twin gives it.
public struct WebRunRow: Sendable, Equatable, Encodable {
    public var runID: String
    public var pipeline: String
    public var branch: String
    public var status: String
    public var trigger: String
    public var requestedBy: String
    public var reason: String?
    /// The merge and release gates' verdicts (`passed`, `failed`, `pending-signoff`, `could-not-judge`).
    public var merge: String
    public var release: String
    public var commit: String?
    public var host: String?
    public var durationSeconds: Double?
    public var startedAt: String

    public init(_ run: StoredRun) {
        let record = WebRunRow.withSignoffs(run)
        runID = record.runID
        pipeline = record.pipeline
        branch = record.resolvedRef ?? record.request.ref
        status = record.status.rawValue
        trigger = record.request.trigger
        requestedBy = record.request.requestedBy
        reason = record.request.reason
        merge = GateEvaluation.evaluate(.merge, record: record).verdict.rawValue
        release = GateEvaluation.evaluate(.release, record: record).verdict.rawValue
        commit = record.commit
        host = record.host?.name
        durationSeconds = record.durationSeconds
        startedAt = record.startedAt
    }

    /// The record with each manual layer's latest sign-off applied, as the gates judge it.
    public static func withSignoffs(_ run: StoredRun) -> RunRecord {
        var record = run.record
        for index in record.layers.indices {
            if let latest = run.signoffs.last(where: { $0.layer == record.layers[index].name }) {
                record.layers[index].outcome = latest.decision.outcome
            }
        }
        return record
    }
}

/// Which runs the list shows: the query string's `pipeline`, `branch`, `status`, `trigger` and `person`.
public struct WebRunsFilter: Sendable, Hashable {
    public var pipeline: String?
    public var branch: String?
    public var status: String?
    public var trigger: String?
    public var person: String?
    /// Runs read from the store before the filters the store cannot apply.
    public static let scanned = 200
    /// Rows shown.
    public static let shown = 50

    public init(query: [String: String]) {
        func value(_ name: String) -> String? {
            guard let text = query[name]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
            return String(text.prefix(200))
        }
        pipeline = value("pipeline")
        branch = value("branch")
        status = value("status")
        trigger = value("trigger")
        person = value("person")
    }

    public var storeFilter: RunFilter {
        RunFilter(
            pipeline: pipeline, statuses: status.flatMap(RunStatus.init(rawValue:)).map { [$0] } ?? [],
            limit: Self.scanned)
    }

    public func matches(_ row: WebRunRow) -> Bool {
        if let branch, row.branch != branch { return false }
        if let status, row.status != status { return false }
        if let trigger, row.trigger != trigger { return false }
        if let person, !row.requestedBy.localizedCaseInsensitiveContains(person) { return false }
        return true
    }

    /// The filter as a query string (for the live updates' address), without the leading `?`.
    public var queryString: String {
        [("pipeline", pipeline), ("branch", branch), ("status", status), ("trigger", trigger), ("person", person)]
            .compactMap { name, value in value.map { "\(name)=\(HTMLText.urlComponent($0))" } }
            .joined(separator: "&")
    }
}
