import Foundation

/// The emulated `xcodebuild`: `-version`, `-list`, the `test`, `build-for-testing` and `test-without-building`
/// actions, and the release pair `archive` and `-exportArchive`.
struct Xcodebuild {
    let context: EmulatorContext

    func run(_ arguments: [String]) -> Int32 {
        let parsed: XcodebuildArguments
        switch XcodebuildArguments.parse(arguments) {
        case .success(let value): parsed = value
        case .failure(let error):
            context.stderr.line(error.message)
            return error.exitCode
        }
        if parsed.showVersion {
            guard let (config, _) = context.loadHost() else { return EmulatorContext.configurationExitCode }
            context.stdout.line("Xcode \(config.xcode.version)")
            context.stdout.line("Build version \(config.xcode.build)")
            return 0
        }
        if parsed.list { return list(parsed, arguments: arguments) }
        let log = XcodebuildInvocationLog(configPath: context.environment[Emulator.configEnvironmentKey])
        if parsed.exportArchive {
            log.append(arguments)
            return XcodebuildExportAction(context: context, arguments: parsed).run()
        }
        if parsed.actions == ["archive"] {
            log.append(arguments)
            return XcodebuildArchiveAction(context: context, arguments: parsed, commandLine: arguments).run()
        }
        guard parsed.actions.count == 1, let action = XcodebuildTestAction.Action(rawValue: parsed.actions[0]) else {
            let error = XcodebuildError.unsupportedAction(parsed.actions)
            context.stderr.line(error.message)
            return error.exitCode
        }
        log.append(arguments)
        return XcodebuildTestAction(context: context, arguments: parsed, commandLine: arguments, action: action).run()
    }

    /// `xcodebuild -list`: the schemes the host shares for the workspace.
    private func list(_ parsed: XcodebuildArguments, arguments: [String]) -> Int32 {
        guard let (config, _) = context.loadHost() else { return EmulatorContext.configurationExitCode }
        do {
            let workspace = try XcodebuildTestAction.resolveWorkspace(parsed, context: context)
            context.stdout.line("Command line invocation:")
            context.stdout.line("    \(XcodebuildTestAction.invocation(arguments))")
            context.stdout.line()
            context.stdout.line("Information about \(workspace.containerKind) \"\(workspace.containerName)\":")
            context.stdout.line("    Schemes:")
            for scheme in config.sharedSchemes { context.stdout.line("        \(scheme)") }
            context.stdout.line()
            return 0
        } catch let error as XcodebuildError {
            context.stderr.line(error.message)
            return error.exitCode
        } catch {
            context.stderr.line("xcodebuild: error: \(error)")
            return 1
        }
    }
}
