/// The Liferay portal version the sandbox stands in for.
///
/// JSON-WS signatures differ between versions (7.3 added `locale` to the journal article
/// list and renamed `obc` to `orderByComparator`), and headless delivery first shipped with
/// 7.2. Pick one with `screens-pipe sandbox --liferay-version 7.4` or
/// ``SandboxConfiguration/liferayVersion``.
public enum LiferayVersion: String, Sendable, CaseIterable, Comparable, CustomStringConvertible {
    /// Liferay Portal / DXP 7.0.
    case v7_0 = "7.0"
    /// 7.1.
    case v7_1 = "7.1"
    /// 7.2: headless delivery v1.0 ships.
    case v7_2 = "7.2"
    /// 7.3: the journal article list takes `locale` and `orderByComparator`.
    case v7_3 = "7.3"
    /// 7.4 (served with the 7.3 JSON-WS catalogue).
    case v7_4 = "7.4"

    /// 7.2: the first version that serves both every sample pipeline's JSON-WS signature
    /// (`obc` without `locale`) and headless delivery.
    public static let `default`: LiferayVersion = .v7_2

    /// Whether `/o/headless-delivery/v1.0/...` exists (7.2 and later).
    public var servesHeadlessDelivery: Bool { self >= .v7_2 }

    /// `7.0` ... `7.4`.
    public var description: String { rawValue }

    /// Older versions sort first.
    public static func < (lhs: LiferayVersion, rhs: LiferayVersion) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
