// swift-tools-version:6.0
// Pipe: verifies iOS apps on cloud Macs from a Linux coordinator.
// Only the Swift toolchain and C libraries from Debian's packages: no outside Swift packages.
import Foundation
import PackageDescription

/// A C library from Debian, exposed through `Sources/C<name>/module.modulemap` and imported by exactly one wrapper.
func systemLibrary(_ name: String, pkgConfig: String, apt: String) -> Target {
    .systemLibrary(name: name, pkgConfig: pkgConfig, providers: [.apt([apt])])
}

let strictSettings: [SwiftSetting] = [.unsafeFlags(["-warnings-as-errors"])]

/// What `make` tells the build about the commit (`PIPE_BUILD_COMMIT`, `PIPE_BUILD_DIRTY`, `PIPE_BUILD_DATE`): defines
/// for CBuildInfo alone, so a new commit rebuilds one C file. Values other than plain words are left out.
let buildInfoDefines: [CSetting] = [
    ("PIPE_BUILD_COMMIT", "PIPE_BUILD_COMMIT"), ("PIPE_BUILD_DIRTY", "PIPE_BUILD_DIRTY"),
    ("PIPE_BUILD_DATE", "PIPE_BUILD_DATE"),
].compactMap { define, variable in
    guard let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty,
        value.allSatisfy({ $0.isLetter || $0.isNumber || ":.-+".contains($0) })
    else { return nil }
    return .define(define, to: "\"\(value)\"")
}

let package = Package(
    name: "Pipe",
    products: [
        .executable(name: "pipe", targets: ["pipe"]),
        .executable(name: "pipe-mac-emulator", targets: ["pipe-mac-emulator"]),
    ],
    targets: [
        // C libraries (system-library targets).
        systemLibrary("CSSH2", pkgConfig: "libssh2", apt: "libssh2-1-dev"),
        systemLibrary("CGit2", pkgConfig: "libgit2", apt: "libgit2-dev"),
        systemLibrary("CYAML", pkgConfig: "yaml-0.1", apt: "libyaml-dev"),
        systemLibrary("CSQLite", pkgConfig: "sqlite3", apt: "libsqlite3-dev"),
        systemLibrary("CCrypto", pkgConfig: "libcrypto", apt: "libssl-dev"),
        systemLibrary("CMicroHTTPD", pkgConfig: "libmicrohttpd", apt: "libmicrohttpd-dev"),
        systemLibrary("CCurl", pkgConfig: "libcurl", apt: "libcurl4-openssl-dev"),
        systemLibrary("CZlib", pkgConfig: "zlib", apt: "zlib1g-dev"),
        systemLibrary("CZstd", pkgConfig: "libzstd", apt: "libzstd-dev"),
        systemLibrary("CArchive", pkgConfig: "libarchive", apt: "libarchive-dev"),
        systemLibrary("CPQ", pkgConfig: "libpq", apt: "libpq-dev"),

        // libssh2's AES-CTR with its keystream made in 4 KiB batches (an OpenSSL engine; see its header for why).
        .target(
            name: "CBatchedAESCTR",
            cSettings: [.unsafeFlags(["-Wall", "-Wextra", "-Werror"])],
            linkerSettings: [.linkedLibrary("crypto")]),

        // The version (from VERSION), the commit `make` names, and the C libraries' own versions, for `--version`.
        // It includes the libraries' headers and links them only to ask their versions.
        .target(
            name: "CBuildInfo",
            cSettings: [.unsafeFlags(["-Wall", "-Wextra", "-Werror"])] + buildInfoDefines,
            linkerSettings: ["ssh2", "git2", "sqlite3", "curl", "crypto", "archive", "yaml", "microhttpd", "z", "zstd"]
                .map { .linkedLibrary($0) }),

        // Layered modules: Basics → Core → (Spec, Apple, SSH, Git, Store) → Plugins → CLI → pipe.
        .target(name: "PipeBasics", dependencies: ["CCrypto"], swiftSettings: strictSettings),
        .target(name: "PipeCore", dependencies: ["PipeBasics"], swiftSettings: strictSettings),
        .target(name: "PipeSpec", dependencies: ["PipeCore", "CYAML"], swiftSettings: strictSettings),
        .target(
            name: "PipeApple", dependencies: ["PipeCore", "PipeBasics", "CArchive"], swiftSettings: strictSettings),
        .target(
            name: "PipeSSH",
            dependencies: ["PipeCore", "PipeBasics", "CSSH2", "CBatchedAESCTR", "CZlib", "CZstd", "CArchive"],
            swiftSettings: strictSettings),
        .target(name: "PipeGit", dependencies: ["PipeCore", "CGit2"], swiftSettings: strictSettings),
        .target(name: "PipeStore", dependencies: ["PipeCore", "CSQLite"], swiftSettings: strictSettings),
        // The run store on PostgreSQL (libpq), for several coordinators: PipeStore's store code over a libpq
        // connection, so only what links it needs libpq.
        .target(
            name: "PipeStorePostgres", dependencies: ["PipeCore", "PipeStore", "CPQ"], swiftSettings: strictSettings),
        .target(
            name: "XcodebuildTestPlugin",
            dependencies: ["PipeCore", "PipeApple"],
            path: "Plugins/XcodebuildTestPlugin",
            swiftSettings: strictSettings
        ),
        .target(
            name: "PipeReport", dependencies: ["PipeCore", "PipeApple", "PipeBasics"], swiftSettings: strictSettings),
        // HTTP in (libmicrohttpd: one server, endpoints mounted by path) and out (libcurl), for every endpoint.
        .target(name: "PipeHTTP", dependencies: ["PipeBasics", "CMicroHTTPD", "CCurl"], swiftSettings: strictSettings),
        // The chat-ops endpoint: slash commands over HTTP, answers to response_url.
        .target(
            name: "PipeChatOps", dependencies: ["PipeBasics", "PipeCore", "PipeSpec", "PipeReport", "PipeHTTP"],
            swiftSettings: strictSettings),
        // The web page: runs, a run, its log, checklists and their sign-off, over PipeHTTP (docs/web.md).
        .target(
            name: "PipeWeb", dependencies: ["PipeBasics", "PipeCore", "PipeSpec", "PipeHTTP", "PipeChatOps"],
            swiftSettings: strictSettings),
        // Forges (GitHub, Gitea/Forgejo, GitLab): forges.yml, webhooks in, statuses, checks and comments out.
        .target(
            name: "PipeForge", dependencies: ["PipeBasics", "PipeCore", "PipeSpec"], swiftSettings: strictSettings),
        .target(
            name: "ChecklistPlugin",
            dependencies: ["PipeCore", "PipeBasics", "PipeApple"],
            path: "Plugins/ChecklistPlugin",
            swiftSettings: strictSettings
        ),
        .target(
            name: "ShellPlugin",
            dependencies: ["PipeCore", "PipeBasics"],
            path: "Plugins/ShellPlugin",
            swiftSettings: strictSettings
        ),
        .target(
            name: "ExternalPlugin",
            dependencies: ["PipeCore", "PipeBasics"],
            path: "Plugins/ExternalPlugin",
            swiftSettings: strictSettings
        ),
        .target(
            name: "PipeServer", dependencies: ["PipeCore", "PipeSpec", "PipeGit", "PipeBasics"],
            swiftSettings: strictSettings),
        .target(
            name: "PipeCLI",
            dependencies: [
                "PipeCore", "PipeSpec", "PipeApple", "PipeSSH", "PipeGit", "PipeStore", "PipeStorePostgres",
                "PipeReport",
                "XcodebuildTestPlugin", "ChecklistPlugin", "ShellPlugin", "ExternalPlugin", "PipeServer",
                "PipeChatOps", "PipeForge", "PipeHTTP", "PipeWeb", "CBuildInfo",
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(name: "pipe", dependencies: ["PipeCLI"], swiftSettings: strictSettings),
        // `make bench`: Pipe's transfer parts as whole processes, timed by bench/run next to OpenSSH; the data generator.
        .executableTarget(
            name: "pipe-bench",
            dependencies: [
                "PipeSSH", "PipeCore", "PipeBasics", "PipeForge", "PipeLink", "PipeStore", "PipeTestSupport",
            ],
            swiftSettings: strictSettings),
        // `make bench`'s wide-area link on loopback: a relay that delays and paces each direction.
        .target(name: "PipeLink", swiftSettings: strictSettings),

        // The emulated cloud Mac: `xcrun`, `xcodebuild`, `xcresulttool` as one multi-call binary (tests and demo only).
        // CArchive writes the exported `.ipa` (a zip) in-process.
        .target(name: "PipeMacEmulator", dependencies: ["PipeBasics", "CArchive"], swiftSettings: strictSettings),
        .executableTarget(
            name: "pipe-mac-emulator",
            dependencies: ["PipeMacEmulator"],
            swiftSettings: strictSettings
        ),

        // Tests.
        .target(
            name: "PipeTestSupport", dependencies: ["PipeBasics", "PipeCore", "PipeHTTP", "CArchive"],
            path: "Tests/PipeTestSupport"
        ),
        .testTarget(name: "PipeBasicsTests", dependencies: ["PipeBasics", "PipeTestSupport"]),
        .testTarget(name: "PipeCoreTests", dependencies: ["PipeCore"]),
        .testTarget(name: "PipeLinkTests", dependencies: ["PipeLink"]),
        .testTarget(name: "PipeSpecTests", dependencies: ["PipeSpec", "PipeTestSupport"], exclude: ["Fixtures"]),
        .testTarget(
            name: "PipeAppleTests", dependencies: ["PipeApple", "PipeTestSupport"], exclude: ["Fixtures"]),
        .testTarget(
            name: "PipeSSHTests", dependencies: ["PipeSSH", "CBatchedAESCTR", "PipeLink", "PipeTestSupport"],
            exclude: ["Fixtures"]),
        .testTarget(name: "PipeGitTests", dependencies: ["PipeGit", "PipeTestSupport"]),
        .testTarget(
            name: "PipeStoreTests", dependencies: ["PipeStore", "PipeStorePostgres", "PipeTestSupport"],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "PipeReportTests", dependencies: ["PipeReport", "PipeApple", "PipeCLI", "PipeTestSupport"],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "PipeCLITests",
            dependencies: [
                "PipeCLI", "PipeChatOps", "PipeForge", "PipeHTTP", "PipeServer", "PipeSpec", "PipeStorePostgres",
                "PipeTestSupport", "PipeWeb",
            ],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "PipeMacEmulatorTests", dependencies: ["PipeMacEmulator", "PipeTestSupport", "PipeApple"],
            exclude: ["Fixtures"]),
        .testTarget(name: "ChecklistPluginTests", dependencies: ["ChecklistPlugin"]),
        .testTarget(name: "ShellPluginTests", dependencies: ["ShellPlugin", "PipeSpec", "PipeTestSupport"]),
        .testTarget(name: "XcodebuildTestPluginTests", dependencies: ["XcodebuildTestPlugin", "PipeSpec"]),
        .testTarget(
            name: "ExternalPluginTests", dependencies: ["ExternalPlugin", "PipeSSH", "PipeTestSupport"],
            exclude: ["Fixtures"]),
        .testTarget(name: "PipeServerTests", dependencies: ["PipeServer", "PipeStore", "PipeTestSupport"]),
        .testTarget(name: "PipeHTTPTests", dependencies: ["PipeHTTP", "PipeTestSupport"]),
        .testTarget(
            name: "PipeWebTests", dependencies: ["PipeWeb", "PipeStore", "PipeHTTP", "PipeTestSupport"]),
        .testTarget(name: "PipeChatOpsTests", dependencies: ["PipeChatOps", "PipeHTTP", "PipeTestSupport"]),
        .testTarget(
            name: "PipeForgeTests", dependencies: ["PipeForge", "PipeStore", "PipeTestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "EndToEndTests", dependencies: ["PipeTestSupport", "PipeStore", "PipeBasics"]),
    ],
    // Swift 5 mode: the C wrappers hand pointers between one owner thread and its callbacks, which Swift 6's
    // checker cannot see; each wrapper documents its thread rule instead.
    swiftLanguageModes: [.v5]
)
