import Foundation
import TestSupport
import Testing

/// `hotels match`, `match explain/review/decide` and `hotels properties` as a
/// person runs them, on SQLite and on the shared store, against `hotels serve`.
@Suite("hotels match and hotels properties")
struct MatchCommandTests {
    enum Store: String, CaseIterable, CustomTestStringConvertible {
        case cache, shared
        var testDescription: String { rawValue }

        /// `--cache DIR` or `--store URL` of a new, empty store.
        func options() async throws -> [String] {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("match-\(UUID().uuidString)").path
            switch self {
            case .cache: return ["--cache", folder]
            case .shared: return ["--store", try await TestPostgres.shared().makeDatabase(), "--cache", folder]
            }
        }
    }

    @Test(
        "an empty store has nothing to match (66); two suppliers' lists match into properties printed as JSON lines; a fetch that changes a matched city matches it again; explain, decide and their bad references",
        arguments: Store.allCases)
    func endToEnd(_ store: Store) async throws {
        let options = try await store.options()
        let empty = try await HotelsProcess.run(["match"] + options)
        #expect(empty.status == 66 && empty.stderr.contains("holds no list to match") && empty.stderr.contains("hint: hotels fetch"))
        #expect(try await HotelsProcess.run(["properties"] + options).status == 66)

        let serve = try await ServeProcess(["--hotels", "200"])
        defer { withExtendedLifetime(serve) {} }
        let fetched = try await HotelsProcess.run(
            [
                "fetch", "--endpoint", serve.endpoint, "--city", "Paris", "--page-size", "50", "--out",
                FileManager.default.temporaryDirectory.appendingPathComponent("out-\(UUID().uuidString)").path,
            ] + options)
        #expect(fetched.status == 0, "\(fetched.stderr)")
        let matched = try await HotelsProcess.run(["match", "--json"] + options)
        #expect(matched.status == 0, "\(matched.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(matched.stdout.utf8)) as? [String: Any])
        let records = try #require(summary["records"] as? Int)
        #expect(records > 0 && summary["suppliers"] as? Int == 1 && summary["multiSupplierProperties"] as? Int == 0)

        // The same service under another host name is a second supplier with the same hotels: fetching it changes
        // the matched city, which is matched again at once, every property now with both.
        let second = serve.endpoint.replacingOccurrences(of: "127.0.0.1", with: "localhost")
        let again = try await HotelsProcess.run(
            [
                "fetch", "--endpoint", second, "--city", "Paris", "--page-size", "50", "--out",
                FileManager.default.temporaryDirectory.appendingPathComponent("out-\(UUID().uuidString)").path,
            ] + options)
        #expect(
            again.status == 0 && again.stderr.contains("matched again: \(2 * records) records from 2 suppliers → \(records) properties"),
            "\(again.stderr)")
        let properties = try await HotelsProcess.run(["properties", "--json", "--suppliers", "2"] + options)
        let lines = properties.stdout.split(separator: "\n")
        #expect(properties.status == 0 && lines.count == records)
        let first = try #require(lines.first)
        #expect(
            first.hasPrefix(#"{"id":"P"#) && first.contains(#","name":"#) && first.contains(#","confidence":"#)
                && first.contains(#""members":[{"list":"#))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        let members = try #require(object["members"] as? [[String: Any]])
        let references = members.map { "\($0["list"] as? Int ?? 0):\($0["code"] as? String ?? "")" }
        #expect(references.count == 2)

        let explained = try await HotelsProcess.run(["match", "explain", references[0], references[1]] + options)
        #expect(explained.status == 0 && explained.stdout.contains("score ") && explained.stdout.contains(": match"), "\(explained.stdout)")
        let decided = try await HotelsProcess.run(["match", "decide", references[0], references[1], "different"] + options)
        #expect(decided.status == 0 && decided.stdout.contains("different, recorded; in P"), "\(decided.stdout)\(decided.stderr)")
        let split = try await HotelsProcess.run(["properties", "--json", "--suppliers", "2"] + options)
        #expect(split.stdout.split(separator: "\n").count == records - 1)
        // The kept id is still the property's: a rerun changes nothing.
        let rerun = try await HotelsProcess.run(["properties", "--json"] + options)
        _ = try await HotelsProcess.run(["match"] + options)
        #expect(try await HotelsProcess.run(["properties", "--json"] + options).stdout == rerun.stdout)

        for (arguments, status, says) in [
            (["match", "explain", "9999:X", references[1]], Int32(66), "no list 9999"),
            (["match", "explain", references[0], "PAR1"], 64, "is not LIST:CODE"),
            (["match", "decide", references[0], references[1], "maybe"], 64, "same\" or \"different"),
            (["match", "decide", references[0], references[0], "same"], 64, "one record"),
        ] {
            let result = try await HotelsProcess.run(arguments + options)
            #expect(result.status == status && result.stderr.contains(says), "\(arguments): \(result.stderr)")
        }
    }

    @Test(
        "match --logos fetches and hashes each supplier's logos once, keeps the hashes with the logo index, and the same picture from two suppliers agrees",
        arguments: Store.allCases)
    func logos(_ store: Store) async throws {
        let options = try await store.options()
        var suppliers: [ServeProcess] = []
        for supplier in ["1", "3"] { suppliers.append(try await ServeProcess(["--supplier", supplier, "--hotels", "60", "--seed", "5"])) }
        defer { withExtendedLifetime(suppliers) {} }
        for serve in suppliers {
            let fetched = try await HotelsProcess.run(
                [
                    "fetch", "--endpoint", serve.endpoint, "--city", "Paris", "--page-size", "100", "--out",
                    FileManager.default.temporaryDirectory.appendingPathComponent("out-\(UUID().uuidString)").path,
                ] + options)
            #expect(fetched.status == 0, "\(fetched.stderr)")
        }
        let matched = try await HotelsProcess.run(["match", "--logos", "--json"] + options)
        #expect(matched.status == 0, "\(matched.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(matched.stdout.utf8)) as? [String: Any])
        let hashed = try #require(summary["logosHashed"] as? Int)
        #expect(hashed > 20 && summary["logosFailed"] as? Int == 0, "\(matched.stdout)")
        // Kept with the index: a second run loads and hashes nothing, and says nothing of logos.
        let again = try await HotelsProcess.run(["match", "--logos"] + options)
        #expect(again.status == 0 && !again.stdout.contains("logo"), "\(again.stdout)")

        // A hotel both suppliers list with a logo: the two pictures agree, whatever each supplier's size and format.
        let properties = try await HotelsProcess.run(["properties", "--json", "--suppliers", "2"] + options)
        var agreeing = 0
        for line in properties.stdout.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let members = try #require(object["members"] as? [[String: Any]]).map {
                "\($0["list"] as? Int ?? 0):\($0["code"] as? String ?? "")"
            }
            let explained = try await HotelsProcess.run(["match", "explain", members[0], members[1], "--json"] + options)
            let explanation = try #require(try JSONSerialization.jsonObject(with: Data(explained.stdout.utf8)) as? [String: Any])
            let signals = try #require(explanation["signals"] as? [[String: Any]])
            let logo = try #require(signals.first { $0["signal"] as? String == "logo" })
            #expect(logo["level"] as? String != "different", "\(members): \(logo)")
            if logo["level"] as? String == "exact" { agreeing += 1 }
            if agreeing == 3 { break }
        }
        #expect(agreeing == 3, "\(properties.stdout)")
    }
}
