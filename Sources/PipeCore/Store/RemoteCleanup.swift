import Foundation
import PipeBasics

/// A run folder left on a host that the host's clean-up must remove.
public struct RemoteCleanup: Sendable, Equatable {
    public var runID: String
    public var hostName: String?
    public var remoteRunFolder: String
    public var status: RunStatus

    public init(runID: String, hostName: String?, remoteRunFolder: String, status: RunStatus) {
        self.runID = runID
        self.hostName = hostName
        self.remoteRunFolder = remoteRunFolder
        self.status = status
    }
}
