import Foundation
import PipeTestSupport
import XCTest

/// An emulated Mac that sends what no honest Mac sends: a login of its own (what it plants cannot reach the other
/// hosts' account), and a `tar`, an `xcrun` and an `xcodebuild` of its own that answer with the payload named by `plant(_:)`:
/// `device`, `escape` and `setuid` archives for a pull-back, an `endless-simctl` listing, a `noisy-log` test run,
/// `hostile-attachments` beside a bundle.
final class HostileMacHost {
    let host: EmulatedMacHost
    private let state: TemporaryDirectory
    private let tools: TemporaryDirectory
    private var modeFile: URL { state.url.appendingPathComponent("hostile-mode") }

    init(name: String = "mac-evil", mode: String) throws {
        state = try TemporaryDirectory(prefix: "pipe-e2e-hostile")
        tools = try TemporaryDirectory(prefix: "pipe-e2e-hostile-tools")
        let modeFile = state.url.appendingPathComponent("hostile-mode")
        let scripts = [
            ("tar", Self.hostileTar(modeFile: modeFile)), ("xcrun", Self.hostileXcrun(modeFile: modeFile)),
            ("xcodebuild", Self.noisyXcodebuild(modeFile: modeFile)),
            ("corpus-filter.py", Self.corpusFilter), ("hostile-attachments.py", Self.hostileAttachments),
        ]
        for (name, text) in scripts {
            let url = tools.appending(name)
            try text.write(to: url, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tools.url.path)
        do {
            host = try EmulatedMacHost(
                name: name, stateDirectory: state.url, user: getuid() == 0 ? "pipe-hostile" : nil, tools: tools.url)
            var config = try host.readConfig()
            config["mode"] = mode
            try host.writeConfig(config)
        } catch {
            state.remove()
            tools.remove()
            throw error
        }
    }

    /// The strings the `corpus` payload puts in simulator names, UDIDs and xcresulttool's test failures.
    var corpusFile: URL { state.url.appendingPathComponent("corpus.json") }

    /// From now on the host's tools answer with `payload`.
    func plant(_ payload: String) throws {
        try payload.write(to: modeFile, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: modeFile.path)
    }

    func stop() {
        host.stop()
        state.remove()
        tools.remove()
    }

    /// A `tar` that, while `modeFile` names one of its payloads, answers `tar -cf - -C <parent> ./<item>` with a hostile
    /// archive of that item (built header by header by Python's tarfile, never with mknod); bsdtar otherwise.
    private static func hostileTar(modeFile: URL) -> String {
        """
        #!/usr/bin/python3
        import io, os, sys, tarfile
        args = sys.argv[1:]
        try:
            mode = open(\(pythonQuoted(modeFile.path))).read().strip()
        except OSError:
            mode = ""
        if mode not in ("device", "escape", "setuid") or not args or not args[0].startswith("-c") or "-C" not in args:
            os.execv("/usr/bin/bsdtar", ["tar"] + args)
        item = args[-1][2:] if args[-1].startswith("./") else args[-1]
        out = tarfile.open(fileobj=sys.stdout.buffer, mode="w|", format=tarfile.PAX_FORMAT)
        def add(name, kind, data=b"", mode=0o644, link=""):
            info = tarfile.TarInfo("./" + item + ("/" + name if name else ""))
            info.type, info.mode, info.linkname, info.size = kind, mode, link, len(data)
            info.uid, info.gid, info.devmajor, info.devminor = 0, 0, 1, 1
            out.addfile(info, io.BytesIO(data) if data else None)
        add("", tarfile.DIRTYPE, mode=0o777)
        add("Info.plist", tarfile.REGTYPE, b"<plist/>")
        if mode == "device":
            add("mem", tarfile.CHRTYPE)
        elif mode == "escape":
            add("p", tarfile.SYMTYPE, link="../" * 30 + "tmp/pipe-hostile-target")
            add("p/planted", tarfile.REGTYPE, b"owned")
        elif mode == "setuid":
            add("tool", tarfile.REGTYPE, b"#!/bin/sh\\n", mode=0o6755)
        out.close()
        """
    }

    /// An `xcrun` whose `simctl list`, while `modeFile` says `endless-simctl`, prints without end; the emulator's
    /// own otherwise.
    private static func hostileXcrun(modeFile: URL) -> String {
        """
        #!/bin/sh
        if [ "$(cat \(modeFile.path) 2>/dev/null)" = endless-simctl ] && [ "$1" = simctl ] && [ "$2" = list ]; then
            exec /usr/bin/python3 -c 'import sys
        line = b"{" * 65536
        while True: sys.stdout.buffer.write(line)' pipe-endless
        fi
        if [ "$(cat \(modeFile.path) 2>/dev/null)" = corpus ]; then
            "${0%/*}/pipe-mac-emulator" xcrun "$@" | /usr/bin/python3 "${0%/*}/corpus-filter.py" \
                \(modeFile.deletingLastPathComponent().appendingPathComponent("corpus.json").path) "$@"
            exit
        fi
        if [ "$(cat \(modeFile.path) 2>/dev/null)" = hostile-attachments ] && [ "$1 $2" = "xcresulttool export" ]; then
            "${0%/*}/pipe-mac-emulator" xcrun "$@" || exit
            exec /usr/bin/python3 "${0%/*}/hostile-attachments.py" "$@"
        fi
        exec "${0%/*}/pipe-mac-emulator" xcrun "$@"
        """
    }

    /// Adds to what the emulator's `export attachments` wrote: a name that climbs out (`../escaped.png`, with a file
    /// there), a link, a file past the size limit, and 30 more screenshots than anyone keeps, all in the manifest.
    private static let hostileAttachments = """
        import json, os, sys
        out = sys.argv[sys.argv.index("--output-path") + 1]
        manifest = json.load(open(os.path.join(out, "manifest.json")))
        def entry(name, failure=True):
            return {"exportedFileName": name, "suggestedHumanReadableName": name, "isAssociatedWithFailure": failure,
                    "timestamp": 1733211120.5}
        extra = [entry("../escaped.png"), entry("link.png"), entry("big.png")]
        open(os.path.join(out, "..", "escaped.png"), "wb").write(b"escaped")
        os.symlink("manifest.json", os.path.join(out, "link.png"))
        with open(os.path.join(out, "big.png"), "wb") as big:
            big.truncate(9 << 20)
        png = open(os.path.join(out, manifest[0]["attachments"][0]["exportedFileName"]), "rb").read()
        for index in range(30):
            name = "extra-%02d.png" % index
            open(os.path.join(out, name), "wb").write(png)
            extra.append(entry(name, failure=False))
        manifest[0]["attachments"] += extra
        json.dump(manifest, open(os.path.join(out, "manifest.json"), "w"), indent=2)
        """

    /// Adds the corpus to what the emulator's `simctl list -j` and `xcresulttool … summary` answered: devices named
    /// after each string and devices whose UDID is one, and a test failure named and worded after each.
    private static let corpusFilter = """
        import json, sys
        corpus = json.load(open(sys.argv[1]))
        args = sys.argv[2:]
        data = json.load(sys.stdin)
        if args[:2] == ["simctl", "list"]:
            runtime = sorted(data["devices"])[-1]
            kind = "com.apple.CoreSimulator.SimDeviceType.iPhone-15"
            for index, text in enumerate(corpus):
                data["devices"][runtime].append(
                    {"udid": text, "name": "iPhone 15", "state": "Shutdown", "isAvailable": True,
                     "deviceTypeIdentifier": kind})
                data["devices"][runtime].append(
                    {"udid": "%08X-0000-4000-8000-%012X" % (index, index), "name": text, "state": "Shutdown",
                     "isAvailable": True, "deviceTypeIdentifier": kind})
        elif "xcresulttool" in args:
            data["testFailures"] = [
                {"testName": text, "targetName": text, "failureText": text, "testIdentifierString": text}
                for text in corpus]
            data["failedTests"] = len(corpus)
            data["result"] = "Failed"
        json.dump(data, sys.stdout)
        """

    /// An `xcodebuild` whose `test`, while `modeFile` says `noisy-log`, first prints 20,000 lines (2 MB), then runs
    /// as the emulator's: a test that prints far more than its layer's log may keep.
    private static func noisyXcodebuild(modeFile: URL) -> String {
        """
        #!/bin/sh
        if [ "$(cat \(modeFile.path) 2>/dev/null)" = noisy-log ]; then
            case " $* " in
            *" test "*)
                i=0
                while [ $i -lt 20000 ]; do
                    echo "noise $i ............................................................................"
                    i=$((i + 1))
                done ;;
            esac
        fi
        exec "${0%/*}/pipe-mac-emulator" xcodebuild "$@"
        """
    }

    private static func pythonQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }
}
