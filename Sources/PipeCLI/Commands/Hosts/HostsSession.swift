import Foundation
import PipeBasics
import PipeCore
import PipeSpec
import PipeStore

/// What every `pipe hosts …` and `pipe sims …` command works with: the command line, the project folder, its
/// hosts file and its run store (leases and health records).
///
/// The hosts file and the store are opened on first use, after a command has checked its options: a mistyped
/// option changes nothing.
final class HostsSession {
    let context: CommandContext
    let project: ProjectFolder
    /// `--hosts-file`, or `.pipe/hosts.yml`.
    let hostsFile: URL
    private var loadedHosts: [HostConfig]?
    private var openedStore: (RunStore & HostLeaseStore)?

    init(_ context: CommandContext) throws {
        self.context = context
        project = try context.projectFolder()
        hostsFile = context.hostsFile(of: project)
    }

    var arguments: ParsedArguments { context.arguments }
    var console: Console { context.console }
    var environment: [String: String] { context.environment }

    /// Every host of the hosts file, in file order.
    func hosts() throws -> [HostConfig] {
        if let loadedHosts { return loadedHosts }
        guard FileManager.default.fileExists(atPath: hostsFile.path) else {
            throw RequestError(
                "no hosts file at \(hostsFile.path): list your Mac hosts there (see docs/pipeline-format.md), or run "
                    + "`make mac-up` to start the emulated Mac host on this machine and write one")
        }
        let hosts: [HostConfig]
        do {
            hosts = try HostsFileLoader.load(path: hostsFile, environment: environment)
        } catch {
            throw HostsFileInvalid(errors: error)
        }
        loadedHosts = hosts
        return hosts
    }

    /// The hosts `names` name, in the order given (every host, in file order, when `names` is empty); an unknown
    /// name is a request error naming the nearest known one.
    func hosts(named names: [String]) throws -> [HostConfig] {
        let all = try hosts()
        guard !names.isEmpty else { return all }
        var chosen: [HostConfig] = []
        for name in names where !chosen.contains(where: { $0.name == name }) {
            guard let host = all.first(where: { $0.name == name }) else {
                let known = all.map(\.name)
                var message = "no host '\(name)' in \(displayPath(hostsFile))"
                if let near = EditDistance.nearest(to: name, in: known) { message += "; did you mean '\(near)'?" }
                throw RequestError(message + " (hosts: \(known.joined(separator: ", ")))")
            }
            chosen.append(host)
        }
        return chosen
    }

    /// The run store, opened once (which also marks the runs whose coordinator died; their processes on the hosts
    /// are left for `hosts clean`).
    var store: RunStore & HostLeaseStore {
        get throws {
            if let openedStore { return openedStore }
            let store = try StoreAccess.open(context, project: project, stoppingRemoteWork: false)
            openedStore = store
            return store
        }
    }

    /// A path as people see it: relative to the project folder when inside it.
    func displayPath(_ url: URL) -> String {
        relativePath(url, to: project.url)
    }

    /// A path from the hosts file with `~/` resolved against `HOME` (as the SSH connection resolves it).
    func expandingHome(_ path: String) -> String {
        guard path == "~" || path.hasPrefix("~/") else { return path }
        return (environment["HOME"] ?? NSHomeDirectory()) + path.dropFirst()
    }

    /// Runs `body` for each item on a thread of its own and returns the results in the items' order.
    ///
    /// SSH work blocks in `poll()`; on threads of their own, a host that takes its whole connect timeout does not
    /// hold up the others (nor Swift's cooperative pool).
    static func concurrently<Item, Result>(_ items: [Item], _ body: @escaping (Item) -> Result) -> [Result] {
        let results = ConcurrentResults<Result>(count: items.count)
        let group = DispatchGroup()
        for (index, item) in items.enumerated() {
            group.enter()
            let thread = Thread {
                results.set(index, body(item))
                group.leave()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        group.wait()
        return results.values()
    }
}

/// The hosts file has problems; each is already phrased `file:line:column: error: …`.
struct HostsFileInvalid: Error, CustomStringConvertible {
    var errors: SpecErrors
    var description: String { errors.description }
}

/// Results written by several threads, each to its own slot.
private final class ConcurrentResults<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [Value?]

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ value: Value) {
        lock.lock()
        slots[index] = value
        lock.unlock()
    }

    func values() -> [Value] {
        lock.lock()
        defer { lock.unlock() }
        return slots.map { $0! }
    }
}
