import Foundation

/// The one list of hostile strings that every input a person or a host controls is tested with (issue: hostile
/// host, section 9). Each entry is something an attacker would try; none of them may run a command, write outside
/// its folder, or pass a check it should fail.
public enum InjectionCorpus {
    /// Strings that hold no NUL byte: each may reach a shell, a path, a terminal or a chat message as data.
    public static let strings: [String] = [
        ";id>/tmp/pipe-injected",
        ".;id>/tmp/pipe-injected",
        "$(id>/tmp/pipe-injected)",
        "`id>/tmp/pipe-injected`",
        "a && id>/tmp/pipe-injected",
        "a || id>/tmp/pipe-injected",
        "a | id>/tmp/pipe-injected",
        "a\nid>/tmp/pipe-injected",
        "a\r\nid>/tmp/pipe-injected",
        "'; id>/tmp/pipe-injected; echo '",
        "\"; id>/tmp/pipe-injected; echo \"",
        "'\"'\"'; id>/tmp/pipe-injected #",
        "\\'; id>/tmp/pipe-injected #",
        "${IFS}id>/tmp/pipe-injected",
        "$HOME",
        "${PATH}",
        "~root",
        "*",
        "?[a-z]",
        "{a,b}",
        "A=b",
        "PATH=/tmp id",
        "--option=value",
        "-rf",
        "--",
        "../../../../etc/passwd",
        "/etc/passwd",
        "a/../../b",
        "..",
        ".",
        "",
        " ",
        "\t",
        String(repeating: "x", count: 100_000),
        "\u{1B}[2J\u{1B}[H",
        "\u{1B}]0;pwned\u{07}",
        "\u{1B}]8;;https://evil.example\u{1B}\\link\u{1B}]8;;\u{1B}\\",
        "<!channel>",
        "<https://evil.example|click>",
        "&amp;<>",
        "%s%n%x",
        "\u{202E}txt.exe",
        "日本語",
    ]

    /// The bytes of every string above, plus byte sequences that are not valid UTF-8.
    public static let byteStrings: [[UInt8]] =
        strings.map { Array($0.utf8) } + [
            [0xFF, 0xFE, 0x3B, 0x69, 0x64],
            [0xC0, 0xAF, 0x2E, 0x2E],
            [0x61, 0xED, 0xA0, 0x80],
        ]

    /// A string with a NUL byte: refused wherever a value reaches a shell or a path.
    public static let withNUL = "a\u{0}id>/tmp/pipe-injected"

    /// The file each shell payload above would create when it ran.
    public static let witnessFile = "/tmp/pipe-injected"
}
