import Foundation

/// The text of `GET /metrics`: Prometheus's text format 0.0.4, or OpenMetrics 1.0 when the scraper asks for it — one
/// owner of the format, written by hand.
///
/// Why not swift-prometheus (2.4.1, in the offline package set): it writes the Prometheus text format only (no
/// `# EOF`, no counter family without `_total`, no `application/openmetrics-text`), and it is a registry of live
/// metric objects: each device's gauges would be registered and unregistered as devices come and go, a second copy
/// of the snapshot peerscan-web already keeps, kept in step by hand. Here every scrape writes the series straight
/// from the snapshot into one byte buffer (10,000 devices: docs/benchmarks.md).
///
/// Label values are escaped as both formats say (`\` → `\\`, `"` → `\"`, a line feed → `\n`), help texts likewise
/// (`\` and line feed). A family is declared once (`# HELP`, `# TYPE`), then its samples follow.
///
/// ## Performance
/// Appending is amortized O(bytes written); nothing is sorted or looked up.
public struct MetricsExposition: Sendable {
    /// The two formats.
    public enum Format: Hashable, Sendable {
        /// Prometheus's text format, version 0.0.4.
        case prometheus
        /// OpenMetrics 1.0.0.
        case openMetrics

        /// The format an `Accept` header asks for: OpenMetrics if it accepts `application/openmetrics-text`
        /// (version 1.0.0, or none given) with a quality at least that of `text/plain`; else Prometheus's.
        public init(accept: String?) {
            var openMetrics = 0.0
            var text = 0.0
            for range in (accept ?? "").split(separator: ",") {
                let parts = range.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                guard let type = parts.first else { continue }
                var quality = 1.0
                var version: String?
                for parameter in parts.dropFirst() {
                    if parameter.hasPrefix("q=") { quality = Double(parameter.dropFirst(2)) ?? 0 }
                    if parameter.hasPrefix("version=") { version = String(parameter.dropFirst(8)) }
                }
                switch type {
                case "application/openmetrics-text" where version == nil || version == "1.0.0":
                    openMetrics = max(openMetrics, quality)
                case "text/plain", "text/*", "*/*": text = max(text, quality)
                default: break
                }
            }
            self = openMetrics > 0 && openMetrics >= text ? .openMetrics : .prometheus
        }

        /// The response's `Content-Type`.
        public var contentType: String {
            switch self {
            case .prometheus: "text/plain; version=0.0.4; charset=utf-8"
            case .openMetrics: "application/openmetrics-text; version=1.0.0; charset=utf-8"
            }
        }
    }

    /// A metric family's type. An info metric (`*_info`, value 1) is a gauge in both formats: Prometheus's text
    /// format has no info type, and `promtool check metrics` reads both bodies with its parser.
    public enum MetricType: String, Sendable {
        case counter, gauge, histogram
    }

    /// The format written.
    public let format: Format
    /// The text so far (UTF-8).
    public private(set) var bytes: [UInt8] = []

    /// An empty exposition.
    /// - Parameter capacity: Bytes to reserve.
    public init(format: Format, capacity: Int = 0) {
        self.format = format
        bytes.reserveCapacity(capacity)
    }

    /// Declares a family: its `# HELP` and `# TYPE` lines.
    ///
    /// - Parameters:
    ///   - name: The family's name; for a counter without `_total` (OpenMetrics names the family so, Prometheus's
    ///     format the samples: its `# TYPE` line gets `_total`).
    ///   - type: Its type.
    ///   - help: What it means.
    public mutating func family(_ name: String, _ type: MetricType, help: String) {
        let declared = type == .counter && format == .prometheus ? name + "_total" : name
        append("# HELP ")
        append(declared)
        append(" ")
        for byte in help.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): append("\\\\")
            case UInt8(ascii: "\n"): append("\\n")
            default: bytes.append(byte)
            }
        }
        append("\n# TYPE ")
        append(declared)
        append(" ")
        append(type.rawValue)
        append("\n")
    }

    /// Appends one sample.
    ///
    /// - Parameters:
    ///   - name: The sample's name (with `_total`, `_bucket`, … where its type has one).
    ///   - labels: Its labels, in order; the names are the caller's (valid, fixed), the values are escaped.
    ///   - value: Its value, already formatted (``value(_:)-swift.type.method``).
    public mutating func sample(_ name: String, _ labels: KeyValuePairs<String, String> = [:], _ value: String) {
        append(name)
        if !labels.isEmpty {
            append("{")
            var first = true
            for (label, text) in labels {
                if !first { append(",") }
                first = false
                append(label)
                append("=\"")
                appendEscaped(text)
                append("\"")
            }
            append("}")
        }
        append(" ")
        append(value)
        append("\n")
    }

    /// Ends the exposition (OpenMetrics: `# EOF`).
    public mutating func finish() {
        if format == .openMetrics { append("# EOF\n") }
    }

    /// A number as both formats write it: `+Inf`, `-Inf`, `NaN`, else Swift's shortest exact form.
    public static func value(_ number: Double) -> String {
        if number.isNaN { return "NaN" }
        if number.isInfinite { return number > 0 ? "+Inf" : "-Inf" }
        return "\(number)"
    }

    /// An integer.
    public static func value(_ number: some BinaryInteger) -> String { "\(number)" }

    /// A histogram bucket's bound as OpenMetrics wants it (canonical: `1.0`, `0.25`, `+Inf`), which Prometheus's
    /// format reads too.
    public static func bound(_ number: Double) -> String {
        let text = value(number)
        return text.contains(".") || text.contains("e") || number.isInfinite ? text : text + ".0"
    }

    private mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    private mutating func appendEscaped(_ text: String) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): append("\\\\")
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\n"): append("\\n")
            default: bytes.append(byte)
            }
        }
    }
}
