import ArgumentParser
import Console
import Failures
import Fetching
import Foundation
import Matching
import Runtime

struct MatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "match",
        abstract: "Group every list's hotels into properties, one per physical hotel, with stable ids; explain, review and decide pairs.",
        discussion: """
            hotels match groups the records of every list in the store (all profiles and endpoints) city by city, and \
            stores the properties beside the lists. hotels properties prints them. A record is named LIST:CODE: a list's \
            id (hotels cache stats) and a hotel's code.
            """,
        subcommands: [Run.self, Explain.self, Review.self, Decide.self],
        defaultSubcommand: Run.self
    )

    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run",
            abstract: "Match the store's lists into properties and print a summary (the default).",
            discussion: "Exit 66 when the store holds no list to match."
        )
        @OptionGroup var cacheOptions: CacheOptions
        @Option(help: "Only the lists of this city (repeatable); the other cities' properties stay as they are.") var city: [String] = []
        @Flag(help: "First fetch every logo the records name that has no perceptual hash yet (the caches first), and hash it.")
        var logos = false
        @Flag(help: "Match every city again, even one whose lists, decisions and settings are as its last match found them.")
        var full = false
        @Flag(help: "Print the summary as JSON.") var json = false

        func run() async throws {
            let runtime = try await cacheOptions.runtime()
            let (cities, full) = (city, full)
            let pipeline = logos ? runtime.originalLogos : nil
            let progress = ProgressLine(total: 0, label: "cities", quiet: json)
            let summary = try await interruptible(closing: runtime, context: "match") {
                try await runtime.catalogue.match(cities: cities, logos: pipeline, full: full) { _, _ in progress.advance() }
            }
            progress.finish()
            if let failure = summary.firstLogoFailure, !json {
                Diagnostics.warning(
                    "\(summary.logosFailed) logo\(summary.logosFailed == 1 ? "" : "s") could not be had; the first: \(failure)")
            }
            writeAll(Array(((json ? JSONLine.string(summary) : summary.description) + "\n").utf8), to: STDOUT_FILENO)
        }
    }

    struct Explain: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Every signal of a pair: both values, the agreement level and weight, the running total, and the decision.",
            discussion: "Exit 64 for a malformed LIST:CODE, 66 for a list or code the store does not hold."
        )
        @OptionGroup var cacheOptions: CacheOptions
        @OptionGroup var records: RecordPairArguments
        @Flag(help: "Print the explanation as JSON.") var json = false

        func run() async throws {
            let (a, b) = try records.references()
            let runtime = try await cacheOptions.runtime()
            let explanation = try await interruptible(closing: runtime, context: "match explain") {
                try await runtime.catalogue.explain(a, b)
            }
            writeAll(Array(((json ? JSONLine.string(explanation) : explanation.description) + "\n").utf8), to: STDOUT_FILENO)
        }
    }

    struct Review: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The pairs the last run left between the thresholds, best first: decide each with hotels match decide.")
        @OptionGroup var cacheOptions: CacheOptions
        @Option(help: "Only this city's pairs.") var city: String?
        @Flag(help: "JSON Lines: each pair with its members and explanation.") var json = false

        func run() async throws {
            let runtime = try await cacheOptions.runtime()
            let city = self.city
            let pairs = try await interruptible(closing: runtime, context: "match review") {
                try await runtime.catalogue.reviews(city: city)
            }
            var output = ""
            for pair in pairs {
                output += json ? JSONLine.string(pair) + "\n" : Self.line(pair)
            }
            if !json && pairs.isEmpty { output = "no pairs to review\n" }
            writeAll(Array(output.utf8), to: STDOUT_FILENO)
        }

        /// `  5.2 bits  3:PAR1234 "Ibis Paris Gare du Nord"  ~  5:X9 "IBIS STYLES PARIS GARE DU NORD"`, and the command that decides it.
        private static func line(_ pair: ReviewPair) -> String {
            func shown(_ member: CatalogueMember) -> String {
                member.reference + (member.name.map { " \"\(Diagnostics.shown($0))\"" } ?? "") + " (\(member.profile))"
            }
            return String(format: "%5.1f bits  ", pair.score) + shown(pair.first) + "  ~  " + shown(pair.second) + "\n"
                + "           hotels match decide \(pair.first.reference) \(pair.second.reference) same|different\n"
        }
    }

    struct Decide: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record that two records are the same hotel or different ones; every later run honours it.",
            discussion:
                "The records' cities are matched again at once. Exit 64 for a malformed LIST:CODE, 66 for a record the store does not hold."
        )
        @OptionGroup var cacheOptions: CacheOptions
        @OptionGroup var records: RecordPairArguments
        @Argument(help: ArgumentHelp("same or different.", valueName: "same|different")) var verdict: String
        @Flag(help: "Print the two records' properties as JSON.") var json = false

        func run() async throws {
            let (a, b) = try records.references()
            guard let verdict = PairDecision.Verdict(rawValue: verdict.lowercased()) else {
                Diagnostics.error("the decision is \"same\" or \"different\", not \"\(verdict)\"")
                throw ExitStatus.usage.code
            }
            let runtime = try await cacheOptions.runtime()
            let (firstProperty, secondProperty) = try await interruptible(closing: runtime, context: "match decide") {
                try await runtime.catalogue.decide(a, b, verdict)
            }
            if json {
                writeAll(Array([firstProperty, secondProperty].compactMap { $0?.jsonLine }.joined().utf8), to: STDOUT_FILENO)
                return
            }
            let ids = [firstProperty?.id, secondProperty?.id]
            let where_ =
                ids[0] == ids[1] ? "both in \(ids[0] ?? "no property")" : "in \(ids[0] ?? "no property") and \(ids[1] ?? "no property")"
            writeAll(Array("\(a) and \(b): \(verdict.rawValue), recorded; \(where_)\n".utf8), to: STDOUT_FILENO)
        }
    }
}

struct PropertiesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "properties",
        abstract: "Print the properties hotels match made: one per line, with their members.",
        discussion: "Exit 66 when the store holds none (run hotels match first)."
    )
    @OptionGroup var cacheOptions: CacheOptions
    @Option(help: "Only this city's properties.") var city: String?
    @Option(help: "Only properties listed by at least this many suppliers.") var suppliers = 1
    @Flag(
        help:
            #"JSON Lines: {"id", "name", "city", "latitude", "longitude", "confidence", "members": [{"list", "profile", "endpoint", "code", "name"}]}."#
    )
    var json = false

    func run() async throws {
        let runtime = try await cacheOptions.runtime()
        let query = PropertyQuery(city: city, minimumSuppliers: max(1, suppliers), limit: 1_000)
        let storage = runtime.storage
        // In pages of 1,000 by id, so memory stays flat whatever the catalogue's size.
        let printed = try await interruptible(closing: runtime, context: "properties") {
            var page = query
            var printed = 0
            while true {
                let properties = try await storage.properties(page)
                var output = ""
                for property in properties { output += json ? property.jsonLine : PropertyLine.text(property) }
                writeAll(Array(output.utf8), to: STDOUT_FILENO)
                printed += properties.count
                guard let last = properties.last, properties.count == query.limit else { return printed }
                page.after = last.id
            }
        }
        if printed == 0 {
            Diagnostics.error(
                "no properties" + (city.map { " in \($0)" } ?? "") + " in the store", hint: "hotels match groups the lists into properties")
            throw ExitStatus.noInput.code
        }
    }
}

/// A property as `hotels properties` prints it.
enum PropertyLine {
    /// `P1A2B3C4D5E6F  strict  3 suppliers  Hotel name (City)`, then a member a line.
    static func text(_ property: CatalogueProperty) -> String {
        var text =
            "\(property.id)  \(property.confidence.rawValue)  \(property.supplierCount) supplier\(property.supplierCount == 1 ? "" : "s")  "
            + Diagnostics.shown(property.name ?? "(no name)") + (property.city.map { " (\(Diagnostics.shown($0)))" } ?? "") + "\n"
        for member in property.members {
            text += "    \(member.reference)  \(member.profile)  " + Diagnostics.shown(member.name ?? "") + "\n"
        }
        return text
    }
}

/// The two records a pair command names, as `LIST:CODE`.
struct RecordPairArguments: ParsableArguments {
    @Argument(help: ArgumentHelp("The first record.", valueName: "list:code")) var first: String
    @Argument(help: ArgumentHelp("The second record.", valueName: "list:code")) var second: String

    /// Both references; a malformed one is reported and exits 64.
    func references() throws -> (RecordReference, RecordReference) {
        try reported("match") { (try RecordReference(parsing: first), try RecordReference(parsing: second)) }
    }
}
