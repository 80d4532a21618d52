import Hotels

/// What storing a page does to a list, decided before any of it is written:
/// rows in (the page, and the list's rows with the same codes), a plan out.
/// Both stores execute it in SQL, in the page's transaction, so the rules
/// are written once:
///
/// - **Page 1 merged** (``merge(_:existing:list:)``): a page that shares no
///   code with a non-empty list replaces it, and its paging starts over.
///   Otherwise its rows go above the list's top, in the page's order: new
///   codes inserted, known ones updated in place (counted as moved when
///   their `addtime` changed). The cached continuation is kept unless the
///   list started over or had none.
/// - **"Load more"** (``append(_:existing:list:)``): new codes go after the
///   list's last row, in order; known codes are updated where they are. The
///   page's checkpoint is always saved.
///
/// A code repeated within a page counts once, its first row.
public struct PagePlan: Sendable, Equatable {
    /// A row to write, at its position; nil keeps an updated row where it is.
    public struct Row: Sendable, Equatable {
        public var hotel: Hotel
        public var position: Int64?

        public init(hotel: Hotel, position: Int64?) {
            self.hotel = hotel
            self.position = position
        }
    }

    /// The list's state before the page: its bounds, and whether it has rows and a checkpoint.
    public struct ListState: Sendable, Equatable {
        public var isEmpty: Bool
        public var hasCheckpoint: Bool
        /// The first row's position (0 for an empty list).
        public var top: Int64
        /// One past the last row's position (0 for an empty list).
        public var next: Int64

        public init(isEmpty: Bool, hasCheckpoint: Bool, top: Int64, next: Int64) {
            self.isEmpty = isEmpty
            self.hasCheckpoint = hasCheckpoint
            self.top = top
            self.next = next
        }
    }

    /// Every row of the list goes before the page's are written.
    public var replacesList = false
    public var inserts: [Row] = []
    public var updates: [Row] = []
    /// Whether the page's checkpoint is saved with it.
    public var savesCheckpoint = true
    /// What page 1's merge did, as the summary reports it.
    public var merge = MergeResult()
    /// The list's bounds once the plan is written.
    public var top: Int64
    public var next: Int64

    /// Page 1 merged into the list; `existing` holds the list's rows with the page's codes.
    public static func merge(_ page: [Hotel], existing: [String: Hotel], list: ListState) -> PagePlan {
        let replaces = !list.isEmpty && existing.isEmpty && !page.isEmpty
        let startsOver = replaces || list.isEmpty
        let top = startsOver ? 0 : list.top
        var plan = PagePlan(top: page.isEmpty ? list.top : top - Int64(page.count), next: page.isEmpty || !startsOver ? list.next : 0)
        plan.replacesList = replaces
        plan.merge.replaced = replaces
        for index in distinct(page) {
            let hotel = page[index]
            let row = Row(hotel: hotel, position: top - Int64(page.count) + Int64(index))
            if let old = existing[hotel.code] {
                if old.addtime != hotel.addtime {
                    plan.merge.moved += 1
                } else if old != hotel {
                    plan.merge.updated += 1
                }
                plan.updates.append(row)
            } else {
                plan.inserts.append(row)
                plan.merge.inserted += 1
            }
        }
        // The cached continuation still holds unless the list started over.
        plan.savesCheckpoint = startsOver || !list.hasCheckpoint
        return plan
    }

    /// A "load more" page after the list's last row; `existing` holds the page's codes the list has.
    public static func append(_ page: [Hotel], existing: Set<String>, list: ListState) -> PagePlan {
        var plan = PagePlan(top: list.top, next: list.next)
        for index in distinct(page) {
            if existing.contains(page[index].code) {
                plan.updates.append(Row(hotel: page[index], position: nil))
            } else {
                plan.inserts.append(Row(hotel: page[index], position: plan.next))
                plan.next += 1
            }
        }
        return plan
    }

    /// Rows new to the list.
    public var added: Int { inserts.count }

    /// The indices of the page's rows, each code's first only. Indices, not rows: a `Hotel` copied is a dozen
    /// retains, and a page's rows were copied twice here on their way to the store (session 29's profile).
    private static func distinct(_ page: [Hotel]) -> [Int] {
        var seen = Set<String>(minimumCapacity: page.count)
        return page.indices.filter { seen.insert(page[$0].code).inserted }
    }
}
