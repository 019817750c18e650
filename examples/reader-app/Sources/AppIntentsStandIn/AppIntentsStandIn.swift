// A stand-in for the parts of Apple's AppIntents framework that the Reader example touches, so the same intent code
// compiles and its tests run on Linux. Same names and shapes as the real framework (iOS 17 / macOS 14), nothing
// more; where AppIntents exists this file is empty and the real framework is used.
#if !canImport(AppIntents)

    /// A localizable string; here only the key.
    public struct LocalizedStringResource: ExpressibleByStringLiteral, Equatable, Sendable {
        public let key: String

        public init(stringLiteral value: String) {
            key = value
        }
    }

    /// An action the system can run: a title, parameters, and `perform()`.
    public protocol AppIntent {
        associatedtype PerformResult: IntentResult
        static var title: LocalizedStringResource { get }
        init()
        func perform() async throws -> PerformResult
    }

    /// What `perform()` hands back to the system.
    public protocol IntentResult {
        associatedtype Value = Never
        var value: Value? { get }
    }

    /// A result that carries a value back to the caller (a shortcut's next action, or a test).
    public protocol ReturnsValue<Value>: IntentResult {
        associatedtype Value
    }

    /// The concrete result type behind `.result(value:)` (the real one has more generic parameters).
    public struct IntentResultContainer<Value>: ReturnsValue {
        public let value: Value?
    }

    extension IntentResult {
        public static func result<Value>(value: Value) -> Self where Self == IntentResultContainer<Value> {
            IntentResultContainer(value: value)
        }
    }

    /// `@Parameter(title:)`: a value the system asks the user for before running the intent.
    @propertyWrapper
    public struct Parameter<Value> {
        public let title: LocalizedStringResource
        private var storage: Value?

        public init(title: LocalizedStringResource) {
            self.title = title
        }

        public var wrappedValue: Value {
            get {
                guard let storage else { preconditionFailure("parameter '\(title.key)' was read before it was set") }
                return storage
            }
            set { storage = newValue }
        }
    }

    /// Offers intents to the system as App Shortcuts.
    public protocol AppShortcutsProvider {
        @AppShortcutsBuilder static var appShortcuts: [AppShortcut] { get }
    }

    @resultBuilder
    public enum AppShortcutsBuilder {
        public static func buildBlock(_ shortcuts: AppShortcut...) -> [AppShortcut] {
            shortcuts
        }
    }

    /// One intent offered with its spoken phrases, short title and symbol.
    public struct AppShortcut {
        public let phrases: [String]
        public let shortTitle: LocalizedStringResource
        public let systemImageName: String

        public init<Intent: AppIntent>(
            intent: Intent, phrases: [AppShortcutPhrase<Intent>], shortTitle: LocalizedStringResource,
            systemImageName: String
        ) {
            self.phrases = phrases.map(\.text)
            self.shortTitle = shortTitle
            self.systemImageName = systemImageName
        }
    }

    /// Placeholders a phrase may hold; every phrase must name the app.
    public enum AppShortcutPhraseToken {
        case applicationName
    }

    /// A phrase such as `"Check a reading ID in \(.applicationName)"`.
    public struct AppShortcutPhrase<Intent: AppIntent>: ExpressibleByStringInterpolation {
        public let text: String

        public init(stringLiteral value: String) {
            text = value
        }

        public init(stringInterpolation: StringInterpolation) {
            text = stringInterpolation.text
        }

        public struct StringInterpolation: StringInterpolationProtocol {
            var text = ""

            public init(literalCapacity: Int, interpolationCount: Int) {}

            public mutating func appendLiteral(_ literal: String) {
                text += literal
            }

            public mutating func appendInterpolation(_ token: AppShortcutPhraseToken) {
                text += "${applicationName}"
            }
        }
    }

#endif
