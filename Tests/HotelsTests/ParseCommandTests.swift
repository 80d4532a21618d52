import Foundation
import TestSupport
import Testing

@Suite("hotels parse")
struct ParseCommandTests {
    @Test("prints the golden JSON Lines and exits 0")
    func records() async throws {
        let result = try await HotelsProcess.run(["parse", "Samples/Fixtures/sample-soap11.xml"])
        #expect(result.status == 0)
        #expect(result.stdout == (try String(contentsOf: Samples.url("Expected/sample-soap11.jsonl"), encoding: .utf8)))
        #expect(result.stderr.isEmpty)
    }

    @Test("--count prints one summary over every file; warnings go to stderr")
    func count() async throws {
        let result = try await HotelsProcess.run([
            "parse", "--count", "Samples/Fixtures/sample-soap11.xml", "Samples/Fixtures/sample-bad-records.xml",
        ])
        #expect(result.status == 0)
        #expect(
            result.stdout
                == #"{"records": 8, "warnings": 10, "warningsByKind": {"addtime":1,"code":2,"latitude":2,"logoURL":3,"longitude":2}}"#
                + "\n")
        #expect(result.stderr.contains("hotels: warning: Samples/Fixtures/sample-bad-records.xml: record 1: no code; record skipped"))
    }

    @Test("“-” reads standard input")
    func standardInput() async throws {
        let data = try Data(contentsOf: Samples.url("Fixtures/ota-search.xml"))
        let result = try await HotelsProcess.run(["parse", "--profile", "ota-search", "--count", "-"], stdin: data)
        #expect(result.stdout == "{\"records\": 3, \"warnings\": 0}\n")
    }

    @Test(
        "exit codes follow sysexits",
        arguments: [
            (["parse", "Samples/Fixtures/hostile-xxe-file.xml"], 65, "refused a DOCTYPE"),
            (["parse", "Samples/Fixtures/html-502.html"], 65, "HTML page titled “502 Bad Gateway”"),
            (["parse", "Samples/Fixtures/html-502.html"], 65, "hint: check the endpoint URL"),
            (
                ["parse", "--profile", "ota-search", "Samples/Fixtures/ota-search-bare.xml"], 65,
                #"hint: the service answers plain XML, with <OTA_HotelSearchRS> as the root: set "envelope": "none" (or "auto") in the profile"#
            ),
            (["parse", "Samples/Fixtures/truncated.xml"], 65, "malformed XML"),
            (["parse", "Samples/Fixtures/fault-soap12-sender.xml"], 76, "env:Sender"),
            (["parse", "Samples/Fixtures/fault-soap11-client.xml"], 77, "Client.Authentication"),
            (["parse", "--profile", "ota-search", "Samples/Fixtures/ota-errors.xml"], 76, "Invalid hotel city code"),
            (["parse", "--profile", "nope", "Samples/Fixtures/sample-soap11.xml"], 64, "no such built-in profile"),
            (["parse", "--max-depth", "3", "Samples/Fixtures/sample-soap11.xml"], 65, "--max-depth"),
            (["parse", "Samples/Fixtures/does-not-exist.xml"], 66, "cannot open"),
            (["parse"], 64, "Missing expected argument"),
        ])
    func exitCodes(arguments: [String], status: Int32, message: String) async throws {
        let result = try await HotelsProcess.run(arguments)
        #expect(result.status == status)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test("an error the profile names as a refused login exits 77 with the credentials hint; another value of the same path, 76")
    func valueAuthenticationError() async throws {
        let response = try String(contentsOf: Samples.url("Real/tbo/HotelCancelResponse-status-05.xml"), encoding: .utf8)
        let arguments = ["parse", "--profile", "Samples/Profiles/tbo-style.json", "-"]
        let refused = try await HotelsProcess.run(
            arguments, stdin: Data(response.replacingOccurrences(of: "<StatusCode>05<", with: "<StatusCode>02<").utf8))
        #expect(refused.status == 77 && refused.stderr.contains("check the credentials"), "\(refused.stderr)")
        let other = try await HotelsProcess.run(arguments, stdin: Data(response.utf8))
        #expect(other.status == 76 && !other.stderr.contains("check the credentials"), "\(other.stderr)")
    }

    @Test("a bad profile file exits 78 naming the key")
    func badProfile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("hotelkit-bad-profile-\(getpid()).json")
        try #"{"name": "x"}"#.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await HotelsProcess.run(["parse", "--profile", file.path, "Samples/Fixtures/sample-soap11.xml"])
        #expect(result.status == 78)
        #expect(result.stderr.contains("“body”: is required"))
    }

    @Test("a profile whose body has a bad date pattern or an unbalanced section is refused when it loads: 78, naming body and the reason")
    func badTemplates() async throws {
        let sabre = try String(contentsOf: Samples.url("Profiles/sabre-style.json"), encoding: .utf8)
        #expect(sabre.contains("{today+30:MM-dd}") && sabre.contains("{/more}"))
        for (change, reason) in [
            (("{today+30:MM-dd}", "{today+30:YYYY-dd}"), "the year of the week"),
            (("{/more}", ""), "{?more} is not closed by {/more}"),
        ] {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent(
                "hotelkit-bad-template-\(getpid())-\(UUID().uuidString).json")
            try sabre.replacingOccurrences(of: change.0, with: change.1).write(to: file, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: file) }
            let result = try await HotelsProcess.run(["parse", "--profile", file.path, "Samples/Fixtures/sample-soap11.xml"])
            #expect(result.status == 78, "\(result.stderr)")
            #expect(result.stderr.contains("“body”") && result.stderr.contains(reason), "\(result.stderr)")
        }
    }

    @Test("a failing file does not stop the others; the exit code reports it")
    func partialFailure() async throws {
        let result = try await HotelsProcess.run([
            "parse", "Samples/Fixtures/sample-soap11.xml", "Samples/Fixtures/empty.xml", "Samples/Fixtures/sample-empty.xml",
        ])
        #expect(result.status == 65)
        #expect(result.stdout.split(separator: "\n").count == 5)
    }
}

@Suite("hotels parse --warnings")
struct ParseWarningsTests {
    @Test("at most N warnings of each kind, then how many more; --warnings all prints every one; --count gives them by kind")
    func caps() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("hotelkit-bad-\(getpid()).xml")
        try Data(WarningCapTests.badLatitudes(25).utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let capped = try await HotelsProcess.run(["parse", "--warnings", "2", "--count", file.path])
        let lines = capped.stderr.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.last == "hotels: warning: \(file.path): 23 more latitude warnings (--warnings all prints every one)")
        #expect(capped.stdout == #"{"records": 25, "warnings": 25, "warningsByKind": {"latitude":25}}"# + "\n")
        let all = try await HotelsProcess.run(["parse", "--warnings", "all", "--count", file.path])
        #expect(all.stderr.split(separator: "\n").count == 25)
        #expect(try await HotelsProcess.run(["parse", "--warnings", "some", file.path]).status == 64)
    }
}

@Suite("hotels parse --summary")
struct ParseSummaryTests {
    @Test("the paging state, header values with secrets hidden, and the error state follow the records")
    func summary() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hotelkit-summary-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let profile = directory.appendingPathComponent("p.json")
        let response = directory.appendingPathComponent("r.xml")
        try Data(
            #"{"name": "s", "body": "<Q>{cursor}</Q>", "record": "Hotel", "fields": {"code": "@Code"}, "header": {"token": "//BinarySecurityToken", "conversation": "//ConversationId", "echo": "//Echo"}, "paging": {"style": "cursor", "next": "//Next"}}"#
                .utf8
        ).write(to: profile)
        try Data(
            """
            <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Header><BinarySecurityToken>Shared/IDL:SECRET-123</BinarySecurityToken>\
            <ConversationId>conv-9</ConversationId></soap:Header><soap:Body><R><Hotel Code="A"/><Next>n2</Next></R></soap:Body></soap:Envelope>
            """.utf8
        ).write(to: response)
        let result = try await HotelsProcess.run(["parse", "--summary", "--profile", profile.path, response.path])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix(#"{"code":"A""#))
        let lines = result.stderr.split(separator: "\n").map { String($0.dropFirst("hotels: \(response.path): ".count)) }
        #expect(
            lines == [
                "1 records, 0 skipped, 0 warnings", "paging: cursor //Next: “n2”: the next page asks for it",
                "header conversation: “conv-9”", "header token: (hidden, 21 characters)", "header echo: absent", "error: none",
            ])
        #expect(!result.stderr.contains("SECRET"))
    }

    @Test("a response that reports an error still gets its summary: the records before the error, paging, header values, the error")
    func summaryOfAnError() async throws {
        let file = Samples.url("Real/concur/OTA_HotelSearchRS-error-322.xml").path
        let result = try await HotelsProcess.run([
            "parse", "--summary", "--profile", Samples.profileArgument("Samples/Real/profiles/concur-hotel-search.json"), file,
        ])
        #expect(result.status == 76)
        let notes = result.stderr.split(separator: "\n").filter { $0.hasPrefix("hotels: \(file): ") }.map {
            String($0.dropFirst("hotels: \(file): ".count))
        }
        #expect(
            notes == [
                "0 records, 0 skipped, 0 warnings", "paging: none: a one-shot operation, this response is the whole answer",
                "error: the service reported an error: 322 No availability (//Errors/Error)",
            ], "\(result.stderr)")
    }
}

@Suite("hotels --help")
struct HelpTests {
    @Test("an unknown command with --help is reported (64), while a known one's help and the top help exit 0")
    func unknownCommand() async throws {
        let unknown = try await HotelsProcess.run(["fecth", "--help"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("fecth") && unknown.stdout.isEmpty)
        let known = try await HotelsProcess.run(["fetch", "--help"])
        #expect(known.status == 0 && known.stdout.contains("USAGE: hotels fetch"))
        #expect(try await HotelsProcess.run(["--help"]).status == 0)
        #expect(try await HotelsProcess.run(["help", "list"]).stdout.contains("USAGE: hotels list"))
    }

    @Test("parse's help says what an authentication fault exits with, and it does: 77")
    func parseExitCodes() async throws {
        let help = try await HotelsProcess.run(["parse", "--help"])
        #expect(help.stdout.contains("76 for a SOAP fault") && help.stdout.contains("77 when"))
        let fault = try await HotelsProcess.run(["parse", Samples.url("Fixtures/fault-soap11-client.xml").path])
        #expect(fault.status == 77, "\(fault.stderr)")
        #expect(try await HotelsProcess.run(["parse", Samples.url("Fixtures/fault-soap11-server.xml").path]).status == 76)
    }
}
