import Foundation
import PipeBasics
import PipeCore

/// Writes what a sign-off changed into a run's folder: `summary.json` again from the store's record, and the
/// layer's `signoffs.json` (every sign-off of the layer, oldest first, with its fields), recorded as an artifact.
enum SignoffFiles {
    static let fileName = "signoffs.json"

    /// Writes both files and returns the run as the store now has it.
    @discardableResult
    static func write(runID: String, layer: String, store: RunStore, project: ProjectFolder) throws -> StoredRun {
        let folder = project.artifactsFolder.appendingPathComponent(runID, isDirectory: true)
        let layerFolder = folder.appendingPathComponent(layer, isDirectory: true)
        try FileManager.default.createDirectory(at: layerFolder, withIntermediateDirectories: true)

        var fieldsByID: [Int64: SignoffEvent] = [:]
        var after: Int64 = 0
        while true {
            let events = try store.events(runID: runID, after: after, layer: layer, limit: 500)
            for event in events where event.type == SignoffEvent.type {
                if let decoded = try? JSONDecoder().decode(SignoffEvent.self, from: Data(event.payload.utf8)) {
                    fieldsByID[decoded.signoffID] = decoded
                }
            }
            guard let last = events.last else { break }
            after = last.sequence
        }
        let signoffs = try store.signoffs(runID: runID).filter { $0.layer == layer }
        let entries: [[String: Any]] = signoffs.enumerated().map { index, signoff in
            let event = fieldsByID[signoff.id]
            return [
                "id": signoff.id, "decision": signoff.decision.rawValue,
                "result": event?.result ?? (signoff.decision == .signedOff ? "pass" : "fail"),
                "signedBy": signoff.signedBy, "at": UTCTimestamp.iso8601(signoff.at),
                "note": RunsJSON.orNull(event?.note ?? signoff.note), "fields": event?.fields ?? [:],
                "current": index == signoffs.count - 1,
            ]
        }
        let url = layerFolder.appendingPathComponent(fileName)
        let data = try JSONSerialization.data(
            withJSONObject: ["runID": runID, "layer": layer, "signoffs": entries] as [String: Any],
            options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        try data.write(to: url, options: .atomic)
        try store.recordArtifacts(
            [
                ArtifactRecord(
                    kind: .other, path: relativePath(url, to: project.url), bytes: Int64(data.count),
                    sha256: SHA256Digest.hex(of: data))
            ], runID: runID, layer: layer, attempt: nil)

        guard let run = try store.run(runID) else {
            throw RequestError("run \(runID) is no longer in the run store; `pipe runs list` shows the runs")
        }
        if FileManager.default.fileExists(atPath: folder.path) {
            try run.record.write(to: folder.appendingPathComponent("summary.json"))
        }
        return run
    }
}
