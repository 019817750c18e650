import Foundation

/// Runs this very test binary again as a separate process that does one job: how tests get real concurrent
/// processes (8 writers on one store, lease contenders, a process to `kill -9`) without a helper executable.
///
/// The child runs only the test named by `testFilter`, which reads its job from `environmentKey` and returns at
/// once when the variable is absent (as it is in the normal test run).
public enum TestBinaryWorker {
    /// Starts a worker for `job`; its stdout and stderr go to `output`.
    public static func start<Job: Encodable>(
        _ job: Job, testFilter: String, environmentKey: String, output: URL
    ) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0])
        process.arguments = [testFilter]
        var environment = ProcessInfo.processInfo.environment
        environment[environmentKey] = String(decoding: try JSONEncoder().encode(job), as: UTF8.self)
        process.environment = environment
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        return process
    }

    /// The job of this process, when it is a worker started with `environmentKey`.
    public static func job<Job: Decodable>(_ type: Job.Type, environmentKey: String) throws -> Job? {
        guard let text = ProcessInfo.processInfo.environment[environmentKey] else { return nil }
        return try JSONDecoder().decode(Job.self, from: Data(text.utf8))
    }
}
