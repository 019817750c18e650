import Foundation
import PipeCore

#if canImport(Glibc)
    import Glibc
#endif

/// Reads a new password: from the terminal without echo, asked twice, or from the first line of stdin when it is
/// not a terminal (scripts). Never from the command line, which every account on the machine can read.
enum PasswordReader {
    static let minimumLength = 8

    static func read(console: Console) throws -> String {
        let password: String
        if isatty(STDIN_FILENO) != 0 {
            let first = try prompt("password: ", console: console)
            let second = try prompt("again: ", console: console)
            guard first == second else { throw RequestError("the two passwords differ; nothing was changed") }
            password = first
        } else {
            guard let line = Swift.readLine(strippingNewline: true) else {
                throw RequestError("no password on stdin: give it on the first line, or run this in a terminal")
            }
            password = line
        }
        guard password.count >= minimumLength else {
            throw RequestError("the password is shorter than \(minimumLength) characters; nothing was changed")
        }
        return password
    }

    private static func prompt(_ text: String, console: Console) throws -> String {
        console.err(text)
        var saved = termios()
        tcgetattr(STDIN_FILENO, &saved)
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
        defer {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
            console.err("\n")
        }
        guard let line = Swift.readLine(strippingNewline: true) else {
            throw RequestError("no password was typed; nothing was changed")
        }
        return line
    }
}
