import ArgumentParser
import Console
import Failures
import Fetching
import Hotels

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

struct ParseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parse",
        abstract: "Parse recorded SOAP responses into hotel records, as JSON Lines.",
        discussion: """
            Prints one JSON object per record as the records stream out, with the keys \
            code, name, address, latitude, longitude, logoURL, addtime, phone, chainCode, rating, \
            postalCode, city, countryCode and references (null when absent). \
            Warnings about single records go to standard error. Exit 65 for malformed, \
            hostile or non-SOAP input, 76 for a SOAP fault or an error the service reported, \
            77 when the fault or the error says the credentials were refused.
            """
    )

    @Argument(help: "Response files; “-” reads standard input.") var files: [String]
    @Option(help: "A built-in profile (\(ServiceProfile.builtInNames.joined(separator: ", "))) or the path of a profile file.")
    var profile = "sample"
    @Flag(help: "Print only a summary: {\"records\": N, \"warnings\": M}, and the warnings by kind when there are any.") var count = false
    @OptionGroup var warningOptions: WarningOptions
    @Flag(
        help:
            "After each file's records, print its paging state (the next token or flag, the end marker), its header values and its error state on standard error."
    )
    var summary = false
    @OptionGroup var limits: XMLLimitOptions

    func run() throws {
        let profile = try reported("--profile") { try ServiceProfile.named(self.profile) }
        let parser = HotelResponseParser(profile: profile, limits: limits.limits, warningsPerKind: warningOptions.perKind)
        let output = StandardOutput()
        var records = 0
        var warnings = 0
        var byKind: [String: Int] = [:]
        var failure: ExitStatus?
        for file in files {
            let context = file == "-" ? "standard input" : file
            var partial: ParseSummary?
            do {
                let summary = try parse(file, named: context, with: parser, output: output, partial: &partial)
                records += summary.records
                warnings += summary.warnings
                byKind.merge(summary.warningsByKind, uniquingKeysWith: +)
                warningOptions.reportSuppressed(summary.warningsByKind, context: context)
                if let hint = summary.noRecordsHint { Diagnostics.warning("\(context): \(hint)") }
                if self.summary {
                    output.flush()
                    printSummary(summary, of: context, profile: profile)
                }
            } catch {
                output.flush()
                let status = Diagnostics.report(error, context: context)
                if self.summary {
                    // A response that reports an error still says how far it got: records, paging, header values.
                    if let partial {
                        printSummary(partial, of: context, profile: profile, error: "\(error)")
                    } else {
                        Diagnostics.note("\(context): error: \(error)")
                    }
                }
                failure = failure ?? status
            }
        }
        if count {
            let kinds = byKind.isEmpty ? "" : #", "warningsByKind": "# + JSONLine.string(byKind)
            output.write(line: #"{"records": \#(records), "warnings": \#(warnings)\#(kinds)}"#)
        }
        output.flush()
        if let failure { throw failure.code }
    }

    /// What the response says about paging, its header values (secret-looking ones hidden) and its error state.
    private func printSummary(_ summary: ParseSummary, of file: String, profile: ServiceProfile, error: String? = nil) {
        ResponseReport.lines(
            records: summary.records, skipped: summary.skipped, warnings: summary.warnings,
            pagingState: summary.pagingState(profile.paging, endMarker: profile.endMarker),
            headerValues: summary.headerValues, profile: profile, error: error
        ).forEach { Diagnostics.note("\(file): \($0)") }
    }

    /// Prints the file's records; `partial` gets the summary so far when the response reports an error.
    private func parse(
        _ file: String, named name: String, with parser: HotelResponseParser, output: StandardOutput,
        partial: inout ParseSummary?
    ) throws -> ParseSummary {
        let descriptor = file == "-" ? STDIN_FILENO : open(file, O_RDONLY)
        guard descriptor >= 0 else { throw UnreadableFile(path: file, errorNumber: errno) }
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }
        let printRecords = !count
        let session = try parser.session(
            onRecord: { hotel in
                if printRecords { output.write { HotelJSONLines.append(hotel, to: &$0) } }
            },
            onWarning: { Diagnostics.warning("\(name): \($0)") }
        )
        do {
            try session.feed(fileDescriptor: descriptor)
            return try session.finish()
        } catch let error as ServiceReportedError {
            partial = session.summary
            throw error
        }
    }
}
