import PipeBasics
import PipeCore

/// Turns a slash command's text into a `ChatCommand`, or explains what is wrong with it.
public enum ChatCommandParser {
    /// The command words, in the order help lists them.
    public static let commands = ["run", "status", "runs", "signoff", "gate", "hosts", "approve", "help"]

    /// One line of usage per command.
    public static let usage: [String: String] = [
        "run": "run <pipeline> [ref=<branch|tag|commit>] [key=value…]",
        "status": "status [run]",
        "runs": "runs [pipeline]",
        "signoff": "signoff <run> <layer> pass|fail field=value… note=\"…\"",
        "gate": "gate <run> merge|release",
        "hosts": "hosts",
        "approve": "approve <forge> <pull request> [head commit]",
        "help": "help [command]",
    ]

    /// What each command does, for help.
    public static let summaries: [String: String] = [
        "run": "queue a run of a pipeline (at a ref, with parameters)",
        "status": "where a run is (default: the latest)",
        "runs": "the latest runs (of a pipeline)",
        "signoff": "sign a manual checklist layer of a run: pass or fail, with its fields and a note",
        "gate": "whether a run passes the merge or release gate",
        "hosts": "the Mac hosts and their health",
        "approve": "let a fork's pull request run, at its current head (or only if still at the commit given)",
        "help": "this text",
    ]

    public static func parse(_ text: String) throws(ChatCommandError) -> ChatCommand {
        let words: [String]
        do {
            words = try CommandTokenizer.words(text)
        } catch {
            throw ChatCommandError(error.message, command: nil)
        }
        guard let first = words.first else { return .help(topic: nil) }
        let verb = first.lowercased()
        let rest = Array(words.dropFirst())
        switch verb {
        case "run": return try parseRun(rest)
        case "status":
            try expect(rest, atMost: 1, command: "status")
            return .status(run: rest.first)
        case "runs":
            try expect(rest, atMost: 1, command: "runs")
            return .runs(pipeline: rest.first)
        case "signoff", "sign-off": return try parseSignoff(rest)
        case "gate": return try parseGate(rest)
        case "hosts":
            try expect(rest, atMost: 0, command: "hosts")
            return .hosts
        case "approve": return try parseApprove(rest)
        case "help", "-h", "--help", "?":
            return .help(topic: rest.first.map { $0.lowercased() })
        default:
            var message = "unknown command '\(first)'"
            if let near = EditDistance.nearest(to: verb, in: commands) { message += "; did you mean '\(near)'?" }
            throw ChatCommandError(message, command: nil)
        }
    }

    private static func parseRun(_ words: [String]) throws(ChatCommandError) -> ChatCommand {
        guard let pipeline = words.first, !pipeline.contains("=") else {
            throw ChatCommandError("name the pipeline to run", command: "run")
        }
        var ref: String?
        var parameters: [KeyValuePair] = []
        for pair in try keyValues(Array(words.dropFirst()), command: "run") {
            if pair.key == "ref" {
                guard !pair.value.isEmpty else {
                    throw ChatCommandError("ref= is empty; name a branch, tag or commit", command: "run")
                }
                ref = pair.value
            } else {
                parameters.append(pair)
            }
        }
        return .run(pipeline: pipeline, ref: ref, parameters: parameters)
    }

    private static func parseSignoff(_ words: [String]) throws(ChatCommandError) -> ChatCommand {
        guard words.count >= 3, !words[0].contains("="), !words[1].contains("=") else {
            throw ChatCommandError("give the run, the layer and pass or fail", command: "signoff")
        }
        guard let result = SignoffVerdict(rawValue: words[2].lowercased()) else {
            throw ChatCommandError("'\(words[2])' is not a result: say pass or fail", command: "signoff")
        }
        var fields: [KeyValuePair] = []
        var note: String?
        for pair in try keyValues(Array(words.dropFirst(3)), command: "signoff") {
            if pair.key == "note" { note = pair.value } else { fields.append(pair) }
        }
        return .signoff(run: words[0], layer: words[1], result: result, fields: fields, note: note)
    }

    private static func parseGate(_ words: [String]) throws(ChatCommandError) -> ChatCommand {
        guard words.count == 2 else { throw ChatCommandError("give the run and merge or release", command: "gate") }
        guard let gate = Gate(rawValue: words[1].lowercased()) else {
            throw ChatCommandError("'\(words[1])' is not a gate: say merge or release", command: "gate")
        }
        return .gate(run: words[0], gate: gate)
    }

    private static func parseApprove(_ words: [String]) throws(ChatCommandError) -> ChatCommand {
        guard words.count >= 2 else {
            throw ChatCommandError("give the forge and the pull request's number", command: "approve")
        }
        try expect(words, atMost: 3, command: "approve")
        // `#42` as GitHub and Gitea write it, `!42` as GitLab does.
        var typed = Substring(words[1])
        if typed.first == "#" || typed.first == "!" { typed = typed.dropFirst() }
        guard let number = Int(typed), number >= 1 else {
            throw ChatCommandError("'\(words[1])' is not a pull request number", command: "approve")
        }
        var head: String?
        if words.count == 3 {
            // A full id: a short one could be matched by a commit pushed after the review.
            let sha = words[2].lowercased()
            guard [40, 64].contains(sha.count), sha.allSatisfy(\.isHexDigit) else {
                throw ChatCommandError(
                    "'\(words[2])' is not a full commit id (40 or 64 hex digits)", command: "approve")
            }
            head = sha
        }
        return .approve(forge: words[0], number: number, headSHA: head)
    }

    /// `key=value` words; a word without `=`, a bad key or a key given twice is refused.
    private static func keyValues(_ words: [String], command: String) throws(ChatCommandError) -> [KeyValuePair] {
        var pairs: [KeyValuePair] = []
        var seen: Set<String> = []
        for word in words {
            guard let equals = word.firstIndex(of: "=") else {
                throw ChatCommandError(
                    "'\(word)' is not key=value; a value with spaces goes in quotes: key=\"two words\"",
                    command: command)
            }
            let key = String(word[..<equals])
            guard isKey(key) else {
                throw ChatCommandError(
                    "'\(key)' is not a key: use letters, digits, _ - and . (starting with a letter)", command: command)
            }
            guard seen.insert(key).inserted else {
                throw ChatCommandError("\(key)= is given twice; give each once", command: command)
            }
            pairs.append(KeyValuePair(key, String(word[word.index(after: equals)...])))
        }
        return pairs
    }

    static func isKey(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first.isASCIILetter || first == "_" else { return false }
        return text.unicodeScalars.allSatisfy {
            $0.isASCIILetter || ("0"..."9").contains($0) || "_-.".unicodeScalars.contains($0)
        }
    }

    private static func expect(_ words: [String], atMost count: Int, command: String) throws(ChatCommandError) {
        guard words.count > count else { return }
        throw ChatCommandError(
            "'\(words[count])' is one word too many for \(command)", command: command)
    }

    /// The help text, or one command's usage.
    public static func help(topic: String? = nil, command: String = "/pipe") -> String {
        if let topic, let line = usage[topic] {
            return "`\(command) \(line)` — \(summaries[topic] ?? "")"
        }
        var text = "Usage:\n"
        for name in commands {
            text += "• `\(command) \(usage[name] ?? name)` — \(summaries[name] ?? "")\n"
        }
        text += "Values with spaces go in quotes: `note=\"found it in Shortcuts\"`."
        return text
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
