import Foundation

/// What `build-for-testing` leaves in derived data and `test-without-building` needs: the test bundles under
/// `Build/Products/<Configuration>-iphonesimulator/` and the `.xctestrun` file that describes them,
/// `Build/Products/<Scheme>_iphonesimulator<SDK version>-<arch>.xctestrun` (a property list, format version 1).
///
/// In real mode the tests are compiled into the host's build cache (as `xcodebuild test` does in this emulator), and
/// `test-without-building` runs the test binary found there without building; the files here are what tells it a
/// build for the scheme happened.
struct TestProducts {
    /// The derived-data folder (`-derivedDataPath`, or the container's default folder).
    let derivedData: URL

    var productsFolder: URL { derivedData.appendingPathComponent("Build/Products", isDirectory: true) }

    /// Writes the products of a successful build: one `<Target>.xctest` folder per test target and the
    /// `.xctestrun`. Returns the `.xctestrun` file.
    @discardableResult
    func write(
        scheme: String, targets: [String], sdkVersion: String, architecture: String
    ) throws -> URL {
        let configuration = productsFolder.appendingPathComponent("Debug-iphonesimulator", isDirectory: true)
        var plist: [String: Any] = ["__xctestrun_metadata__": ["FormatVersion": 1]]
        for target in targets {
            let bundle = configuration.appendingPathComponent("\(target).xctest", isDirectory: true)
            try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
            try Data("\(target)\n".utf8).write(to: bundle.appendingPathComponent(target))
            plist[target] = [
                "TestBundlePath": "__TESTROOT__/Debug-iphonesimulator/\(target).xctest",
                "TestHostPath": "__PLATFORMS__/iPhoneSimulator.platform/Developer/Library/Xcode/Agents/xctest",
                "IsUITestBundle": false,
            ]
        }
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
        let file = productsFolder.appendingPathComponent(
            "\(scheme)_iphonesimulator\(sdkVersion)-\(architecture).xctestrun")
        try data.write(to: file, options: .atomic)
        return file
    }

    /// The `.xctestrun` a `build-for-testing` of `scheme` wrote here, if any (the newest when there are several).
    func xctestrun(scheme: String) -> URL? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: productsFolder.path)) ?? []
        let prefix = "\(scheme)_"
        return names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".xctestrun") }.sorted().last.map {
            productsFolder.appendingPathComponent($0)
        }
    }
}
