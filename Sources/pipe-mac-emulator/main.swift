import PipeMacEmulator

// One binary, several names: `xcrun`, `xcodebuild`, `xcresulttool`, `simctl` (see emulator/README.md).
Emulator.main()
