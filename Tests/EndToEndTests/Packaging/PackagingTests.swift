import Foundation
import PipeTestSupport
import XCTest

/// `scripts/package` on the debug binary the suite built (the release build is `make dist`'s): the .deb's layout,
/// maintainer scripts and computed Depends, then the extracted files run: `pipe --version`, `man -l`, the systemd
/// units through `systemd-analyze verify`, and each completion script in its shell.
final class PackagingTests: XCTestCase {
    private func sh(_ line: String, in folder: URL? = nil) throws -> CommandResult {
        try CommandRunner.shell(line, currentDirectory: folder)
    }

    func testDebianPackageFromTheDebugBinary() throws {
        let work = try TemporaryDirectory(prefix: "pipe-package")
        defer { work.remove() }
        let binary = RepositoryPaths.pipeBinary.path
        let script = RepositoryPaths.root.appendingPathComponent("scripts/package").path
        // The toolchain's Swift libraries: linked by the debug binary only, so left out of Depends.
        let toolchain = try sh("dirname \"$(ldd '\(binary)' | awk '$1 == \"libswiftCore.so\" {print $3}')\"")
        let exclude = toolchain.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(exclude.hasPrefix("/"), toolchain.stdout)
        let package =
            "'\(script)' --binary '\(binary)' --fast --out '\(work.url.path)' --exclude-libraries-under '\(exclude)'"

        let hasCompletions = try sh("'\(binary)' completions bash >/dev/null 2>&1").exitCode == 0
        if !hasCompletions {
            // A binary without the command stops the packaging unless told, loudly.
            let refused = try sh(package)
            XCTAssertNotEqual(refused.exitCode, 0)
            XCTAssertTrue(refused.stderr.contains("pipe completions bash"), refused.stderr)
        }
        let built = try sh(package + (hasCompletions ? "" : " --without-completions"))
        XCTAssertEqual(built.exitCode, 0, built.stderr)
        XCTAssertTrue(built.stdout.contains("left out of Depends (under \(exclude)): "), built.stdout)
        let version = try String(contentsOf: RepositoryPaths.root.appendingPathComponent("VERSION"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let deb = work.appending("pipe_\(version)_amd64.deb").path
        let tarball = work.appending("pipe-\(version)-linux-amd64.tar.gz").path

        let info = try sh("dpkg-deb -I '\(deb)'").stdout
        let depends = info.split(separator: "\n").first { $0.hasPrefix(" Depends: ") } ?? ""
        for needed in ["libc6 (>= ", "libssh2-1 (>= ", "libgit2-1.5 (>= ", "libsqlite3-0 (>= ", "libcurl4", "adduser"] {
            XCTAssertTrue(depends.contains(needed), "\(needed) missing from \(depends)")
        }
        XCTAssertFalse(depends.lowercased().contains("swift"), String(depends))
        for script in ["postinst", "prerm", "postrm"] { XCTAssertTrue(info.contains("*  \(script)"), info) }

        var contents = try sh("dpkg-deb -c '\(deb)'").stdout
        var expected = [
            "./usr/bin/pipe", "./usr/share/man/man1/pipe.1.gz", "./lib/systemd/system/pipe-controller.service",
            "./lib/systemd/system/pipe-chatops.service", "./lib/systemd/system/pipe-web.service",
            "./usr/share/doc/pipe/copyright", "./usr/share/doc/pipe/examples/controller.yml",
            "./usr/share/doc/pipe/schema/pipeline.schema.json",
            "./usr/share/doc/pipe/examples/systemd/pipe-controller.service.d/grace-period.conf",
        ]
        let completionFiles = [
            "./usr/share/bash-completion/completions/pipe", "./usr/share/zsh/vendor-completions/_pipe",
            "./usr/share/fish/vendor_completions.d/pipe.fish",
        ]
        if hasCompletions { expected += completionFiles }
        for path in expected { XCTAssertTrue(contents.contains(" \(path)\n"), "\(path) missing from:\n\(contents)") }
        contents = try sh("tar tzf '\(tarball)'").stdout
        for path in ["bin/pipe", "README", "LICENSE", "NOTICE", "CHANGELOG.md", "systemd/pipe-controller.service"] {
            XCTAssertTrue(contents.contains("pipe-\(version)-linux-amd64/\(path)\n"), "\(path) not in the tarball")
        }

        let control = work.appending("control")
        XCTAssertEqual(try sh("dpkg-deb -e '\(deb)' '\(control.path)'").exitCode, 0)
        let postinst = try String(contentsOf: control.appendingPathComponent("postinst"), encoding: .utf8)
        XCTAssertTrue(postinst.contains("adduser --system --group --home /var/lib/pipe"), postinst)
        let postrm = try sh("sh '\(control.appendingPathComponent("postrm").path)' remove")
        XCTAssertTrue(postrm.stderr.contains("are kept"), postrm.stderr)

        let root = work.appending("root")
        XCTAssertEqual(try sh("dpkg-deb -x '\(deb)' '\(root.path)'").exitCode, 0)
        let extracted = root.appendingPathComponent("usr/bin/pipe").path
        XCTAssertTrue(try sh("'\(extracted)' --version").stdout.hasPrefix("pipe \(version)"))
        // Each example names its schema where the package puts it, and the schema is what the binary prints.
        let examples = "\(root.path)/usr/share/doc/pipe/examples"
        for kind in ["controller", "chatops", "web"] {
            let line = try sh("head -n 1 '\(examples)/\(kind).yml'").stdout
            XCTAssertEqual(line, "# yaml-language-server: $schema=../schema/\(kind).schema.json\n")
            let same = try sh("'\(extracted)' schema \(kind) | cmp - '\(examples)/../schema/\(kind).schema.json'")
            XCTAssertEqual(same.exitCode, 0, same.stdout + same.stderr)
        }
        let page = try sh("MANWIDTH=100 man -l '\(root.path)/usr/share/man/man1/pipe.1.gz' | col -b")
        for text in ["controller", "chatops", "--version"] { XCTAssertTrue(page.stdout.contains(text), page.stderr) }

        // The units as shipped, ExecStart pointed at the extracted binary: verify prints nothing when they are valid.
        let units = work.appending("units")
        let verify = try sh(
            """
            mkdir '\(units.path)' && for unit in '\(root.path)'/lib/systemd/system/*.service; do \
            sed 's#/usr/bin/pipe#\(extracted)#' "$unit" > '\(units.path)'/"$(basename "$unit")"; done && \
            systemd-analyze verify --man=no '\(units.path)'/*.service 2>&1
            """)
        XCTAssertEqual(verify.exitCode, 0, verify.stdout)
        XCTAssertEqual(verify.stdout, "")
        let controllerUnit = try String(
            contentsOf: root.appendingPathComponent("lib/systemd/system/pipe-controller.service"), encoding: .utf8)
        // Above the default grace period (5 min, docs/controller.md), so systemd never kills runs being wound down.
        XCTAssertTrue(controllerUnit.contains("\nTimeoutStopSec=6min\n"), controllerUnit)
        XCTAssertTrue(controllerUnit.contains("\nExecReload=/bin/kill -HUP $MAINPID\n"), controllerUnit)

        guard hasCompletions else { return }
        // The scripts ask `pipe __complete`: the extracted binary, first on the PATH.
        let onPath = "PATH='\(URL(fileURLWithPath: extracted).deletingLastPathComponent().path)':\"$PATH\" "
        let bash = try sh(
            onPath + "bash -c \"source '\(root.path)/usr/share/bash-completion/completions/pipe' && complete -p pipe\"")
        XCTAssertEqual(bash.exitCode, 0, bash.stderr)
        let fish = try sh(
            onPath
                + "fish -c \"source '\(root.path)/usr/share/fish/vendor_completions.d/pipe.fish'; complete -C 'pipe con'\""
        )
        XCTAssertTrue(fish.stdout.contains("controller"), fish.stdout + fish.stderr)
        let zsh = try sh(
            onPath
                + "zsh -c \"autoload -Uz compinit && compinit -u && source '\(root.path)/usr/share/zsh/vendor-completions/_pipe'\""
        )
        XCTAssertEqual(zsh.exitCode, 0, zsh.stderr)
    }
}
