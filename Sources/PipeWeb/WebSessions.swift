import Foundation
import PipeBasics

/// Signed-in sessions, kept in memory (a restart signs everyone out), and the CSRF tokens of forms.
///
/// A session is a random 32-byte token in an HttpOnly cookie. A form's CSRF token is a keyed digest of the cookie
/// it goes with: the session's, or, before signing in, a random pre-session cookie the sign-in page sets. A
/// cross-site page can make the browser send the cookie but can neither read it nor compute the digest, so a post
/// without the matching token is refused. Thread-safe.
public final class WebSessions: @unchecked Sendable {
    public struct Session: Sendable, Equatable {
        public var user: String
        public var expires: Date
    }

    private let lock = NSLock()
    private var sessions: [String: Session] = [:]
    private let key: [UInt8]
    private var currentLifetime: Double
    /// Sessions at once; the oldest goes when more sign in.
    static let capacity = 10_000

    public init(lifetime: Double) {
        currentLifetime = lifetime
        key = Self.randomBytes(32)
    }

    /// How long a new session lasts; a reloaded config changes it for the sessions that start after.
    public var lifetime: Double {
        get {
            lock.lock()
            defer { lock.unlock() }
            return currentLifetime
        }
        set {
            lock.lock()
            currentLifetime = newValue
            lock.unlock()
        }
    }

    /// Starts a session for `user`; returns its token.
    public func start(user: String, now: Date = Date()) -> String {
        let token = Hex.encode(Self.randomBytes(32))
        lock.lock()
        defer { lock.unlock() }
        if sessions.count >= Self.capacity {
            sessions = sessions.filter { $0.value.expires > now }
            if sessions.count >= Self.capacity, let oldest = sessions.min(by: { $0.value.expires < $1.value.expires }) {
                sessions[oldest.key] = nil
            }
        }
        sessions[token] = Session(user: user, expires: now.addingTimeInterval(currentLifetime))
        return token
    }

    /// The session of a cookie's token, while it has not expired.
    public func session(_ token: String?, now: Date = Date()) -> Session? {
        guard let token else { return nil }
        lock.lock()
        defer { lock.unlock() }
        guard let session = sessions[token] else { return nil }
        guard session.expires > now else {
            sessions[token] = nil
            return nil
        }
        return session
    }

    public func end(_ token: String?) {
        guard let token else { return }
        lock.lock()
        sessions[token] = nil
        lock.unlock()
    }

    /// The CSRF token of forms shown with this cookie value.
    public func csrfToken(for cookie: String) -> String {
        Hex.encode(HMACDigest.authenticationCode(.sha256, key: key, message: Array(("csrf:" + cookie).utf8)))
    }

    /// Whether a posted token is the one of this cookie (compared in constant time).
    public func checkCSRF(_ given: String?, cookie: String?) -> Bool {
        guard let given, let cookie, !cookie.isEmpty else { return false }
        return HMACDigest.constantTimeEqual(Array(given.utf8), Array(csrfToken(for: cookie).utf8))
    }

    public static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
}
