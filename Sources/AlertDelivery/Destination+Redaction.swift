import Foundation

extension Destination {
    /// Every secret this destination holds: passwords, tokens, Gotify's app token, Apprise's key, header values.
    var secretValues: [String] {
        var values: [String] = []
        switch credentials {
        case .basic(_, let password)?: values.append(password.value)
        case .bearer(let token)?: values.append(token.value)
        case nil: break
        }
        if let pathSecret { values.append(pathSecret.value) }
        values += headers.map(\.value.value)
        return values.filter { $0.count >= 3 }
    }

    /// `text` (an error's description, a receiver's answer) with every secret of this destination, as given and
    /// percent-encoded, replaced by `<secret>`: an HTTP library's error may quote the URL, a receiver may echo a
    /// header.
    ///
    /// - Complexity: O(n × s) in the text's length and the number of secrets.
    public func redacting(_ text: String) -> String {
        var result = text
        for secret in secretValues {
            result = result.replacingOccurrences(of: secret, with: "<secret>")
            let encoded = Self.escapedSegment(secret)
            if encoded != secret { result = result.replacingOccurrences(of: encoded, with: "<secret>") }
        }
        return result
    }
}
