import Foundation
import Testing
import TestSupport

@Suite("hotels profile and hotels call", .serialized)
struct ProfileCommandTests {
    @Test("round trip: init on hotels serve's own WSDL gives a profile that fetches the whole list, as the built-in profile does")
    func roundTrip() throws {
        let serve = try ServeProcess(["--hotels", "600"])
        let folder = try DocumentFolder()
        let profile = folder.path("sample-from-wsdl.json")
        let initRun = try HotelsProcess.run(["profile", "init", "--wsdl", serve.endpoint + "?wsdl", "--operation", "QueryHotels",
                                             "--out", profile, "--cache", folder.path("cache")])
        #expect(initRun.status == 0, "\(initRun.stderr)")
        #expect(initRun.stderr.contains("paging cursor"))
        var lists: [String] = []
        for (name, profile) in [("drafted", profile), ("built-in", "sample")] {
            let out = folder.path(name)
            let fetch = try HotelsProcess.run(["fetch", "--endpoint", serve.endpoint, "--city", "Paris", "--profile", profile,
                                               "--page-size", "40", "--out", out, "--cache", folder.path("store-\(name)")])
            #expect(fetch.status == 0, "\(fetch.stderr)")
            #expect(fetch.stdout.contains("end: endMarker"))
            lists.append(try String(contentsOfFile: out + "/hotels.jsonl", encoding: .utf8))
        }
        #expect(lists[0] == lists[1])
        #expect(lists[0].split(separator: "\n").count > 40)
    }

    @Test("inspect prints the operations, and --json the same for machines; a second run reads the cache")
    func inspect() throws {
        let serve = try ServeProcess()
        let folder = try DocumentFolder()
        let first = try HotelsProcess.run(["profile", "inspect", serve.endpoint + "?wsdl", "--cache", folder.path("cache")])
        #expect(first.status == 0)
        #expect(first.stdout.contains("1 fetched"))
        #expect(first.stdout.contains("binding SampleHotelsSoap12: SOAP 1.2"))
        #expect(first.stdout.contains("SOAPAction: urn:hotelkit:sample#QueryHotels"))
        let second = try HotelsProcess.run(["profile", "inspect", serve.endpoint + "?wsdl", "--cache", folder.path("cache"), "--offline", "--json"])
        #expect(second.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(second.stdout.utf8)) as? [String: Any])
        let bindings = try #require(json["bindings"] as? [[String: Any]])
        #expect(bindings.compactMap { $0["soapVersion"] as? String } == ["1.1", "1.2"])
        let documents = try #require(json["documents"] as? [[String: Any]])
        #expect(documents.compactMap { $0["origin"] as? String } == ["cache"])
    }

    @Test("refusals carry their exit status and hint: a foreign host 65, a missing file 66, an unknown operation 64")
    func refusals() throws {
        let folder = try DocumentFolder()
        let foreign = try folder.write("a.wsdl", Documents.wsdl(schemaImports: ["http://evil.invalid/x.xsd"]))
        let refused = try HotelsProcess.run(["profile", "inspect", foreign, "--cache", folder.path("cache")])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("hint: if you trust it, add --allow-host evil.invalid"))
        let missing = try HotelsProcess.run(["profile", "inspect", folder.path("absent.wsdl")])
        #expect(missing.status == 66)
        let unknown = try HotelsProcess.run(["profile", "init", "--wsdl", Samples.url("Real/wsdl/cxf/CustomerService.wsdl").path, "--operation", "Book"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("updateCustomer, getCustomersByName"))
    }

    @Test("check prints the request with the options filled in and every secret masked")
    func check() throws {
        let run = try HotelsProcess.run(["profile", "check", Samples.url("Profiles/sample-wsse.json").path, "--city", "Zürich & Co"],
                                        environment: ["SAMPLE_USER": "alice", "SAMPLE_PASSWORD": "s3cret-pw"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Zürich &amp; Co"))
        #expect(run.stdout.contains("SOAPAction: urn:hotelkit:sample#QueryHotels"))
        #expect(!run.stdout.contains("s3cret-pw"))
        #expect(run.stdout.contains("‹redacted›"))
        let broken = try HotelsProcess.run(["profile", "check", Samples.url("Profiles/none.json").path])
        #expect(broken.status == 66)
    }

    @Test("call sends one request and prints the records, the paging state and nothing secret; --dump keeps the exchange")
    func call() throws {
        let serve = try ServeProcess()
        let folder = try DocumentFolder()
        let run = try HotelsProcess.run(["call", "--profile", "sample", "--endpoint", serve.endpoint, "--city", "Tokyo", "--page-size", "3",
                                         "--dump", folder.path("dump")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").count == 3)
        #expect(run.stderr.contains("3 records, 0 warnings"))
        #expect(run.stderr.contains("paging: cursor field:addtime"))
        #expect(run.stderr.contains("the next page asks for it"))
        let dumped = try FileManager.default.contentsOfDirectory(atPath: folder.path("dump")).sorted()
        #expect(dumped == ["001-call.request.http", "001-call.response.http"])
    }
}
