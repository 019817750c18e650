/// The build cache a run leased on its host: where its tree, DerivedData and package checkouts are.
///
/// Everything lives under one folder, `<work dir>/cache/<name>/`: `tree/` is the workspace (synced to match the
/// commit exactly, and used in place: the run's workspace *is* this tree), and `builds/<build>/DerivedData` and
/// `builds/<build>/SourcePackages` hold each build's products and package checkouts. The paths never change, since
/// Xcode keys incremental builds by absolute paths.
public struct BuildCachePlace: Sendable, Equatable {
    /// `<trust>-<hex>-<n>` (`BuildCacheIdentity.cacheNames`).
    public var name: String
    /// The cache's folder on the host, absolute.
    public var folder: String
    public var identity: BuildCacheIdentity
    /// `xcodebuild -version`'s first line on the host, when known: part of each build's identity.
    public var xcodeVersion: String?

    public init(name: String, folder: String, identity: BuildCacheIdentity, xcodeVersion: String? = nil) {
        self.name = name
        self.folder = folder
        self.identity = identity
        self.xcodeVersion = xcodeVersion
    }

    /// The workspace tree, used in place by the run.
    public var tree: String { folder + "/tree" }

    /// The DerivedData (`-derivedDataPath`) and package checkouts (`-clonedSourcePackagesDirPath`) of `build`.
    public func folders(for build: BuildIdentity) -> (derivedData: String, packages: String) {
        let base = folder + "/builds/" + build.folderName
        return (base + "/DerivedData", base + "/SourcePackages")
    }
}

/// How a layer's build used a build cache, for the run record (`RunRecord.LayerRecord.build`).
public struct BuildCacheUse: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable {
        /// Built on what an earlier run left in the cache.
        case warm
        /// Built from nothing: a new cache, a wiped one (`clean: true`, corrupt DerivedData), or no cache
        /// (`build-cache: false`, a host with `build-caches: 0`).
        case cold
    }

    public var state: State
    /// The cache's name on the host; `nil` when the layer built without one.
    public var cache: String?
    /// Why it built cold, when it did (`clean: true`, `a new cache`, …).
    public var reason: String?

    public init(state: State, cache: String?, reason: String? = nil) {
        self.state = state
        self.cache = cache
        self.reason = reason
    }

    /// The facts a plugin returns to say how it built (`LayerResult.facts`); the engine turns them into the record.
    public static let stateFact = "buildCacheState"
    public static let cacheFact = "buildCache"
    public static let reasonFact = "buildCacheReason"

    /// The use the facts describe, if they describe one.
    public init?(facts: [String: String]) {
        guard let state = facts[Self.stateFact].flatMap(State.init(rawValue:)) else { return nil }
        self.init(state: state, cache: facts[Self.cacheFact], reason: facts[Self.reasonFact])
    }

    public var facts: [String: String] {
        var facts = [Self.stateFact: state.rawValue]
        if let cache { facts[Self.cacheFact] = cache }
        if let reason { facts[Self.reasonFact] = reason }
        return facts
    }
}
