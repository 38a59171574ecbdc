import ArgumentParser
import PeerScanClient

/// Runs `body`; reports a failure on standard error (`peerscanctl: ...`) and exits with its status.
func reportingFailures(socketPath: String, _ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as ExitCode {
        throw error
    } catch is OutputClosed {
        // The reader of standard output went away (`| head`): nobody is left to tell.
        throw ExitCode.success
    } catch {
        let failure = ClientFailure(error, socketPath: socketPath)
        for line in failure.errorLines { try? StandardStreams().write(OutputLine(.standardError, line)) }
        throw ExitCode(failure.status.rawValue)
    }
}
