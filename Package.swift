// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "handsh",
  products: [
    .executable(name: "handsh", targets: ["handsh"]),
    .library(name: "HandKit", targets: ["HandKit"]),
  ],
  targets: [
    // The pure core: cards, the seeded deck, immutable versions, the language,
    // the session, the renderers and the option table. No I/O, no globals,
    // no Foundation.
    .target(name: "HandKit"),
    // GNU readline, found through pkg-config (Debian: libreadline-dev).
    .systemLibrary(
      name: "CReadline",
      pkgConfig: "readline",
      providers: [.apt(["libreadline-dev"])]
    ),
    // The prompt's C side: readline's callback loop, the signal handler and
    // its self-pipe, completion and locale glue (handsh(1), THE PROMPT).
    .target(name: "CHandsh", dependencies: ["CReadline"]),
    // The shell around the core: modes, line sources, the runner,
    // output, saving, the prompt. All of it testable in-process.
    .target(name: "HandshCLI", dependencies: ["HandKit", "CReadline", "CHandsh"]),
    // The executable: hands argv to HandshCLI and exits with its status.
    .executableTarget(name: "handsh", dependencies: ["HandshCLI"]),
    .testTarget(name: "HandKitTests", dependencies: ["HandKit"]),
    .testTarget(name: "HandshCLITests", dependencies: ["HandshCLI", "HandKit"]),
    .testTarget(name: "handshTests", dependencies: ["handsh", "HandshCLI", "HandKit"]),
  ]
)
