import Foundation
import PipeCore
import PipeSpec

/// The pipeline a recorded run used, read again from the project folder (never from the checked-out ref), with
/// the run's own parameters: the sign-off rules and the flaky policy live there.
enum RunPipelineFile {
    /// The file: the recorded path when it still exists, else `pipelines/<pipeline>.yml` of the project.
    static func location(of record: RunRecord, project: ProjectFolder) -> URL {
        let recorded = URL(fileURLWithPath: record.pipelineFile, relativeTo: project.url).standardizedFileURL
        if FileManager.default.fileExists(atPath: recorded.path) { return recorded }
        for suffix in [".yml", ".yaml"] {
            let candidate = project.pipelinesFolder.appendingPathComponent(record.pipeline + suffix)
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
        }
        return recorded
    }

    /// Loads the run's pipeline; the error says which file and what is wrong with it.
    static func load(_ record: RunRecord, project: ProjectFolder, environment: [String: String]) throws(LoadFailure)
        -> Pipeline
    {
        let file = location(of: record, project: project)
        guard FileManager.default.fileExists(atPath: file.path) else {
            throw LoadFailure(file: relativePath(file, to: project.url), reason: "the file is gone")
        }
        var warnings = ""
        do {
            return try project.loadPipeline(
                file, parameters: record.request.parameters, environment: environment, warn: { warnings += $0 })
        } catch {
            throw LoadFailure(
                file: relativePath(file, to: project.url), reason: warnings + error.description)
        }
    }

    /// The pipeline file of a run could not be read.
    struct LoadFailure: Error, CustomStringConvertible {
        var file: String
        var reason: String
        var description: String { "cannot read \(file), the pipeline the run used: \(reason)" }
    }
}
