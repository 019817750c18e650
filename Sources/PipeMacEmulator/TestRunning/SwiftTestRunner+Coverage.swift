import Foundation

extension SwiftTestRunner {
    /// Where test processes write their raw coverage profiles.
    var profileFolder: String { scratchPath + "/codecov" }

    /// Clears the profiles of an earlier run, so a run measures only itself.
    func removeProfiles() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: profileFolder)) ?? []
        for name in names where name.hasSuffix(".profraw") {
            try? FileManager.default.removeItem(atPath: profileFolder + "/" + name)
        }
    }

    /// The run's coverage: its profiles merged (`llvm-profdata merge -sparse`), exported (`llvm-cov export
    /// -summary-only`) and read as xccov's targets; `nil` when the binary was not instrumented or a tool failed, as
    /// a Mac whose scheme gathered none answers.
    func measuredCoverage() -> [TestEvidence.CoverageTarget]? {
        let profiles = ((try? FileManager.default.contentsOfDirectory(atPath: profileFolder)) ?? []).filter {
            $0.hasSuffix(".profraw")
        }.sorted().map { profileFolder + "/" + $0 }
        guard !profiles.isEmpty, let binary = try? testBinary() else { return nil }
        let merged = profileFolder + "/merged.profdata"
        let exported = profileFolder + "/export.json"
        guard Self.runTool(toolPath("llvm-profdata"), ["merge", "-sparse"] + profiles + ["-o", merged], into: nil),
            Self.runTool(
                toolPath("llvm-cov"), ["export", "-summary-only", "-instr-profile", merged, binary], into: exported),
            let data = FileManager.default.contents(atPath: exported)
        else { return nil }
        return try? LLVMCoverageExport.targets(data, workspaceRoot: workspace.root.path)
    }

    /// The toolchain's own copy of `name`, beside `swift`, as Xcode's tools come with Xcode; else the system's.
    private func toolPath(_ name: String) -> String {
        let beside = (swift as NSString).deletingLastPathComponent + "/" + name
        if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        return "/usr/bin/" + name
    }

    /// Runs `tool` to its end, its standard output into the file `output` (or nowhere); whether it exited 0.
    private static func runTool(_ tool: String, _ arguments: [String], into output: String?) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        var handle: FileHandle?
        if let output {
            guard FileManager.default.createFile(atPath: output, contents: nil) else { return false }
            handle = FileHandle(forWritingAtPath: output)
            guard handle != nil else { return false }
        }
        defer { try? handle?.close() }
        process.standardOutput = handle ?? FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return false
        }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
