/// An alert's priority in ntfy's words, and what each destination makes of it.
public enum AlertPriority: String, Sendable, CaseIterable {
    case min, low, `default`, high, urgent

    /// A priority from its word, ntfy's synonyms (`max`) or its number (1-5).
    public init?(parsing text: String) {
        switch text.lowercased() {
        case "min", "1": self = .min
        case "low", "2": self = .low
        case "default", "3": self = .default
        case "high", "4": self = .high
        case "urgent", "max", "5": self = .urgent
        default: return nil
        }
    }

    /// ntfy's number: 1 (min) to 5 (max/urgent).
    public var ntfyNumber: Int {
        switch self {
        case .min: 1
        case .low: 2
        case .default: 3
        case .high: 4
        case .urgent: 5
        }
    }

    /// Gotify's number (0-10; its Android app notifies from 4, and with sound from 8).
    public var gotifyNumber: Int {
        switch self {
        case .min: 0
        case .low: 2
        case .default: 5
        case .high: 8
        case .urgent: 10
        }
    }

    /// Apprise's notification type: `info` up to default, `warning` for high, `failure` for urgent.
    public var appriseType: String {
        switch self {
        case .min, .low, .default: "info"
        case .high: "warning"
        case .urgent: "failure"
        }
    }
}
