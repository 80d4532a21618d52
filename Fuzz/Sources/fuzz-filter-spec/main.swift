import FuzzCheck
import Imaging

/// A filter spec either parses, and then its canonical form parses back to
/// the same chain, or is refused with FilterSpecError (typed throws).
func fuzzFilterSpec(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let spec = String(decoding: input(start, count), as: UTF8.self)
    guard let chain = try? FilterChain(parsing: spec) else { return 0 }
    let canonical = chain.description
    guard let again = try? FilterChain(parsing: canonical) else {
        invariant(false, "the canonical form “\(canonical)” of “\(spec)” does not parse")
        return 0
    }
    invariant(again == chain, "“\(spec)” → “\(canonical)” → a different chain")
    return 0
}

runFuzzer(fuzzFilterSpec)
