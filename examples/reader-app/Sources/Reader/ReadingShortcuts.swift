#if canImport(AppIntents)
    import AppIntents
#else
    import AppIntentsStandIn
#endif

/// Offers `CheckReadingIDIntent` in Shortcuts and Siri. The phrase keeps the app-name placeholder so the system ties
/// the action to this app. Whether the action actually appears is checked by hand in a simulator (a release
/// checklist item), never by an automated wait.
public struct ReadingShortcuts: AppShortcutsProvider {
    public static var appShortcuts: [AppShortcut] {
        AppShortcut(
            intent: CheckReadingIDIntent(),
            phrases: ["Check a reading ID in \(.applicationName)"],
            shortTitle: "Check Reading ID",
            systemImageName: "book"
        )
    }
}
