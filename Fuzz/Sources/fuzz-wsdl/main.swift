import Dispatch
import Foundation
import FuzzCheck
import HTTP
import Hotels
import WSDL

/// Serves the fuzz input as the WSDL, and 404 for anything it imports, so
/// the loader's whole path runs with no socket and no file.
struct InputTransport: HTTPClient {
    static let root = "http://fuzz.test/service.wsdl"
    let document: [UInt8]

    func send(_ request: HTTPRequest, into sink: some HTTPBodySink) async throws -> HTTPResponseHead {
        guard request.url == Self.root else { return HTTPResponseHead(status: 404, headers: [:]) }
        try document.withUnsafeBytes { try sink.receive($0) }
        return HTTPResponseHead(status: 200, headers: ["content-type": "text/xml"])
    }
}

/// Lets the synchronous fuzz callback wait for the loader.
final class Outcome: @unchecked Sendable {
    // @unchecked Sendable: written by the task before it signals, read after the wait.
    var result: Result<WSDLDocumentSet, WSDLError>?
}

/// A WSDL either loads, and then each of its first 8 operations (enough to
/// reach every kind of binding, at a speed worth fuzzing) drafts a profile
/// that loads or is refused with a reason, or the load is refused with a
/// WSDLError that says why: never another error, never a crash.
func fuzzWSDL(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    var options = WSDLLoader.Options(cacheFolder: nil)
    options.maxDocumentBytes = 1 << 20
    let loader = WSDLLoader(options: options, transport: InputTransport(document: Array(input(start, count))))
    let outcome = Outcome()
    let done = DispatchSemaphore(value: 0)
    Task {
        do {
            outcome.result = .success(try await loader.load(InputTransport.root))
        } catch let error as WSDLError {
            outcome.result = .failure(error)
        } catch {
            invariant(false, "the loader threw \(type(of: error)), not a WSDLError: \(error)")
        }
        done.signal()
    }
    done.wait()
    switch outcome.result {
    case .success(let set):
        let description = ServiceDescription(set)
        for operation in description.operations.prefix(8) {
            do {
                let draft = try ProfileDrafter(description: description).draft(operation: operation.name)
                invariant((try? ServiceProfile(json: Data(draft.json.utf8), source: "fuzz")) != nil, "a drafted profile that does not load")
            } catch {
                invariant(!String(describing: error).isEmpty, "a refused draft without a reason")
            }
        }
    case .failure(let error):
        invariant(!error.description.isEmpty, "a refusal without a reason")
    case nil:
        invariant(false, "the load never finished")
    }
    return 0
}

runFuzzer(fuzzWSDL)
