/// How a host keeps its build caches (`build-caches:` and `build-cache:` in the hosts file).
///
/// A build cache is a workspace tree, its DerivedData and its package checkouts, kept at stable paths on the host
/// so that Xcode's incremental build (keyed by absolute paths) finds them again (docs/hosts.md, "Build caches").
public struct BuildCachePolicy: Sendable, Equatable {
    /// The default `build-caches:`: one cache for a run, one for a second run of the same identity at once.
    public static let defaultCachesPerIdentity = 2
    /// The default `max-size:`, 50 GiB.
    public static let defaultMaxSizeBytes: Int64 = 50 << 30
    /// The default `max-age:`, 14 days.
    public static let defaultMaxAgeSeconds: Double = 14 * 86_400

    /// Caches per identity (`build-caches:`); 0 turns build caches off on the host.
    public var cachesPerIdentity: Int
    /// The most all build caches of the host may hold together (`build-cache: { max-size: }`): past it, the
    /// least recently used caches go first.
    public var maxSizeBytes: Int64
    /// A cache unused for longer goes (`build-cache: { max-age: }`).
    public var maxAgeSeconds: Double

    public init(
        cachesPerIdentity: Int = Self.defaultCachesPerIdentity, maxSizeBytes: Int64 = Self.defaultMaxSizeBytes,
        maxAgeSeconds: Double = Self.defaultMaxAgeSeconds
    ) {
        self.cachesPerIdentity = cachesPerIdentity
        self.maxSizeBytes = maxSizeBytes
        self.maxAgeSeconds = maxAgeSeconds
    }

    /// Whether the host keeps build caches at all.
    public var isEnabled: Bool { cachesPerIdentity > 0 }
}
