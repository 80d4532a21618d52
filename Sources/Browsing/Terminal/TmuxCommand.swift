import Dispatch
import Foundation

/// Asks the tmux server this process runs under (`TMUX`) one thing: a command's output.
enum TmuxCommand {
    /// The output of `tmux ARGUMENTS` (or of `program`), or nil when it is not there, fails, or has not
    /// ended by `deadline`: a tmux server that does not answer is no reason to hang the view's start.
    static func output(_ arguments: [String], program: String = "tmux", deadline: DispatchTimeInterval = .seconds(1)) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        do {
            try process.run()
        } catch {
            return nil
        }
        guard ended.wait(timeout: .now() + deadline) == .success else {
            process.terminate()
            return nil
        }
        // A line or two, whole in the pipe by the time the command has ended.
        let data = output.fileHandleForReading.readDataToEndOfFile()
        return process.terminationStatus == 0 ? String(decoding: data, as: UTF8.self) : nil
    }
}
