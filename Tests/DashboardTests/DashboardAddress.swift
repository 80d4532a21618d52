import Foundation
import TestSupport

extension HotelsProcess.Running {
    /// Where a started `hotels dashboard --port 0` listens, once it has said so. The
    /// port is the kernel's choice: a port a test picked free and then passed was
    /// once taken by another test's server in between, and the test spoke to that
    /// one (a ThreadSanitizer run: "Address already in use", then 500 for every host).
    func dashboardAddress() async throws -> (base: String, port: Int) {
        while true {
            let printed = String(decoding: try Data(contentsOf: output), as: UTF8.self)
            if let match = printed.firstMatch(of: /dashboard on (http:\/\/[0-9.]+:([0-9]+))\//), let port = Int(match.2) {
                return (String(match.1), port)
            }
            guard !child.hasEnded else {
                throw DashboardEnded(stderr: String(decoding: try Data(contentsOf: errors), as: UTF8.self))
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}

struct DashboardEnded: Error, CustomStringConvertible {
    var stderr: String
    var description: String { "hotels dashboard ended before it listened: \(stderr)" }
}
