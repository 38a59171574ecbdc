import DaemonSupport
import Foundation
import HTTPTypes
import HummingbirdCore
import NIOCore
import PeerScanClient
import PeerScanModel

/// `GET /metrics`: the follower's snapshot and presence, GetStatistics called for the scrape, this process's
/// figures, as the format the scraper accepts (``MetricsExposition/Format/init(accept:)``).
public struct MetricsEndpoint: Sendable {
    let follower: MetricsFollower
    let socketPath: String
    let version: String

    /// An endpoint.
    /// - Parameters:
    ///   - follower: The follower of peerscand, run for the process's life (``MetricsFollower/run()``).
    ///   - socketPath: peerscand's socket, for GetStatistics.
    ///   - version: peerscan-web's version (`peerscan_build_info`).
    public init(follower: MetricsFollower, socketPath: String, version: String = PeerScanVersion.current) {
        self.follower = follower
        self.socketPath = socketPath
        self.version = version
    }

    /// The report of one scrape: peerscand's part only if it answers GetStatistics now.
    public func report() async -> MetricsReport {
        let statistics = try? await PeerScanConnection.withConnection(to: socketPath) { try await $0.statistics() }
        let (snapshot, presence) = follower.current
        return MetricsReport(
            version: version,
            daemon: statistics.map { MetricsReport.Daemon(snapshot: snapshot, presence: presence, statistics: $0) },
            process: ProcessFigures.current(),
            now: Date().timeIntervalSince1970
        )
    }

    /// The response to a scrape with this `Accept` header.
    func response(accept: String?) async -> Response {
        let format = MetricsExposition.Format(accept: accept)
        let exposition = await report().exposition(format)
        var fields = HTTPFields()
        fields[.contentType] = format.contentType
        SecurityHeaders.addAPI(to: &fields)
        return Response(
            status: .ok,
            headers: fields,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: exposition.bytes))
        )
    }
}
