/// Reads back what a comment's Markdown holds, the way CommonMark does for the two constructs hostile text is put
/// in: code spans (a backtick run closed by the next run of the same length) and fenced blocks (closed by a line of
/// at least as many backticks at most 3 spaces past the block's indentation).
enum MarkdownStructure {
    /// The contents of the code spans of one line, and the text outside them.
    static func codeSpans(_ line: String) -> (spans: [String], outside: String) {
        let characters = Array(line)
        var spans: [String] = []
        var outside = ""
        var index = 0
        while index < characters.count {
            guard characters[index] == "`" else {
                outside.append(characters[index])
                index += 1
                continue
            }
            var run = 0
            while index + run < characters.count, characters[index + run] == "`" { run += 1 }
            var search = index + run
            var closed: Int?
            while search < characters.count {
                if characters[search] == "`" {
                    var other = 0
                    while search + other < characters.count, characters[search + other] == "`" { other += 1 }
                    if other == run {
                        closed = search
                        break
                    }
                    search += other
                } else {
                    search += 1
                }
            }
            guard let end = closed else {
                outside += String(characters[index..<index + run])
                index += run
                continue
            }
            var content = String(characters[(index + run)..<end])
            if content.count >= 2, content.hasPrefix(" "), content.hasSuffix(" "),
                content.contains(where: { $0 != " " })
            {
                content = String(content.dropFirst().dropLast())
            }
            spans.append(content)
            index = end + run
        }
        return (spans, outside)
    }

    /// The fenced blocks of a body (their lines with the indentation taken off) and the lines outside them.
    static func fencedBlocks(_ body: String) -> (blocks: [String], outside: [String]) {
        var blocks: [String] = []
        var outside: [String] = []
        var open: (indent: Int, fence: Int, lines: [String])?
        for line in body.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let indent = line.prefix { $0 == " " }.count
            let rest = line.dropFirst(indent)
            let ticks = rest.prefix { $0 == "`" }.count
            if let current = open {
                if ticks >= current.fence, rest.dropFirst(ticks).allSatisfy({ $0 == " " }), indent <= current.indent + 3
                {
                    blocks.append(current.lines.joined(separator: "\n"))
                    open = nil
                } else {
                    open?.lines.append(String(line.dropFirst(min(indent, current.indent))))
                }
            } else if ticks >= 3, !rest.dropFirst(ticks).contains("`") {
                open = (indent, ticks, [])
            } else {
                outside.append(line)
            }
        }
        if let current = open { blocks.append("UNCLOSED: " + current.lines.joined(separator: "\n")) }
        return (blocks, outside)
    }
}
