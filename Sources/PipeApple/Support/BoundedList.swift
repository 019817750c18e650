/// The first `limit` items of a list that may grow without bound, and how many there were in all.
///
/// Log facts keep what a verdict needs (the first compiler errors, the first failing tests), never the whole log.
public struct BoundedList<Element: Equatable & Sendable>: Equatable, Sendable {
    public let limit: Int
    /// The items kept, in the order they came.
    public private(set) var items: [Element] = []
    /// Every item appended, including those not kept.
    public private(set) var totalCount = 0

    public init(limit: Int) {
        self.limit = limit
    }

    public var isEmpty: Bool { totalCount == 0 }
    public var first: Element? { items.first }
    /// How many items were counted but not kept.
    public var omittedCount: Int { totalCount - items.count }

    mutating func append(_ item: Element) {
        totalCount += 1
        if items.count < limit { items.append(item) }
    }
}
