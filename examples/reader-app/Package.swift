// swift-tools-version:6.0
// The app-intents example that Pipe's default pipeline verifies: a reading-ID rule, an App Intent that applies it,
// and the App Shortcut that offers the intent. Its own package: Pipe's root package does not see it.
import PackageDescription

let package = Package(
    name: "ReaderApp",
    // AppShortcut(intent:phrases:shortTitle:systemImageName:) needs iOS 17 / macOS 14.
    platforms: [.iOS(.v17), .macOS(.v14)],
    products: [
        .library(name: "Reader", targets: ["Reader"])
    ],
    targets: [
        // Linux only: the few AppIntents declarations the example touches. Empty where AppIntents exists.
        .target(name: "AppIntentsStandIn"),
        .target(
            name: "Reader",
            dependencies: [.target(name: "AppIntentsStandIn", condition: .when(platforms: [.linux]))]
        ),
        .testTarget(name: "ReaderTests", dependencies: ["Reader"]),
    ],
    // Swift 5 mode, like Pipe itself: the AppIntents branch cannot be compiled here, so it stays in the mode its
    // declarations (`static var title`-style requirements) are most often written for.
    swiftLanguageModes: [.v5]
)
