/// Bounds on what a delivery may hold. A payload is hostile until read: a signed one too, since anyone who can
/// open a pull request writes its title and branch name.
public enum WebhookLimits {
    /// The most bytes of one header value (signatures, ids, event names).
    public static let headerValueBytes = 1024
    /// The deepest nesting of arrays and objects in a payload; the forges' own reach about 6.
    public static let jsonDepth = 64
    /// Titles (GitHub allows 256 characters, GitLab 255).
    public static let titleCharacters = 1024
    /// Ref names (full, `refs/heads/…`).
    public static let refBytes = 1024
    /// Repository names, logins, labels, external ids, event names.
    public static let nameBytes = 256
    /// Labels on one pull request.
    public static let labels = 100
    /// Delivery ids (UUIDs on every forge).
    public static let deliveryIDBytes = 128
}
