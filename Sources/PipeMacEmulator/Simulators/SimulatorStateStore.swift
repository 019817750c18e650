import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Simulator state that changes at run time (boots, shutdowns, installed apps), kept next to the host config.
///
/// For `…/host.json` the file is `…/host.state.json`. Its entries win over the config's `state` for the same UDID;
/// delete the file to start from the config again. Every change holds an exclusive `flock` on the file, so
/// concurrent `simctl` and `xcodebuild` invocations on one host do not lose each other's updates.
final class SimulatorStateStore {
    /// What the emulator remembers about one simulator.
    struct DeviceRecord: Codable, Equatable {
        var state: String
        var lastBootedAt: String?
        /// Installed apps: bundle identifier → the `.app` path given to `simctl install`.
        var installedApps: [String: String]?
        /// Set for a device `simctl create` made (it is not in the host config).
        var created: CreatedDevice?
        /// `simctl delete` removed this device of the host config.
        var deleted: Bool?
    }

    /// A device `simctl create` made: what the config would say about it.
    struct CreatedDevice: Codable, Equatable {
        var name: String
        var deviceType: String
        var runtime: String
    }

    let url: URL

    init(configURL: URL) {
        let base = configURL.deletingPathExtension().lastPathComponent
        url = configURL.deletingLastPathComponent().appendingPathComponent(base + ".state.json")
    }

    /// The current records (empty when nothing was changed yet).
    func read() -> [String: DeviceRecord] {
        (try? update { _ in }).map { $0.1 } ?? [:]
    }

    /// Reads, lets `body` change the records, and writes them back, all under the file lock.
    @discardableResult
    func update<T>(_ body: (inout [String: DeviceRecord]) throws -> T) throws -> (T, [String: DeviceRecord]) {
        let descriptor = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw SimulatorStateError(path: url.path, reason: String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            if errno != EINTR { throw SimulatorStateError(path: url.path, reason: String(cString: strerror(errno))) }
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
        let existing = try handle.readToEnd() ?? Data()
        var records: [String: DeviceRecord] = [:]
        if !existing.isEmpty {
            do {
                records = try JSONDecoder().decode([String: DeviceRecord].self, from: existing)
            } catch {
                throw SimulatorStateError(path: url.path, reason: "not a state file (\(error)); delete it to reset")
            }
        }
        let before = records
        let result = try body(&records)
        if records != before {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let data = try encoder.encode(records)
            guard ftruncate(descriptor, 0) == 0, lseek(descriptor, 0, SEEK_SET) == 0 else {
                throw SimulatorStateError(path: url.path, reason: String(cString: strerror(errno)))
            }
            try handle.write(contentsOf: data)
        }
        return (result, records)
    }
}

/// The state file next to the host config could not be used.
struct SimulatorStateError: Error, CustomStringConvertible {
    let path: String
    let reason: String

    var description: String { "pipe-mac-emulator: simulator state file \(path): \(reason)" }
}
