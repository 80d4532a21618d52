import Foundation
import TestSupport
import Testing

/// The Fetch a List article shows `Examples/FetchCity`, which `make test`
/// builds and runs: the article's code compiles because it is that program.
@Suite("Documentation")
struct DocumentationTests {
    @Test("the Fetch a List article's code is Examples/FetchCity/main.swift, byte for byte")
    func articleIsTheExample() throws {
        let repository = Samples.root.deletingLastPathComponent()
        let article = try String(
            contentsOf: repository.appendingPathComponent("Sources/Runtime/Runtime.docc/FetchAList.md"),
            encoding: .utf8)
        let example = try String(contentsOf: repository.appendingPathComponent("Examples/FetchCity/main.swift"), encoding: .utf8)
        let blocks = article.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "```").first ?? "" }
        #expect(blocks == [example])
    }
}
