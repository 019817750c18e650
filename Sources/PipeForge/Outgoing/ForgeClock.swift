import Foundation

/// Time as the forge code sees it: injected, so tests of backoff, rate limits and token expiry take milliseconds.
public protocol ForgeClock: Sendable {
    func now() -> Date
    func sleep(seconds: Double)
}

/// The real clock.
public struct SystemForgeClock: ForgeClock {
    public init() {}
    public func now() -> Date { Date() }
    public func sleep(seconds: Double) {
        guard seconds > 0 else { return }
        Thread.sleep(forTimeInterval: seconds)
    }
}

/// Sends one request until the forge takes it or refuses it for good, waiting as `ForgeAnswerReader` says.
/// The transport (the shared HTTP client) is passed in: this type holds no network code.
public struct ForgeRetryingSender: Sendable {
    public var reader: ForgeAnswerReader
    public var clock: any ForgeClock
    /// A number in 0...1 for the jitter.
    public var random: @Sendable () -> Double

    public init(
        reader: ForgeAnswerReader, clock: any ForgeClock = SystemForgeClock(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }
    ) {
        self.reader = reader
        self.clock = clock
        self.random = random
    }

    /// The forge's successful answer, or why it was not taken. `transport` throws when no answer came.
    public func send(
        _ request: ForgeRequest, through transport: (ForgeRequest) throws -> ForgeResponse
    ) -> Result<ForgeResponse, ForgeFailure> {
        var attempt = 1
        while true {
            let verdict: ForgeAnswerReader.Verdict
            do {
                let response = try transport(request)
                verdict = reader.read(response, attempt: attempt, now: clock.now(), random: random())
            } catch {
                verdict = reader.readTransportFailure(String(describing: error), attempt: attempt, random: random())
            }
            switch verdict {
            case .done(let response): return .success(response)
            case .giveUp(let failure): return .failure(failure)
            case .retry(let seconds, _):
                clock.sleep(seconds: seconds)
                attempt += 1
            }
        }
    }
}
