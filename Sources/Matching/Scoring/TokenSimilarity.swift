/// Whether two words are one word with a typo.
enum TokenSimilarity {
    /// Words may differ by one edit and still agree when the longer has at
    /// least 5 characters and the shorter at least 4: "nord" and "lord" are
    /// two words, "place" and "plae" one with a typo.
    static let shortestTypoWord = (longer: 5, shorter: 4)

    /// One substitution, insertion, deletion, or two neighbours exchanged
    /// (optimal string alignment distance at most 1), between two long enough words.
    static func isOneTypoApart(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Bool {
        guard max(a.count, b.count) >= shortestTypoWord.longer, min(a.count, b.count) >= shortestTypoWord.shorter,
              abs(a.count - b.count) <= 1, a != b else { return false }
        if a.count == b.count {
            guard let first = a.indices.first(where: { a[$0] != b[$0] }) else { return false }
            if a[(first + 1)...] == b[(first + 1)...] { return true }
            return first + 1 < a.count && a[first] == b[first + 1] && a[first + 1] == b[first]
                && a[(first + 2)...] == b[(first + 2)...]
        }
        let (longer, shorter) = a.count > b.count ? (a, b) : (b, a)
        let first = shorter.indices.first(where: { shorter[$0] != longer[$0] }) ?? shorter.count
        return shorter[first...] == longer[(first + 1)...]
    }

    /// Whether a word is two neighbouring words written together ("champselysees").
    static func isJoined(_ word: String, _ first: String, _ second: String) -> Bool {
        word.utf8.count == first.utf8.count + second.utf8.count && word.hasPrefix(first) && word.hasSuffix(second)
    }
}
