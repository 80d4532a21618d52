/// What `hotels profile inspect` shows of a WSDL: for people as lines, for
/// machines as JSON (``ServiceDescription/inspection``).
public struct WSDLInspection: Sendable, Encodable {
    public struct Document: Sendable, Encodable {
        public var name: String
        public var referrer: String?
        /// `file`, `cache` or `network`.
        public var origin: String
        public var bytes: Int
    }

    public struct Binding: Sendable, Encodable {
        public var name: String
        public var portType: String
        public var soapVersion: String
        public var style: String
        public var operations: [Operation]
    }

    public struct Operation: Sendable, Encodable {
        public var name: String
        public var soapAction: String
        public var style: String
        /// The input's elements (`{namespace}name`), or its typed parts under RPC style (`part: {namespace}type`).
        public var input: [String]
        public var output: [String]
        /// The input's SOAP header elements.
        public var headers: [String]
        /// The output's SOAP header elements (Shiji's `KwsSoapHeader` on `AppLogin`'s reply): where a session's values come back.
        public var outputHeaders: [String]
        public var addressingAction: String?
        public var documentation: String?
    }

    public var name: String
    public var targetNamespace: String
    public var documents: [Document]
    /// Imports of standard schemas (XML Signature, `xml:`, …), not read.
    public var notRead: [SkippedImport]
    /// Schemas the set refers to that are not there: their types are unknown.
    public var missing: [MissingDocument]
    public var services: [ServiceDescription.Service]
    public var bindings: [Binding]
    /// Port types no SOAP binding binds: their operations' messages, without a SOAP version or action.
    public var unboundPortTypes: [ServiceDescription.UnboundPortType]
    /// What the policies ask of a request: `WS-Security UsernameToken`, `WS-Addressing`, ….
    public var policies: [String]
    /// What the WSDL gets wrong, and how it was read anyway.
    public var problems: [String]

    /// The inspection as lines for a terminal.
    public var lines: [String] {
        let fetched = documents.count { $0.origin == "network" }
        let cached = documents.count { $0.origin == "cache" }
        var lines = [
            "\(documents.first?.name ?? name): \(documents.count) document\(documents.count == 1 ? "" : "s")"
                + " (\(fetched) fetched, \(cached) from the cache), \(documents.reduce(0) { $0 + $1.bytes }) bytes"
        ]
        for document in documents.dropFirst() {
            lines.append("  \(document.name) (\(document.origin), \(document.bytes) bytes)" + (document.referrer.map { " ← \($0)" } ?? ""))
        }
        for skipped in notRead {
            lines.append("  not read: \(skipped.location) ← \(skipped.referrer) (\(skipped.standard), a standard schema no profile needs)")
        }
        for document in missing {
            lines.append("  missing: \(document.location) ← \(document.referrer) (\(document.reason)); the types it holds are unknown")
        }
        for service in services {
            lines.append("service \(service.name)")
            for port in service.ports {
                lines.append(
                    "  port \(port.name): binding \(port.binding)" + (port.soapVersion.map { ", SOAP \($0)" } ?? ", not SOAP")
                        + (port.address.map { ", \($0)" } ?? ""))
            }
        }
        for binding in bindings {
            lines.append(
                "binding \(binding.name): SOAP \(binding.soapVersion), \(binding.style), port type \(binding.portType), "
                    + "\(binding.operations.count) operation\(binding.operations.count == 1 ? "" : "s")")
            for operation in binding.operations {
                lines.append("  operation \(operation.name)" + (operation.style != binding.style ? " (\(operation.style))" : ""))
                lines.append("    SOAPAction: " + (operation.soapAction.isEmpty ? "(none)" : operation.soapAction))
                lines.append("    input: " + (operation.input.isEmpty ? "(nothing)" : operation.input.joined(separator: ", ")))
                lines.append("    output: " + (operation.output.isEmpty ? "(nothing)" : operation.output.joined(separator: ", ")))
                if !operation.headers.isEmpty { lines.append("    headers: " + operation.headers.joined(separator: ", ")) }
                if !operation.outputHeaders.isEmpty {
                    lines.append("    output headers: " + operation.outputHeaders.joined(separator: ", "))
                }
                if let action = operation.addressingAction { lines.append("    WS-Addressing action: \(action)") }
            }
        }
        for portType in unboundPortTypes {
            lines.append(
                "port type \(portType.name): no binding, so no SOAP version and no SOAPAction; "
                    + "\(portType.operations.count) operation\(portType.operations.count == 1 ? "" : "s")")
            for operation in portType.operations {
                lines.append("  operation \(operation.name)")
                lines.append("    input: " + (operation.input.isEmpty ? "(nothing)" : operation.input.joined(separator: ", ")))
                lines.append("    output: " + (operation.output.isEmpty ? "(nothing)" : operation.output.joined(separator: ", ")))
            }
        }
        lines.append("policies: " + (policies.isEmpty ? "none declared" : policies.joined(separator: ", ")))
        lines += problems.map { "problem: " + $0 }
        return lines
    }
}

extension ServiceDescription {
    /// Everything `inspect` shows.
    public var inspection: WSDLInspection {
        let parts = Self.describe
        return WSDLInspection(
            name: name, targetNamespace: targetNamespace,
            documents: documents.map { .init(name: $0.name, referrer: $0.referrer, origin: $0.origin.rawValue, bytes: $0.bytes) },
            notRead: skipped,
            missing: missing,
            services: services,
            bindings: bindings.map { binding in
                .init(
                    name: binding.name, portType: binding.portType, soapVersion: binding.soapVersion.rawValue, style: binding.style,
                    operations: binding.operations.map { operation in
                        .init(
                            name: operation.name, soapAction: operation.soapAction, style: operation.style,
                            input: parts(operation.input), output: parts(operation.output),
                            headers: operation.inputHeaders.map(\.description), outputHeaders: operation.outputHeaders.map(\.description),
                            addressingAction: operation.addressingAction,
                            documentation: operation.documentation.isEmpty ? nil : operation.documentation)
                    })
            },
            unboundPortTypes: unboundPortTypes,
            policies: policies.descriptions, problems: problems)
    }
}
