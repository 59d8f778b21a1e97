/// The version of screens-pipe: the one place it is written. `screens-pipe --version`
/// prints it, CHANGELOG.md has a section for it, and a release is tagged with it, so a
/// package depends on this release with `.package(url: ".../screens-pipe.git", from: "0.2.0")`.
public enum ScreensPipeVersion {
    /// The version, as `major.minor.patch`.
    public static let current = "0.2.0"
}
