import Foundation
import PipeBasics
import PipeCore
import PipeServer

/// The controller's stdout: its own notices and the events of every run it runs, interleaved, in the styles of
/// `pipe run` (plain timestamped lines, or JSON lines with `--json`), each line naming its run.
///
/// Runs run on threads of their own: every write is one whole chunk of lines under a lock, so lines of two runs
/// never mix.
final class ControllerOutput: ControllerLog, @unchecked Sendable {
    private let json: Bool
    private let write: (String) -> Void
    private let lock = NSLock()
    private let clock: () -> Date

    init(json: Bool, clock: @escaping () -> Date = Date.init, write: @escaping (String) -> Void) {
        self.json = json
        self.clock = clock
        self.write = write
    }

    func notice(_ notice: ControllerNotice) {
        let time = UTCTimestamp.iso8601(clock())
        if json {
            var object: [String: String] = notice.fields
            object["event"] = "controller"
            object["kind"] = notice.kind
            object["time"] = time
            object["message"] = notice.message
            if let runID = notice.runID { object["run"] = runID }
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
            emit(String(decoding: data, as: UTF8.self) + "\n")
        } else {
            let mark = notice.isProblem ? "!" : "▸"
            let lines = notice.message.split(separator: "\n", omittingEmptySubsequences: false)
            let text = lines.enumerated().map { index, line in
                index == 0 ? "controller \(time) \(mark) \(line)" : "controller \(time)     \(line)"
            }.joined(separator: "\n")
            emit(text + "\n")
        }
    }

    /// The renderer for one run's events: `pipe run`'s plain view or JSON lines, each line marked with the run id.
    func renderer(runID: String, redactor: SecretRedactor) -> EventSink {
        if json {
            return JSONLinesRenderer(redactor: redactor) { [self] text in
                emit(Self.splicing(runID: runID, intoJSONLines: text))
            }
        }
        return LiveRenderer(style: .plain, verbose: false, redactor: redactor) { [self] text in
            emit(Self.prefixing(runID: runID, text))
        }
    }

    private func emit(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        write(text)
    }

    /// `{"event":…}` → `{"run":"<id>","event":…}` for every line.
    static func splicing(runID: String, intoJSONLines text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            guard line.hasPrefix("{") else { return String(line) }
            return "{\"run\":\"\(runID)\"," + line.dropFirst()
        }.joined(separator: "\n")
    }

    /// Puts the run id before every line of `text`.
    static func prefixing(runID: String, _ text: String) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let endsWithNewline = lines.last == ""
        if endsWithNewline { lines.removeLast() }
        return lines.map { "\(runID) \($0)" }.joined(separator: "\n") + (endsWithNewline ? "\n" : "")
    }
}
