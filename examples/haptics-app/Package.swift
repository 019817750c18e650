// swift-tools-version:6.0
// The haptics example that pipelines/haptics.yml verifies: the save confirmation's haptic event definition, shared
// by the app and its tests, and a save controller that plays it (through an injectable player) only after a save
// succeeded. Its own package: Pipe's root package does not see it.
import PackageDescription

let package = Package(
    name: "HapticsApp",
    platforms: [.iOS(.v16), .macOS(.v13)],
    products: [
        .library(name: "Haptics", targets: ["Haptics"])
    ],
    targets: [
        // Linux only: the few CoreHaptics declarations the example touches. Empty where CoreHaptics exists.
        .target(name: "CoreHapticsStandIn"),
        .target(
            name: "Haptics",
            dependencies: [.target(name: "CoreHapticsStandIn", condition: .when(platforms: [.linux]))]
        ),
        .testTarget(name: "HapticsTests", dependencies: ["Haptics"]),
    ],
    // Swift 5 mode, like the reader example: the CoreHaptics branch cannot be compiled here.
    swiftLanguageModes: [.v5]
)
