import ArgumentParser
import Console
import Failures
import Fetching
import Foundation
import Hotels
import Runtime
import SOAP

extension ExitStatus {
    var code: ExitCode { ExitCode(rawValue) }
}

/// `--warnings N|all`: how many warnings of each kind a person sees.
struct WarningOptions: ParsableArguments {
    @Option(name: .customLong("warnings"), help: "Warnings of each kind to print (then one line says how many more), or “all”.")
    var warnings = "10"

    /// Nil: every one.
    var perKind: Int? { warnings == "all" ? nil : Int(warnings) }

    func validate() throws {
        guard warnings == "all" || (Int(warnings) ?? -1) >= 0 else {
            throw ValidationError("--warnings takes a number of warnings per kind, or “all”, not “\(warnings)”")
        }
    }

    /// One line per kind whose warnings passed the cap: how many more there were.
    func reportSuppressed(_ byKind: [String: Int], context: String) {
        guard let cap = perKind else { return }
        for kind in RecordWarning.kinds(in: byKind.keys) {
            let more = byKind[kind, default: 0] - cap
            if more > 0 { Diagnostics.warning("\(context): \(more) more \(kind) warnings (--warnings all prints every one)") }
        }
    }
}

/// Limits every command that reads XML accepts.
struct XMLLimitOptions: ParsableArguments {
    @Option(help: "Deepest element nesting allowed.") var maxDepth = XMLReaderLimits().maxDepth
    @Option(help: "Longest text value or attribute, in bytes.") var maxText = XMLReaderLimits().maxTextLength
    @Option(help: "Largest document, in bytes.") var maxInput = XMLReaderLimits().maxInputBytes

    var limits: XMLReaderLimits {
        XMLReaderLimits(maxDepth: maxDepth, maxTextLength: maxText, maxInputBytes: maxInput)
    }

    func validate() throws {
        guard maxDepth > 0, maxText > 0, maxInput > 0 else {
            throw ValidationError("limits must be positive")
        }
    }
}

extension Interruption {
    /// The shell's exit status for the signal that interrupted the work, if one did.
    var exitCode: ExitCode? { exitStatus.map { ExitCode($0) } }
}

/// Runs `work` until it ends or SIGINT/SIGTERM cancels it, then closes `runtime`, which logs its sessions out.
/// An interrupted run says `interrupted` and exits 128 + the signal's number; an error is reported in `context`.
func interruptible<T: Sendable>(
    closing runtime: HotelRuntime, context: String, interrupted: String? = nil,
    _ work: @escaping @Sendable () async throws -> T
) async throws -> T {
    let interruption = Interruption()
    let outcome = await interruption.run(work)
    await runtime.close()
    if let code = interruption.exitCode {
        if let interrupted { Diagnostics.note(interrupted) }
        throw code
    }
    return try reported(context) { try outcome.get() }
}

/// `body`'s value; its error reported in `context` and thrown as its exit code (an exit code passes as it is).
func reported<T>(_ context: @autoclosure () -> String, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let code as ExitCode {
        throw code
    } catch {
        throw Diagnostics.report(error, context: context()).code
    }
}

/// ``reported(_:_:)`` for asynchronous work.
func reported<T>(_ context: @autoclosure () -> String, _ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let code as ExitCode {
        throw code
    } catch {
        throw Diagnostics.report(error, context: context()).code
    }
}
