import Foundation
import PipeApple
import PipeBasics
import PipeCore
import PipeSSH

/// Checks one host as a run would use it: connection, host key, login, Xcode, simulators, free disk in the work
/// folder, and the round trip of a trivial command. Runs only the tools of docs/host-tools.md.
enum HostProbe {
    /// Below this much free disk in the work folder a host is unusable: a build and its result bundles need more.
    static let minimumFreeBytes: Int64 = 2_000_000_000
    /// Below this much, a warning.
    static let lowFreeBytes: Int64 = 20_000_000_000
    /// Round trips measured for the latency (its median is reported).
    static let latencySamples = 5
    static let commandSeconds: Double = 60

    /// Checks `host`; never throws: whatever fails is a problem of the result, named by stage.
    static func check(_ host: HostConfig, environment: [String: String]) -> HostCheckResult {
        var result = HostCheckResult(host: host, checkedAt: Date())
        let session: SSHSession
        do {
            session = try SSHSession.connect(to: host, environment: environment)
        } catch let error as RemoteError {
            recordConnectionFailure(error, of: host, into: &result)
            return result
        } catch {
            result.problems.append(.init(stage: .connection, message: "\(error)"))
            return result
        }
        defer { session.disconnect(description: "pipe hosts check is done") }
        result.reachable = true
        result.keyType = session.hostKey.displayType
        result.fingerprint = session.hostKeyFingerprint
        result.keyStatus = "trusted"
        result.authenticated = true
        result.connectSeconds = session.connectSeconds

        let remote = SSHRemoteHost(session: session)
        do {
            try checkXcode(on: remote, into: &result)
            try checkSimulators(on: remote, into: &result)
            try checkDisk(on: remote, into: &result)
            try measureLatency(on: remote, into: &result)
        } catch let error as RemoteError {
            // The connection dropped, or a command could not even start.
            result.problems.append(.init(stage: .connection, message: error.message))
        } catch {
            result.problems.append(.init(stage: .connection, message: "\(error)"))
        }
        return result
    }

    // MARK: - Steps

    private static func recordConnectionFailure(
        _ error: RemoteError, of host: HostConfig, into result: inout HostCheckResult
    ) {
        switch error.kind {
        case .hostKeyUnknown, .hostKeyChanged:
            result.reachable = true
            result.keyStatus = error.kind == .hostKeyUnknown ? "unknown" : "changed"
            result.problems.append(.init(stage: .hostKey, message: error.message))
            fillKey(of: host, into: &result)
        case .authentication:
            result.reachable = true
            result.keyStatus = "trusted"
            result.authenticated = false
            result.problems.append(.init(stage: .authentication, message: error.message))
            fillKey(of: host, into: &result)
        default:
            result.problems.append(.init(stage: .connection, message: error.message))
        }
    }

    /// The key's type and fingerprint, fetched again without checking it: the refusal only had them as text.
    private static func fillKey(of host: HostConfig, into result: inout HostCheckResult) {
        guard let key = try? SSHSession.fetchHostKey(of: host) else { return }
        result.keyType = key.displayType
        result.fingerprint = key.fingerprint
    }

    private static func checkXcode(on remote: SSHRemoteHost, into result: inout HostCheckResult) throws {
        switch try xcodeVersion(on: remote, developerDirectory: nil) {
        case .success(let version):
            result.xcode = version
            if let label = result.host.labels["xcode"], result.host.xcodes[label] == nil,
                !matches(label: label, version: version)
            {
                result.warnings.append(
                    "its label xcode=\(label) does not match the selected \(version); fix the label, or map it to "
                        + "an Xcode with `xcodes` in the hosts file")
            }
        case .failure(let message):
            result.problems.append(.init(stage: .xcode, message: message))
        }
        for (label, path) in result.host.xcodes.sorted(by: { $0.key < $1.key }) {
            var entry = HostCheckResult.XcodeEntry(label: label, developerDirectory: path)
            switch try xcodeVersion(on: remote, developerDirectory: path) {
            case .success(let version):
                entry.version = version.description
                if !matches(label: label, version: version) {
                    result.warnings.append("xcodes \(label) (\(path)) is \(version), not \(label)")
                }
            case .failure(let message):
                entry.error = message
                result.problems.append(.init(stage: .xcode, message: "xcodes \(label) (\(path)): " + message))
            }
            result.xcodes.append(entry)
        }
    }

    private enum VersionAnswer {
        case success(XcodeVersion)
        case failure(String)
    }

    private static func xcodeVersion(on remote: SSHRemoteHost, developerDirectory: String?) throws -> VersionAnswer {
        let command =
            (developerDirectory.map { "DEVELOPER_DIR=\(ShellQuote.quote($0)) " } ?? "") + "xcodebuild -version"
        let output = try remote.capture(command, timeoutSeconds: commandSeconds)
        guard output.exit == .exited(0) else {
            let detail = firstLine(output.stderrText) ?? firstLine(output.stdoutText) ?? "no output"
            return .failure(
                "`\(command)` failed (\(output.exit.artifactText)): \(detail); check that Xcode is installed, selected "
                    + "(`xcode-select -p`) and its license accepted (`sudo xcodebuild -license accept`)")
        }
        do {
            return .success(try XcodeVersion.parse(output.stdoutText))
        } catch {
            return .failure("`\(command)` named no Xcode: \(error)")
        }
    }

    /// `16.2` matches Xcode 16.2 and 16.2.1; `16` matches any 16.x.
    private static func matches(label: String, version: XcodeVersion) -> Bool {
        guard let wanted = NumericVersion(label) else { return true }
        return Array(version.version.components.prefix(wanted.components.count)) == wanted.components
    }

    private static func checkSimulators(on remote: SSHRemoteHost, into result: inout HostCheckResult) throws {
        switch try listSimulators(on: remote) {
        case .failure(let message):
            result.problems.append(.init(stage: .simulators, message: message))
        case .success(let simulators):
            result.simulators = simulators
            let unavailable = simulators.count - result.availableSimulators.count
            if result.availableSimulators.isEmpty {
                result.problems.append(
                    .init(
                        stage: .simulators,
                        message: "no available simulator (\(simulators.count) listed, none usable); install a "
                            + "simulator runtime (Xcode › Settings › Platforms) or create a simulator with "
                            + "`xcrun simctl create`"))
            } else if unavailable > 0 {
                result.warnings.append(
                    "\(unavailable) simulator\(unavailable == 1 ? " is" : "s are") unavailable (`pipe sims list` "
                        + "says why)")
            }
        }
    }

    /// Every simulator of the host, available or not (`xcrun simctl list devices -j`).
    enum SimulatorListing {
        case success([Simulator])
        case failure(String)
    }

    static func listSimulators(on remote: RemoteHost) throws -> SimulatorListing {
        let command = "xcrun simctl list devices -j"
        let output = try remote.capture(command, timeoutSeconds: commandSeconds)
        guard output.exit == .exited(0) else {
            let detail = firstLine(output.stderrText) ?? "no output"
            return .failure(
                "`\(command)` failed (\(output.exit.artifactText)): \(detail); check that Xcode and its simulator "
                    + "runtimes are installed")
        }
        do {
            return .success(try SimctlListParser.parse(output.stdout))
        } catch {
            return .failure("the simulator list could not be read: \(error)")
        }
    }

    /// Walks up from the work folder to the nearest folder that exists (a host never used has none yet), then
    /// prints it and `df -P -k` of it. `-P` gives one line per file system on macOS and Linux alike.
    static let freeDiskScript =
        "d=$1; case \"$d\" in '~/'*) d=${d#??} ;; '~') d=. ;; esac; while [ ! -d \"$d\" ]; do case \"$d\" in "
        + "*/*) d=${d%/*}; [ -n \"$d\" ] || d=/ ;; *) d=. ;; esac; done; cd \"$d\" && echo \"pipe-folder $(pwd)\" "
        + "&& df -P -k ."

    private static func checkDisk(on remote: SSHRemoteHost, into result: inout HostCheckResult) throws {
        let folder = result.host.workDirectory
        let command = ShellQuote.join(["/bin/sh", "-c", freeDiskScript, "pipe-free-disk", folder])
        let output = try remote.capture(command, timeoutSeconds: commandSeconds)
        let lines = output.stdoutText.split(separator: "\n").map(String.init)
        guard output.exit == .exited(0), let measured = lines.first(where: { $0.hasPrefix("pipe-folder ") }),
            let free = freeKilobytes(dfLines: lines)
        else {
            let detail = firstLine(output.stderrText) ?? firstLine(output.stdoutText) ?? "no output"
            result.problems.append(
                .init(stage: .disk, message: "could not measure the free space for \(folder): \(detail)"))
            return
        }
        let bytes = free * 1024
        result.diskFolder = String(measured.dropFirst("pipe-folder ".count))
        result.freeBytes = bytes
        let shown = RunsFormatting.bytes(bytes)
        if bytes < minimumFreeBytes {
            result.problems.append(
                .init(
                    stage: .disk,
                    message:
                        "only \(shown) free in \(result.diskFolder ?? folder) (work-dir \(folder)); a run needs at "
                        + "least \(RunsFormatting.bytes(minimumFreeBytes)): free space on the host (`pipe hosts clean` "
                        + "removes what Pipe left there)"))
        } else if bytes < lowFreeBytes {
            result.warnings.append("only \(shown) free in \(result.diskFolder ?? folder)")
        }
    }

    /// The `Available` column of `df -P -k`'s last line: the field before the one ending in `%`, so a file system
    /// name with spaces does not shift it.
    static func freeKilobytes(dfLines lines: [String]) -> Int64? {
        guard let last = lines.last(where: { !$0.hasPrefix("pipe-folder ") && !$0.hasPrefix("Filesystem") }) else {
            return nil
        }
        let fields = last.split(separator: " ", omittingEmptySubsequences: true)
        guard let percent = fields.lastIndex(where: { $0.hasSuffix("%") }), percent >= 1 else { return nil }
        return Int64(fields[percent - 1])
    }

    private static func measureLatency(on remote: SSHRemoteHost, into result: inout HostCheckResult) throws {
        for _ in 0..<latencySamples {
            let started = DispatchTime.now().uptimeNanoseconds
            let output = try remote.capture("true", timeoutSeconds: 10)
            guard output.exit == .exited(0) else { continue }
            result.latencies.append(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9)
        }
    }

    static func firstLine(_ text: String) -> String? {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty }
    }
}
