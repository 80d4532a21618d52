/// Whether two words are one word with a typo.
enum TokenSimilarity {
    /// Words may differ by one edit and still agree when the longer has at
    /// least 5 characters and the shorter at least 4: "nord" and "lord" are
    /// two words, "place" and "plae" one with a typo.
    static let shortestTypoWord = (longer: 5, shorter: 4)

    /// One substitution, insertion, deletion, or two neighbours exchanged
    /// (optimal string alignment distance at most 1), between two long enough words.
    static func isOneTypoApart<A: RandomAccessCollection<Unicode.Scalar>, B: RandomAccessCollection<Unicode.Scalar>>(_ a: A, _ b: B) -> Bool
    where A.Index == Int, B.Index == Int {
        guard mayBeOneTypoApart(a.count, b.count), !a.elementsEqual(b) else { return false }
        // Offsets from each word's start: a word may be a slice of a street's characters.
        let (a, b) = (Offsets(a), Offsets(b))
        if a.count == b.count {
            var first = 0
            while first < a.count, a[first] == b[first] { first += 1 }
            if sameTail(a, from: first + 1, b, from: first + 1) { return true }
            return first + 1 < a.count && a[first] == b[first + 1] && a[first + 1] == b[first]
                && sameTail(a, from: first + 2, b, from: first + 2)
        }
        if a.count > b.count { return isOneInsertionApart(longer: a, shorter: b) }
        return isOneInsertionApart(longer: b, shorter: a)
    }

    private static func isOneInsertionApart<L, S>(longer: Offsets<L>, shorter: Offsets<S>) -> Bool {
        var first = 0
        while first < shorter.count, shorter[first] == longer[first] { first += 1 }
        return sameTail(shorter, from: first, longer, from: first + 1)
    }

    /// A word's characters by their offset from its start.
    private struct Offsets<Base: RandomAccessCollection<Unicode.Scalar>> where Base.Index == Int {
        let base: Base
        init(_ base: Base) { self.base = base }
        var count: Int { base.count }
        subscript(offset: Int) -> Unicode.Scalar { base[base.startIndex + offset] }
    }

    /// Whether words of these lengths (in characters) can be one typo apart: the test before reading their characters.
    static func mayBeOneTypoApart(_ a: Int, _ b: Int) -> Bool {
        max(a, b) >= shortestTypoWord.longer && min(a, b) >= shortestTypoWord.shorter && abs(a - b) <= 1
    }

    /// Whether `a` from `i` on equals `b` from `j` on.
    private static func sameTail<A, B>(_ a: Offsets<A>, from i: Int, _ b: Offsets<B>, from j: Int) -> Bool {
        guard a.count - i == b.count - j else { return false }
        var (i, j) = (i, j)
        while i < a.count {
            if a[i] != b[j] { return false }
            i += 1
            j += 1
        }
        return true
    }

    /// Whether a word is two neighbouring words written together ("champselysees").
    static func isJoined(_ word: String, _ first: String, _ second: String) -> Bool {
        word.utf8.count == first.utf8.count + second.utf8.count && word.hasPrefix(first) && word.hasSuffix(second)
    }
}
