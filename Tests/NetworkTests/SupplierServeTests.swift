import Foundation
import HTTP
import Hotels
import TestSupport
import Testing

/// `hotels serve --supplier N`: one supplier's view of the matching world, through the `sample` profile, with its truth.
@Suite("hotels serve --supplier")
struct SupplierServeTests {
    static let cities = ["Paris", "London", "Berlin", "New York"]

    @Test("supplier 2 answers pages through the sample profile in its own style, and --truth lists every served code once")
    func supplierTwo() async throws {
        let truth = temporaryPath("truth") + ".jsonl"
        defer { try? FileManager.default.removeItem(atPath: truth) }
        let serve = try await ServeProcess(["--supplier", "2", "--hotels", "400", "--seed", "3", "--truth", truth])
        defer { withExtendedLifetime(serve) {} }
        let client = try sampleClient(serve.baseURL)

        var served: [String: [Hotel]] = [:]
        for city in Self.cities {
            for try await page in client.pages(city: city, pageSize: 50) { served[city, default: []] += page.hotels }
        }
        let paris = try #require(served["Paris"])
        #expect(paris.count > 100)
        // Supplier 2 is a GDS: upper case "BRAND - …" names, "+33…" phones, the postal code inside the street line,
        // chain codes and GIATA ids, positions to four decimals, JPEG logos at 120 px.
        #expect(paris.filter { $0.name == $0.name?.uppercased() }.count * 100 >= paris.count * 85)
        #expect(paris.contains { $0.name?.hasPrefix("IBIS - ") == true || $0.name?.contains(" - ") == true })
        #expect(paris.compactMap(\.phone).allSatisfy { $0.hasPrefix("+33") && !$0.contains(" ") })
        #expect(paris.allSatisfy { $0.postalCode == nil && $0.rating == nil && $0.city == "Paris" && $0.countryCode == "FR" })
        #expect(paris.compactMap(\.address).allSatisfy { $0.hasSuffix(" PARIS") })
        #expect(paris.contains { $0.chainCode != nil } && paris.contains { $0.references?["giata"] != nil })
        #expect(paris.compactMap(\.latitude).allSatisfy { ($0 * 10_000).rounded() / 10_000 == $0 })
        #expect(paris.contains { $0.latitude == nil } && paris.contains { $0.address == nil } && paris.contains { $0.logoURL == nil })
        #expect(served["Berlin"]?.allSatisfy { $0.countryCode == "DE" } == true)
        let logoURL = try #require(paris.compactMap(\.logoURL).first)
        #expect(logoURL.hasPrefix(serve.baseURL + "/logos/S2-") && logoURL.hasSuffix(".jpg"))
        let (head, body) = try await HTTPTransport.patient().data(for: HTTPRequest(url: logoURL))
        #expect(head.status == 200 && head.headers["content-type"] == "image/jpeg" && body.starts(with: [0xFF, 0xD8]))

        // The truth: one line per served code, each a JSON object an evaluator reads as it is.
        let lines = try String(contentsOfFile: truth, encoding: .utf8).split(separator: "\n")
        var truthCodes: [String] = []
        var hotelOf: [String: Int] = [:]
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["supplier"] as? Int == 2)
            let code = try #require(object["code"] as? String)
            truthCodes.append(code)
            hotelOf[code] = object["hotel"] as? Int
            #expect(Self.cities.contains(object["city"] as? String ?? ""))
        }
        let servedCodes = served.values.flatMap { $0.map(\.code) }
        #expect(truthCodes.count == Set(truthCodes).count, "each code once")
        #expect(truthCodes.sorted() == servedCodes.sorted(), "every served code, and no other")
        #expect(hotelOf.count == truthCodes.count)
        // The supplier's duplicates: two codes of one hotel.
        #expect(Dictionary(grouping: hotelOf.keys, by: { hotelOf[$0] ?? -1 }).values.contains { $0.count == 2 })

        // The same seed gives the same records; another supplier, the same hotels written its own way.
        let again = try await ServeProcess(["--supplier", "2", "--hotels", "400", "--seed", "3"])
        defer { withExtendedLifetime(again) {} }
        let first = try await sampleClient(again.baseURL).page(RequestParameters(city: "Paris", pageSize: 20)).hotels
        #expect(first.map(\.code) == Array(paris.prefix(20).map(\.code)))
        #expect(first.map(\.name) == Array(paris.prefix(20).map(\.name)))
    }

    @Test(
        "--supplier outside 1 to 5 is a usage error, and a truth or a request log that cannot be written an I/O error, said in plain words")
    func badArguments() async throws {
        for bad in ["0", "6"] {
            let refused = try await HotelsProcess.run(["serve", "--port", "0", "--supplier", bad], timeLimit: 60)
            #expect(refused.status == 64, "\(bad): \(refused.stderr)")
            #expect(refused.stderr.contains("--supplier must be 1 to 5"), "\(refused.stderr)")
        }
        let alone = try await HotelsProcess.run(["serve", "--port", "0", "--truth", temporaryPath("truth")], timeLimit: 60)
        #expect(alone.status == 64 && alone.stderr.contains("--truth goes with --supplier"), "\(alone.stderr)")
        let unwritable = try await HotelsProcess.run(
            [
                "serve", "--port", "0", "--supplier", "1", "--hotels", "50",
                "--truth", "/nonexistent-\(getpid())/truth.jsonl",
            ], timeLimit: 120)
        #expect(unwritable.status == 74, "\(unwritable.stderr)")
        #expect(unwritable.stderr.contains("cannot write the truth to /nonexistent-"), "\(unwritable.stderr)")
        let unopenable = try await HotelsProcess.run(
            ["serve", "--port", "0", "--log", "/nonexistent-\(getpid())/requests.jsonl"], timeLimit: 60)
        #expect(unopenable.status == 74, "\(unopenable.stderr)")
        #expect(
            unopenable.stderr.contains("cannot open the request log /nonexistent-")
                && unopenable.stderr.contains("no such file or directory") && !unopenable.stderr.contains("NSCocoaErrorDomain"),
            "\(unopenable.stderr)")
    }
}
