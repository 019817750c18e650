// swift-tools-version:5.9
// A stand-in package: in canned mode the emulator never builds it, it only needs to look like a package.
import PackageDescription

let package = Package(name: "Reader", targets: [])
