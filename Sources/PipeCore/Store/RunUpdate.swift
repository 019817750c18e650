import Foundation
import PipeBasics

/// Run-level fields to change; `nil` leaves a field as it is.
public struct RunUpdate: Sendable {
    public var status: RunStatus?
    public var commit: String?
    public var resolvedRef: String?
    public var code: CodeTrust?
    public var host: RunRecord.HostFacts?
    public var xcode: String?
    public var simulator: SimulatorChoice?
    public var remoteRunFolder: String?
    public var finishedAt: String?
    public var durationSeconds: Double?
    public var exitCode: Int32?
    public var problem: String?

    public init(
        status: RunStatus? = nil, commit: String? = nil, resolvedRef: String? = nil, host: RunRecord.HostFacts? = nil,
        xcode: String? = nil, simulator: SimulatorChoice? = nil, remoteRunFolder: String? = nil,
        finishedAt: String? = nil, durationSeconds: Double? = nil, exitCode: Int32? = nil, problem: String? = nil,
        code: CodeTrust? = nil
    ) {
        self.status = status
        self.commit = commit
        self.resolvedRef = resolvedRef
        self.host = host
        self.xcode = xcode
        self.simulator = simulator
        self.remoteRunFolder = remoteRunFolder
        self.finishedAt = finishedAt
        self.durationSeconds = durationSeconds
        self.exitCode = exitCode
        self.problem = problem
        self.code = code
    }

    /// Every run-level field of `record` (not its layers), so the engine can write what it just changed.
    public init(runFieldsOf record: RunRecord) {
        self.init(
            status: record.status, commit: record.commit, resolvedRef: record.resolvedRef, host: record.host,
            xcode: record.xcode, simulator: record.simulator, remoteRunFolder: record.remoteRunFolder,
            finishedAt: record.finishedAt, durationSeconds: record.durationSeconds, exitCode: record.exitCode,
            problem: record.problem, code: record.code)
    }
}
