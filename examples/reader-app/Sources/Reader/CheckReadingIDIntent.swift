#if canImport(AppIntents)
    import AppIntents
#else
    import AppIntentsStandIn
#endif

/// "Check reading ID": normalizes the ID the user enters and hands it back. It writes nothing: a returned value is
/// not a saved record, and saving gets its own tests once it exists.
public struct CheckReadingIDIntent: AppIntent {
    public static let title: LocalizedStringResource = "Check Reading ID"
    public static let openAppWhenRun = false

    @Parameter(title: "Reading ID")
    public var readingID: String

    public init() {}

    public init(readingID: String) {
        self.init()
        self.readingID = readingID
    }

    /// Returns the normalized ID; throws the rule's typed error for an ID it refuses.
    public func perform() async throws(ReadingIDError) -> some IntentResult & ReturnsValue<String> {
        let normalized = try ReadingID.normalize(readingID)
        return .result(value: normalized)
    }
}
