import Foundation
import PipeBasics
import PipeCore
import PipeWeb

/// `pipe web users add|remove|passwd <name> --config web.yml`: the users of the page's own sign-in. The password
/// is read from the terminal (not echoed, asked twice) or from the first line of stdin, never from the arguments,
/// where other accounts could read it.
enum WebUsersCommand {
    static let spec = CommandSpec(
        name: "users",
        summary: "Add, remove or change the password of a user of the web page's own sign-in.",
        discussion: """
            The users file is the config's `web.users-file`, one `name:scrypt$…` line per user, written with \
            mode 0600. A running page reads it at each sign-in: no restart is needed.

            Examples:
              pipe web users add alice --config .pipe/web.yml          # asks for the password twice
              printf '%s\\n' "$PASSWORD" | pipe web users passwd alice --config .pipe/web.yml
              pipe web users remove alice --config .pipe/web.yml
            """,
        options: [.value("config", valueName: "path", help: "The file holding the `web:` section (required).")],
        subcommands: [
            CommandSpec(
                name: "add", summary: "Add a user (refused when the name exists).",
                arguments: [.required("name", help: "The user name: letters, digits, . _ - @ +.")]),
            CommandSpec(
                name: "remove", summary: "Remove a user.", arguments: [.required("name", help: "The user name.")]),
            CommandSpec(
                name: "passwd", summary: "Change a user's password.",
                arguments: [.required("name", help: "The user name.")]),
        ])

    static func execute(_ path: [String], _ context: CommandContext) throws -> Int32 {
        guard path.count == 3 else {
            context.console.err((PipeCommandLine.tool.helpText(for: ["web", "users"]) ?? "") + "\n")
            return PipeExitCode.usage.rawValue
        }
        guard let (config, configURL) = try WebCommand.config(context) else { return PipeExitCode.usage.rawValue }
        guard let relative = config.usersFile else {
            throw RequestError("\(configURL.path) has no web.users-file: say where the page's users are kept")
        }
        let url = URL(fileURLWithPath: relative, relativeTo: configURL.deletingLastPathComponent()).standardizedFileURL
        let name = context.arguments.argument("name") ?? ""
        guard WebUsersFile.isValidName(name) else {
            throw RequestError("'\(name)' is not a user name: use letters, digits and . _ - @ + (at most 64)")
        }
        var users = try requestError { try WebUsersFile.read(url) }
        switch path[2] {
        case "add", "passwd":
            let exists = users.hashes[name] != nil
            if path[2] == "add", exists {
                throw RequestError("\(name) is already a user; change the password with passwd")
            }
            if path[2] == "passwd", !exists {
                throw RequestError("\(name) is not a user of \(url.path); add them first")
            }
            let password = try PasswordReader.read(console: context.console)
            users.set(name, hash: try requestError { try PasswordHash.make(password) })
            try requestError { try users.write(url) }
            context.console.out("\(path[2] == "add" ? "added" : "changed the password of") \(name) in \(url.path)\n")
        default:
            guard users.hashes[name] != nil else { throw RequestError("\(name) is not a user of \(url.path)") }
            users.remove(name)
            try requestError { try users.write(url) }
            context.console.out("removed \(name) from \(url.path); their sessions end when the page restarts\n")
        }
        return 0
    }

    private static func requestError<Value>(_ body: () throws -> Value) throws -> Value {
        do {
            return try body()
        } catch let error as WebError {
            throw RequestError(error.message)
        } catch let error as PipeBasicsError {
            throw RequestError(error.description)
        }
    }
}
