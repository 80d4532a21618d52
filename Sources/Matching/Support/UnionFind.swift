/// Union–find over indices `0..<count`: each index's group, known by its root, paths shortened as they are walked.
struct UnionFind {
    private var parent: [Int]

    init(count: Int) { parent = Array(0..<count) }

    mutating func root(of index: Int) -> Int {
        var root = index
        while parent[root] != root { root = parent[root] }
        var node = index
        while parent[node] != root { (node, parent[node]) = (parent[node], root) }
        return root
    }

    /// Puts the group of `child`, a root, into the group of `root`.
    mutating func attach(_ child: Int, to root: Int) { parent[child] = root }

    /// Joins the groups of two indices; the lower root stays.
    mutating func join(_ a: Int, _ b: Int) {
        let (rootA, rootB) = (root(of: a), root(of: b))
        if rootA != rootB { attach(max(rootA, rootB), to: min(rootA, rootB)) }
    }
}
