import Foundation
import PipeCore

/// `pipe completions <shell>`: the completion script for bash, zsh or fish. The script calls the hidden
/// `pipe __complete <words…>`, answered by ``CompletionEngine`` from the command tree that prints `--help`.
enum CompletionsCommand {
    /// The hidden command the scripts call; it never appears in help or on the man page.
    static let hiddenCommand = "__complete"

    static let spec = CommandSpec(
        name: "completions",
        summary: "Print the shell completion script for bash, zsh or fish.",
        discussion: """
            The script completes commands, options, option values, and the pipelines, layers, hosts and run ids \
            of the project folder (read from its files and the SQLite store; nothing over SSH).

              source <(pipe completions bash)
              pipe completions zsh > "${fpath[1]}/_pipe"
              pipe completions fish > ~/.config/fish/completions/pipe.fish
            """,
        arguments: [.required("shell", help: "bash, zsh or fish.")])

    static func execute(_ context: CommandContext) throws -> Int32 {
        let typed = context.arguments.argument("shell") ?? ""
        guard let shell = CompletionScripts.Shell(rawValue: typed) else {
            let known = CompletionScripts.Shell.allCases.map(\.rawValue).joined(separator: ", ")
            throw RequestError("no completions for shell '\(typed)'; choose one of \(known)")
        }
        context.console.out(CompletionScripts.script(for: shell))
        return 0
    }

    /// `pipe __complete <words…>`: one answer a line; never fails, since a shell shows errors mid-line.
    static func answer(
        _ words: [String], environment: [String: String], currentDirectory: URL, console: Console
    ) -> Int32 {
        let engine = CompletionEngine(
            root: PipeCommandLine.root,
            names: CompletionNames(currentDirectory: currentDirectory, environment: environment))
        let answers = engine.complete(words.isEmpty ? [""] : words)
        if !answers.isEmpty { console.out(answers.joined(separator: "\n") + "\n") }
        return 0
    }
}
